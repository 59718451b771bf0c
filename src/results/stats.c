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

#include "results/stats.h"
#include "base/util.h"

/*
 * Resamples for the bootstrap. The 2.5% quantile of B resampled medians sits
 * between the 0.025*B-th order statistics: with 10000 it moves by well under
 * 1% of the CI width from seed to seed (0.001 of 4.6 at n = 30), and costs
 * ~4 ms for 30 reps.
 */
#define STATS_BOOTSTRAP_B 10000

static double *copy_sorted(const double *x, size_t n);

/*
 * Shifted by x[0]: ns/op samples are large and close together, so summing
 * deviations keeps more digits, and a constant sample has mean exactly c
 * (a plain sum of 10 x 0.1 divided by 10 is not 0.1), which the intervals
 * rely on to give [c, c].
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
#define GOLDEN_GAMMA 0x9e3779b97f4a7c15ull

/* splitmix64's finaliser: every input bit flips each output bit with
 * probability close to 1/2 */
static uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

void rng_seed(struct tt_rng *r, uint64_t seed)
{
	r->s = seed;
}

uint64_t rng_next(struct tt_rng *r)
{
	return mix64(r->s += GOLDEN_GAMMA);
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

/* The top 53 bits: every double in [0, 1) this can return is equally likely. */
double rng_uniform(struct tt_rng *r)
{
	return (double)(rng_next(r) >> 11) * 0x1p-53;
}

/* Box-Muller, one value per two draws: simple, and no state beyond r->s,
 * so a stream is still reproduced by its seed alone. 1 - u is in (0, 1]. */
double rng_normal(struct tt_rng *r)
{
	double u = 1 - rng_uniform(r), v = rng_uniform(r);

	return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

/*
 * FNV-1a folds the identity into 64 bits, but a change in its last bytes
 * moves mostly the upper bits; the finaliser then spreads any change over
 * all 64, so neighbouring identities ("getpid|none|1|getpid", "...|2|...")
 * get unrelated streams. The run's seed goes through the finaliser first,
 * so that seeds 1 and 2 are not neighbours either.
 */
uint64_t stats_seed_of(uint64_t seed, const char *identity)
{
	uint64_t h = 0xcbf29ce484222325ull;          /* FNV-1a 64 offset basis */

	for (const unsigned char *c = (const unsigned char *)identity; c && *c; c++) {
		h ^= *c;
		h *= 0x100000001b3ull;               /* FNV 64 prime */
	}
	return mix64(h ^ mix64(seed + GOLDEN_GAMMA));
}

/*
 * Student's t on the per-rep values (the paired differences, for an
 * overhead). It replaced the percentile bootstrap of the mean, which at
 * n = 5 is about 1.75 s/sqrt(n) wide against t's 2.78 s/sqrt(n), and in
 * simulation covered the true mean 82-83% of the time, not 95%. Johnson's
 * (1978) skewness-corrected t did not earn its place: its first-order form
 * moved coverage by 0.1 point at most; the full one gained 0.2-0.8 points
 * at n = 20 on gamma and lognormal data of skewness 0.5-1, but lost 0.9-1.9
 * at n = 5, normal data included: five values say little about a third
 * moment.
 * docs/method.md §5 has the figures.
 */
void stats_t_ci(const double *x, size_t n, double level, double ci[2])
{
	double m, h;

	if (n == 0 || !(level > 0 && level < 1)) {
		ci[0] = ci[1] = NAN;
		return;
	}
	m = stats_mean(x, n);
	if (n == 1) {
		ci[0] = ci[1] = m;
		return;
	}
	h = stats_t_quantile((1 + level) / 2, (double)(n - 1)) *
	    stats_stddev(x, n) / sqrt((double)n);
	ci[0] = m - h;
	ci[1] = m + h;
}

/*
 * Fieller (1954): the set of r for which mean(num) - r mean(den) is within
 * t standard errors of 0. The variance of that difference, from the pairs,
 * is v11 - 2 r v12 + r^2 v22 (variances and covariance of the two means):
 * the covariance term is why pairing helps, drift that slows both runs of a
 * rep adds to v11 and v22 and is taken back by v12. Squared, the condition is
 * A r^2 - 2 B r + C <= 0 with A = b^2 - t^2 v22, B = a b - t^2 v12,
 * C = a^2 - t^2 v11. A > 0 says b / se(b) > t: the denominator is away from
 * 0, and the set is the interval between the roots. Otherwise it is
 * unbounded, and no pair of numbers describes it.
 */
int stats_ratio_ci(const double *num, const double *den, size_t n, double level,
		   double ci[2])
{
	double a, b, v11 = 0, v22 = 0, v12 = 0, t2, A, B, disc;

	ci[0] = ci[1] = NAN;
	if (n == 0 || !(level > 0 && level < 1))
		return -1;
	a = stats_mean(num, n);
	b = stats_mean(den, n);
	if (!(b != 0))
		return -1;
	if (n == 1) {
		ci[0] = ci[1] = a / b;
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		v11 += (num[i] - a) * (num[i] - a);
		v22 += (den[i] - b) * (den[i] - b);
		v12 += (num[i] - a) * (den[i] - b);
	}
	v11 /= (double)(n - 1) * (double)n;
	v22 /= (double)(n - 1) * (double)n;
	v12 /= (double)(n - 1) * (double)n;
	t2 = stats_t_quantile((1 + level) / 2, (double)(n - 1));
	t2 *= t2;
	A = b * b - t2 * v22;
	if (!(A > 0))
		return -1;
	B = a * b - t2 * v12;
	/* B^2 - AC, rearranged so that no two large terms cancel: for constant
	 * samples it is exactly 0, and the interval a/b to the last bit or two */
	disc = t2 * (b * b * v11 - 2 * a * b * v12 + a * a * v22 - t2 * (v11 * v22 - v12 * v12));
	disc = sqrt(fmax(disc, 0));
	ci[0] = (B - disc) / A;
	ci[1] = (B + disc) / A;
	return 0;
}

/*
 * The median of n reps has no standard error as simple as the mean's, so
 * its interval stays a percentile bootstrap. Its ends are sample values or
 * midpoints of two; at n = 5 it is always [x(1), x(5)] (a resample's
 * median is x(1) with probability 5.8% > 2.5%), which holds the true
 * median 1 - 2/2^5 = 93.75% of the time. In simulation it covered 93-94%
 * at n = 5 to 20, on heavy-tailed data too, where the mean's t interval
 * does not keep its 95% (docs/method.md §5).
 */
/*
 * The median of one resample of sorted s, in O(n) without sorting it: count
 * how often each rank is drawn, then walk the counts to the two middle
 * order statistics. Type 7 as quantile_sorted(), so the same value.
 */
static double resample_median(const double *s, size_t n, size_t *count, struct tt_rng *rng)
{
	size_t mid = (n - 1) / 2, seen = 0, j = 0;
	double lo;

	memset(count, 0, n * sizeof(*count));
	for (size_t i = 0; i < n; i++)
		count[rng_below(rng, n)]++;
	while ((seen += count[j]) <= mid)
		j++;
	lo = s[j];
	if (n % 2)
		return lo;
	while (seen <= mid + 1)
		seen += count[++j];
	return lo + 0.5 * (s[j] - lo);
}

void stats_bootstrap_median_ci(const double *x, size_t n, unsigned B, uint64_t seed,
			       double ci[2])
{
	struct tt_rng rng;
	double *medians, *s;
	size_t *count;

	if (n == 1) {
		ci[0] = ci[1] = x[0];
		return;
	}
	if (n == 0 || B == 0) {
		ci[0] = ci[1] = NAN;
		return;
	}
	medians = malloc(B * sizeof(*medians));
	count = malloc(n * sizeof(*count));
	if (!medians || !count)
		die("out of memory");
	s = copy_sorted(x, n);
	rng_seed(&rng, seed);
	for (unsigned b = 0; b < B; b++)
		medians[b] = resample_median(s, n, count, &rng);
	qsort(medians, B, sizeof(*medians), stats_cmp_double);
	ci[0] = quantile_sorted(medians, B, 0.025);
	ci[1] = quantile_sorted(medians, B, 0.975);
	free(s);
	free(count);
	free(medians);
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
	stats_t_ci(x, n, 0.95, s->ci95);
	stats_bootstrap_median_ci(x, n, STATS_BOOTSTRAP_B, seed, s->median_ci95);
}

/*
 * A total order for qsort: (x > y) - (x < y) calls NaN equal to everything,
 * which is no order at all, and qsort may then scramble the finite values
 * around it. NaN sorts last, after +inf.
 */
int stats_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	if (isnan(x) || isnan(y))
		return isnan(x) - isnan(y);
	return (x > y) - (x < y);
}

static double *copy_sorted(const double *x, size_t n)
{
	double *s = malloc(n * sizeof(*s));

	if (!s)
		die("out of memory");
	memcpy(s, x, n * sizeof(*s));
	qsort(s, n, sizeof(*s), stats_cmp_double);
	return s;
}

