/*
 * Statistics of two runs' reps of one cell (compare.h). The reps of a run
 * are paired within it (baseline and traced back to back), but two runs
 * are two sessions: their differences are compared unpaired.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare/compare.h"
#include "results/stats.h"
#include "results/stats_rounds.h"
#include "base/util.h"

struct indexed { double p; size_t i; };

static int cmp_indexed(const void *x, const void *y)
{
	return stats_cmp_double(&((const struct indexed *)x)->p, &((const struct indexed *)y)->p);
}

/* The k-th smallest of n is held to alpha / (n - k): adjusted, (n - k) p, kept monotone. */
void compare_holm(const double *p, size_t n, double *adj)
{
	struct indexed *s = malloc((n + 1) * sizeof(*s));
	double run = 0;

	if (!s)
		die("out of memory");
	for (size_t i = 0; i < n; i++)
		s[i] = (struct indexed){ isnan(p[i]) ? 1 : p[i], i };
	qsort(s, n, sizeof(*s), cmp_indexed);
	for (size_t k = 0; k < n; k++) {
		run = fmax(run, fmin(1, (double)(n - k) * s[k].p));
		adj[s[k].i] = isnan(p[s[k].i]) ? NAN : run;
	}
	free(s);
}

size_t compare_units(const double *x, const int *round, size_t n, double *mean, double *se,
		     double *df)
{
	struct rounds_est e;

	stats_rounds_ci(x, round, n, 0.95, &e);
	if (e.rounds >= 2) {
		*mean = e.mean;
		*se = e.se;
		*df = e.df;
		return e.rounds;
	}
	*mean = stats_mean(x, n);
	*se = n > 1 ? stats_stddev(x, n) / sqrt((double)n) : NAN;
	*df = (double)n - 1;
	return n;
}

enum verdict compare_verdict(size_t na, size_t nb, double cv, double diff, const double ci[2],
			     double p_holm, double threshold, double floor)
{
	bool excludes_zero = ci[0] > 0 || ci[1] < 0;

	if (na < COMPARE_MIN_UNITS || nb < COMPARE_MIN_UNITS)
		return VERDICT_TOO_FEW;
	if (cv > COMPARE_NOISY_CV)
		return VERDICT_NOISY;
	if (!(p_holm < COMPARE_ALPHA) || !excludes_zero || !(fabs(diff) > threshold) ||
	    (isfinite(floor) && !(fabs(diff) > floor)))
		return VERDICT_SAME;
	return diff > 0 ? VERDICT_WORSE : VERDICT_BETTER;
}

const char *compare_verdict_name(enum verdict v)
{
	switch (v) {
	case VERDICT_SAME:    return "same";
	case VERDICT_WORSE:   return "worse";
	case VERDICT_BETTER:  return "better";
	case VERDICT_TOO_FEW: return "too few reps";
	case VERDICT_NOISY:   return "noisy";
	case VERDICT_NOT_COMPARABLE: return "not comparable";
	}
	return "same";
}
