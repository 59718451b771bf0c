/*
 * The tests compare decided on before rounds, and rejected (docs/method.md
 * §9): a stretched percentile bootstrap of the difference of means, and
 * the Mann-Whitney U test. Kept for the tests alone: test_coverage's
 * simulation sets them beside the Welch t that compare uses (how often
 * each calls a change that is not there), and test_compare checks them
 * against hand-computed values, so that the simulation's figures stand.
 * Nothing in tracetax calls them.
 */
#ifndef TT_COMPARE_REJECTED_H
#define TT_COMPARE_REJECTED_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "results/stats.h"

/* Resamples: Holm asks for p down to 0.05 / cells, and p >= 2 / (B + 1). */
#define REJECTED_BOOTSTRAP_B 20000

/*
 * One resample's mean, moved away from the sample's mean by sqrt(n/(n-1)):
 * a resampled mean varies (n-1)/n as much as the mean itself (the
 * bootstrap's variance uses the divisor n), 20% too little at n = 5. The
 * stretch gives the interval the sample variance's width; it is the
 * "expanded" percentile interval's first step (Hesterberg 2015). In
 * simulation (normal and lognormal reps, 4000 trials) it took the 95%
 * interval's coverage at 5 reps a side from 87-88% to 91%, at 10 from
 * 91-92% to 93-94% (docs/method.md §9).
 */
static double resample_mean(const double *x, size_t n, double mean, double stretch,
			    struct tt_rng *rng)
{
	double s = 0;

	for (size_t i = 0; i < n; i++)
		s += x[rng_below(rng, n)] - mean;
	return mean + stretch * s / (double)n;
}

/*
 * The percentile bootstrap interval at @level of mean(b) - mean(a), each
 * side resampled on its own (unpaired: two runs are two sessions), and its
 * two-sided p: the share of resampled differences on the far side of 0,
 * doubled. Deterministic for a seed. NaN when a side is empty.
 */
static void rejected_bootstrap_diff(const double *a, size_t na, const double *b, size_t nb, unsigned B,
				    uint64_t seed, double level, double ci[2], double *p)
{
	double ma, mb, sa, sb, *d;
	size_t below = 0, above = 0;
	struct tt_rng rng;

	ci[0] = ci[1] = *p = NAN;
	if (!na || !nb || !B || !(level > 0 && level < 1))
		return;
	ma = stats_mean(a, na);
	mb = stats_mean(b, nb);
	sa = na > 1 ? sqrt((double)na / (double)(na - 1)) : 1;
	sb = nb > 1 ? sqrt((double)nb / (double)(nb - 1)) : 1;
	d = malloc(B * sizeof(*d));
	if (!d)
		die("out of memory");
	rng_seed(&rng, seed);
	for (unsigned i = 0; i < B; i++) {
		d[i] = resample_mean(b, nb, mb, sb, &rng) - resample_mean(a, na, ma, sa, &rng);
		below += d[i] <= 0;
		above += d[i] >= 0;
	}
	qsort(d, B, sizeof(*d), stats_cmp_double);
	ci[0] = stats_quantile(d, B, (1 - level) / 2);
	ci[1] = stats_quantile(d, B, (1 + level) / 2);
	/* +1: a Monte Carlo p is never 0 (Davison & Hinkley 1997, 4.2.3) */
	*p = fmin(1, 2.0 * (double)((below < above ? below : above) + 1) / (double)(B + 1));
	free(d);
}

struct ranked { double v; bool from_b; };

static int cmp_ranked(const void *x, const void *y)
{
	return stats_cmp_double(&((const struct ranked *)x)->v, &((const struct ranked *)y)->v);
}

/*
 * P(U <= u) under H0 for m and n values without ties, by counting the
 * orderings: f(m, n, u) = f(m - 1, n, u - n) + f(m, n - 1, u) (the largest
 * value is an a, above all n b's, or a b). Sums of positive counts only:
 * the small tail counts a p-value is made of stay exact.
 */
static double mw_exact_cdf(size_t m, size_t n, size_t u)
{
	size_t w = u + 1;
	double *prev = calloc((n + 1) * w, sizeof(double)), *cur = calloc((n + 1) * w, sizeof(double));
	double total = 1, below = 0;

	if (!prev || !cur)
		die("out of memory");
	for (size_t j = 0; j <= n; j++)
		prev[j * w] = 1;	/* no a's: U = 0, one ordering */
	for (size_t i = 1; i <= m; i++) {
		for (size_t j = 0; j <= n; j++)
			for (size_t v = 0; v < w; v++)
				cur[j * w + v] = (v >= j ? prev[j * w + v - j] : 0) +
						 (j ? cur[(j - 1) * w + v] : 0);
		memcpy(prev, cur, (n + 1) * w * sizeof(double));
	}
	for (size_t v = 0; v < w; v++)
		below += prev[n * w + v];
	for (size_t i = 1; i <= m; i++)	/* C(m + n, m) */
		total = total * (double)(n + i) / (double)i;
	free(prev);
	free(cur);
	return below / total;
}

/*
 * Mann-Whitney U test, two-sided p: exact without ties up to 50 a side,
 * else the normal approximation with tie and continuity corrections. *u
 * (if not NULL): the count of pairs with b > a (ties count a half).
 */
static double rejected_mann_whitney(const double *a, size_t na, const double *b, size_t nb, double *u)
{
	size_t n = na + nb;
	struct ranked *r;
	double rank_b = 0, ties = 0, ub, mean, sd, z;

	if (!na || !nb) {
		if (u)
			*u = NAN;
		return NAN;
	}
	r = malloc(n * sizeof(*r));
	if (!r)
		die("out of memory");
	for (size_t i = 0; i < n; i++)
		r[i] = (struct ranked){ i < na ? a[i] : b[i - na], i >= na };
	qsort(r, n, sizeof(*r), cmp_ranked);
	for (size_t i = 0, j; i < n; i = j) {	/* mid-ranks over each run of ties */
		for (j = i + 1; j < n && r[j].v == r[i].v; j++)
			;
		for (size_t k = i; k < j; k++)
			rank_b += r[k].from_b ? (double)(i + j + 1) / 2 : 0;
		ties += pow((double)(j - i), 3) - (double)(j - i);
	}
	free(r);
	ub = rank_b - (double)nb * (double)(nb + 1) / 2;
	if (u)
		*u = ub;
	mean = (double)na * (double)nb / 2;
	if (ties == 0 && na <= 50 && nb <= 50) {
		double lo = fmin(ub, 2 * mean - ub);

		return fmin(1, 2 * mw_exact_cdf(na, nb, (size_t)lo));
	}
	sd = sqrt((double)na * (double)nb / 12 *
		  ((double)(n + 1) - ties / ((double)n * (double)(n - 1))));
	if (!(sd > 0))
		return 1;
	z = fmax(fabs(ub - mean) - 0.5, 0) / sd;
	return fmin(1, erfc(z / M_SQRT2));
}

#endif
