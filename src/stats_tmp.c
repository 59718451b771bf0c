/* TEMPORARY stand-ins until the stats branch lands. */
#include <math.h>
#include "stats.h"

double stats_t_quantile(double p, double df)
{
	static const double t975[] = { 0, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228 };
	(void)p;
	return df <= 10 ? t975[(int)df] : 1.96 + 2.4 / df;
}

void stats_t_ci(const double *x, size_t n, double level, double ci[2])
{
	double m = stats_mean(x, n), h;
	(void)level;
	if (n < 2) { ci[0] = ci[1] = n ? x[0] : NAN; return; }
	h = stats_t_quantile(0.975, (double)n - 1) * stats_stddev(x, n) / sqrt((double)n);
	ci[0] = m - h; ci[1] = m + h;
}

int stats_ratio_ci(const double *num, const double *den, size_t n, double level, double ci[2])
{
	(void)num; (void)den; (void)n; (void)level;
	ci[0] = ci[1] = NAN;
	return -1;
}
