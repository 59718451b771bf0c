/*
 * Quantiles of the normal and Student's t distributions, for the intervals
 * in stats.c. libm has erfc and lgamma but no inverse of either, and a table
 * of t values would cover only the degrees of freedom someone thought of:
 * --precision adds reps one at a time, so any n can come up.
 *
 * Method: the t upper tail is half a regularized incomplete beta function
 * (A&S 26.7.1), evaluated by its continued fraction (DLMF 8.17.22), and
 * inverted by safeguarded Newton steps. Above T_CORNISH_DF degrees of
 * freedom the Cornish-Fisher expansion about the normal quantile takes
 * over: it is as close as doubles get there, and lgamma's absolute error,
 * which grows with its argument, would start to show in the beta
 * function's prefactor. Against mpmath (df 1 to 1e6, p 1e-12 to 1 - 1e-6)
 * the largest relative error is 4e-12, at df ~ 5000.
 */
#include <float.h>
#include <math.h>

#include "results/stats.h"

#define T_CORNISH_DF 1e4
#define SQRT_2PI 2.5066282746310002

/*
 * z > 0 with upper tail q (0 < q <= 0.5). A&S 26.2.23 is within 4.5e-4;
 * each Newton step on erfc squares that error, four are plenty. erfc, unlike
 * 1 - erf, keeps its relative accuracy deep in the tail.
 */
static double normal_upper(double q)
{
	double t = sqrt(-2 * log(q));
	double z = t - (2.515517 + t * (0.802853 + t * 0.010328)) /
		       (1 + t * (1.432788 + t * (0.189269 + t * 0.001308)));

	for (int i = 0; i < 4; i++) {
		double f = exp(-0.5 * z * z) / SQRT_2PI;

		if (!(f > 0))
			break;
		z += (0.5 * erfc(z / M_SQRT2) - q) / f;
	}
	return z;
}

/*
 * A&S 26.7.5: t = z + g1/v + g2/v^2 + g3/v^3 + g4/v^4. The next term is
 * below 1e-15 of t for v >= 1e4 and |z| < 8 (p > 1e-15). Below that, it is
 * only the starting point for the Newton steps.
 */
static double cornish_fisher(double z, double v)
{
	double z2 = z * z;
	double g1 = z * (z2 + 1) / 4;
	double g2 = z * ((5 * z2 + 16) * z2 + 3) / 96;
	double g3 = z * (((3 * z2 + 19) * z2 + 17) * z2 - 15) / 384;
	double g4 = z * ((((79 * z2 + 776) * z2 + 1482) * z2 - 1920) * z2 - 945) / 92160;

	return z + (g1 + (g2 + (g3 + g4 / v) / v) / v) / v;
}

/*
 * The continued fraction of I_x(a, b) / prefactor (DLMF 8.17.22), by the
 * modified Lentz method. It converges fast for x < (a+1)/(a+b+2); the
 * caller uses I_x(a,b) = 1 - I_{1-x}(b,a) on the other side.
 */
static double beta_fraction(double a, double b, double x)
{
	const double tiny = 1e-300;
	double c = 1, d = 0, h = 1;     /* Lentz: f_0 = C_0 = 1, D_0 = 0 */

	for (int k = 1; k <= 10000; k++) {
		int m = k / 2;
		double num, delta;

		if (k % 2)
			num = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1));
		else
			num = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
		d = 1 + num * d;
		c = 1 + num / c;
		if (fabs(d) < tiny)
			d = tiny;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1 / d;
		delta = c * d;
		h *= delta;
		if (fabs(delta - 1) < 2 * DBL_EPSILON)
			break;
	}
	return 1 / h;
}

/* ln B(v/2, 1/2): computed once per quantile, used by every tail and density */
static double log_beta_half(double v)
{
	int sign;

	return lgamma_r(v / 2, &sign) + lgamma_r(0.5, &sign) - lgamma_r(v / 2 + 0.5, &sign);
}

/* P(T > t), t >= 0: I_x(v/2, 1/2) / 2 with x = v/(v+t^2), 1-x = t^2/(v+t^2),
 * both formed directly so that neither is a difference from 1. */
static double t_upper(double t, double v, double lbeta)
{
	double a = v / 2, b = 0.5, t2 = t * t;
	double x = 1 / (1 + t2 / v), y = 1 / (1 + v / t2);
	double front = exp(a * log(x) + b * log(y) - lbeta);

	if (x < (a + 1) / (a + b + 2))
		return 0.5 * front * beta_fraction(a, b, x) / a;
	return 0.5 * (1 - front * beta_fraction(b, a, y) / b);
}

static double t_density(double t, double v, double lbeta)
{
	return exp(-lbeta - 0.5 * log(v) - (v + 1) / 2 * log1p(t * t / v));
}

/* t > 0 with P(T > t) = q, q < 0.5: Newton from Cornish-Fisher, bisecting
 * whenever a step leaves the bracket (the far tail of v = 1 is 1/(pi t),
 * where plain Newton from the wrong side overshoots to t < 0). */
static double t_upper_inverse(double q, double v)
{
	double lbeta = log_beta_half(v);
	double lo = 0, hi, t = cornish_fisher(normal_upper(q), v);

	if (!(t > 0))
		t = 1;
	hi = t;
	while (t_upper(hi, v, lbeta) > q) {
		lo = hi;
		hi *= 2;
		if (isinf(hi))
			return hi;
	}
	for (int i = 0; i < 200; i++) {
		double e = t_upper(t, v, lbeta) - q, next;

		if (e == 0)
			return t;
		if (e > 0)
			lo = t;
		else
			hi = t;
		next = t + e / t_density(t, v, lbeta);
		if (!(next > lo && next < hi))
			next = lo + (hi - lo) / 2;
		if (fabs(next - t) <= 4 * DBL_EPSILON * next)
			return next;
		t = next;
	}
	return t;
}

double stats_t_quantile(double p, double df)
{
	double q, t;

	if (!(p >= 0 && p <= 1) || !(df > 0))
		return NAN;
	if (p == 0.5)
		return 0;
	if (p == 0 || p == 1)
		return p == 0 ? -INFINITY : INFINITY;
	q = p < 0.5 ? p : 1 - p;          /* exact for p >= 0.5 (Sterbenz) */
	if (df >= T_CORNISH_DF)
		t = cornish_fisher(normal_upper(q), isinf(df) ? INFINITY : df);
	else
		t = t_upper_inverse(q, df);
	return p < 0.5 ? -t : t;
}

double stats_t_upper(double t, double df)
{
	if (isnan(t) || !(df > 0))
		return NAN;
	if (t < 0)
		return 1 - stats_t_upper(-t, df);
	if (isinf(t))
		return 0;
	if (isinf(df))
		return 0.5 * erfc(t / M_SQRT2);
	return t_upper(t, df, log_beta_half(df));
}
