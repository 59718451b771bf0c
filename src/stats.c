/*
 * Statistics over the per-rep samples of a cell. Pure functions: no I/O,
 * no global state, deterministic for a seed, so a run can be reproduced and
 * the unit tests can check them against hand-computed values.
 *
 * Undefined results (the mean of nothing, the stddev of one value) are NaN;
 * the output code turns NaN into JSON null rather than inventing a zero.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "util.h"

/*
 * Resamples for the bootstrap. The 2.5% quantile of B resampled means sits
 * between the 0.025*B-th order statistics: with 10000 it moves by well under
 * 1% of the CI width from seed to seed, and costs ~1 ms for 30 reps.
 */
#define STATS_BOOTSTRAP_B 10000

static double *copy_sorted(const double *x, size_t n);
static int cmp_double(const void *a, const void *b);

/*
 * Shifted by x[0]: ns/op samples are large and close together, so summing
 * deviations keeps more digits, and a constant sample has mean exactly c
 * (a plain sum of 10 x 0.1 divided by 10 is not 0.1), which the bootstrap
 * relies on to give [c, c].
 */
double stats_mean(const double *x, size_t n)
{
	double d = 0;

	if (n == 0)
		return NAN;
	for (size_t i = 0; i < n; i++)
		d += x[i] - x[0];
	return x[0] + d / (double)n;
}

double stats_stddev(const double *x, size_t n)
{
	double m, ss = 0;

	if (n < 2)
		return NAN;
	m = stats_mean(x, n);
	for (size_t i = 0; i < n; i++)
		ss += (x[i] - m) * (x[i] - m);
	return sqrt(ss / (double)(n - 1));
}

/* Hyndman & Fan type 7 (R's default, numpy's "linear") on sorted data. */
static double quantile_sorted(const double *s, size_t n, double p)
{
	double h, frac;
	size_t lo;

	if (n == 0)
		return NAN;
	if (p <= 0)
		return s[0];
	if (p >= 1)
		return s[n - 1];
	h = (double)(n - 1) * p;
	lo = (size_t)floor(h);
	frac = h - (double)lo;
	if (lo + 1 >= n)
		return s[n - 1];
	return s[lo] + frac * (s[lo + 1] - s[lo]);
}

double stats_quantile(const double *x, size_t n, double p)
{
	double *s, q;

	if (n == 0)
		return NAN;
	s = copy_sorted(x, n);
	q = quantile_sorted(s, n, p);
	free(s);
	return q;
}

double stats_median(const double *x, size_t n)
{
	return stats_quantile(x, n, 0.5);
}

double stats_mad(const double *x, size_t n)
{
	double med, *dev, mad;

	if (n == 0)
		return NAN;
	med = stats_median(x, n);
	dev = malloc(n * sizeof(*dev));
	if (!dev)
		die("out of memory");
	for (size_t i = 0; i < n; i++)
		dev[i] = fabs(x[i] - med);
	mad = stats_median(dev, n);
	free(dev);
	return mad;
}

/*
 * Iglewicz & Hoaglin: 0.6745 is the 75% quantile of the standard normal,
 * so 0.6745 * |x - med| / MAD is a z-score with a robust scale. When more
 * than half the samples are equal the MAD is 0 and every other value would
 * score infinity: we flag nothing rather than everything.
 */
size_t stats_mad_outliers(const double *x, size_t n, bool *flags)
{
	double med, mad;
	size_t count = 0;

	for (size_t i = 0; i < n; i++)
		flags[i] = false;
	if (n < 3)
		return 0;
	med = stats_median(x, n);
	mad = stats_mad(x, n);
	if (!(mad > 0))
		return 0;
	for (size_t i = 0; i < n; i++) {
		if (0.6745 * fabs(x[i] - med) / mad > 3.5) {
			flags[i] = true;
			count++;
		}
	}
	return count;
}

double stats_cv(const double *x, size_t n)
{
	double m = stats_mean(x, n);

	if (n < 2 || m == 0)
		return NAN;
	return stats_stddev(x, n) / fabs(m);
}

/* splitmix64 (Steele, Lea & Flood): one add and two multiplies per draw,
 * passes BigCrush, and any 64-bit seed (even 0) is a good one. */
void rng_seed(struct tt_rng *r, uint64_t seed)
{
	r->s = seed;
}

uint64_t rng_next(struct tt_rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Uniform in [0, n): reject the low 2^64 mod n values so no index is
 * favoured (plain modulo biases small indices, a bias the CI would inherit). */
uint64_t rng_below(struct tt_rng *r, uint64_t n)
{
	uint64_t threshold, v;

	if (n <= 1)
		return 0;
	threshold = -n % n;
	do
		v = rng_next(r);
	while (v < threshold);
	return v % n;
}

void stats_bootstrap_ci(const double *x, size_t n, unsigned B, uint64_t seed, double ci[2])
{
	struct tt_rng rng;
	double *means, *draw;

	if (n == 1) {
		ci[0] = ci[1] = x[0];
		return;
	}
	if (n == 0 || B == 0) {
		ci[0] = ci[1] = NAN;
		return;
	}
	means = malloc(B * sizeof(*means));
	draw = malloc(n * sizeof(*draw));
	if (!means || !draw)
		die("out of memory");
	rng_seed(&rng, seed);
	for (unsigned b = 0; b < B; b++) {
		for (size_t i = 0; i < n; i++)
			draw[i] = x[rng_below(&rng, n)];
		means[b] = stats_mean(draw, n);
	}
	qsort(means, B, sizeof(*means), cmp_double);
	ci[0] = quantile_sorted(means, B, 0.025);
	ci[1] = quantile_sorted(means, B, 0.975);
	free(draw);
	free(means);
}

void stats_summarize(const double *x, size_t n, uint64_t seed, struct summary *s)
{
	memset(s, 0, sizeof(*s));
	s->n = n;
	s->mean = stats_mean(x, n);
	s->median = stats_median(x, n);
	s->stddev = stats_stddev(x, n);
	s->min = s->max = n ? x[0] : NAN;
	for (size_t i = 1; i < n; i++) {
		if (x[i] < s->min)
			s->min = x[i];
		if (x[i] > s->max)
			s->max = x[i];
	}
	stats_bootstrap_ci(x, n, STATS_BOOTSTRAP_B, seed, s->ci95);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double *copy_sorted(const double *x, size_t n)
{
	double *s = malloc(n * sizeof(*s));

	if (!s)
		die("out of memory");
	memcpy(s, x, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	return s;
}

/* A cell's own seed: FNV-1a of its identity, mixed with the run's seed. */
uint64_t stats_seed_of(uint64_t seed, const char *identity)
{
	uint64_t h = 0xcbf29ce484222325ull;
	struct tt_rng r;

	for (const unsigned char *p = (const unsigned char *)identity; *p; p++)
		h = (h ^ *p) * 0x100000001b3ull;
	rng_seed(&r, seed ^ h);
	return rng_next(&r);
}
