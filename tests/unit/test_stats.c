/*
 * stats.c against values computed by hand (the working is in the comments;
 * cross-checked with python3's statistics module where it has the function).
 */
#include <math.h>
#include <stdlib.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "assert_near.h"

#include "results/results.h"
#include "results/stats.h"
#include "results/stats_rounds.h"

#define EPS 1e-9
#define N(a) (sizeof(a) / sizeof((a)[0]))


/* relative: quantiles span 1e-4 to 1e12 */
#define assert_rel(a, b, rel) assert_near(a, b, (rel) * fabs(b))

/* The textbook sample: sum 40, n 8, mean 5. */
static const double classic[] = { 2, 4, 4, 4, 5, 5, 7, 9 };

static void test_mean_stddev(void **state)
{
	(void)state;
	assert_near(stats_mean(classic, N(classic)), 5.0, EPS);
	/* squared deviations 9+1+1+1+0+0+4+16 = 32; 32/7 = 4.571428..;
	 * sqrt = 2.138089935299395 (statistics.stdev agrees) */
	assert_near(stats_stddev(classic, N(classic)), 2.138089935299395, EPS);
	/* cv = 2.138089935299395 / 5 */
	assert_near(stats_cv(classic, N(classic)), 0.427617987059879, EPS);
	/* undefined, not zero */
	assert_true(isnan(stats_mean(classic, 0)));
	assert_true(isnan(stats_stddev(classic, 1)));
}

static void test_mean_exact_for_constant(void **state)
{
	/* 0.1 summed ten times is 0.9999999999999999: the shifted mean is exact */
	double x[10];

	(void)state;
	for (int i = 0; i < 10; i++)
		x[i] = 0.1;
	assert_true(stats_mean(x, 10) == 0.1);
}

static void test_quantile_type7(void **state)
{
	const double x[] = { 1, 2, 3, 4 };
	const double shuffled[] = { 4, 1, 3, 2 };

	(void)state;
	/* h = (n-1)p = 3*0.25 = 0.75 -> x[0] + 0.75*(x[1]-x[0]) = 1.75 (R: quantile(1:4, .25)) */
	assert_near(stats_quantile(x, 4, 0.25), 1.75, EPS);
	/* h = 1.5 -> 2 + 0.5*1 = 2.5 */
	assert_near(stats_quantile(x, 4, 0.5), 2.5, EPS);
	/* h = 2.25 -> 3 + 0.25*1 = 3.25 */
	assert_near(stats_quantile(x, 4, 0.75), 3.25, EPS);
	/* h = 2.7 -> 3 + 0.7 = 3.7 */
	assert_near(stats_quantile(x, 4, 0.9), 3.7, EPS);
	assert_near(stats_quantile(x, 4, 0), 1, EPS);
	assert_near(stats_quantile(x, 4, 1), 4, EPS);
	/* input order does not matter, and the input is left as it was */
	assert_near(stats_quantile(shuffled, 4, 0.25), 1.75, EPS);
	assert_near(shuffled[0], 4, 0);
	assert_near(stats_quantile(x, 1, 0.3), 1, EPS);
	assert_true(isnan(stats_quantile(x, 0, 0.5)));
}

static void test_median_mad(void **state)
{
	const double odd[] = { 3, 1, 2 };
	const double even[] = { 5, 1, 3, 2 };
	const double m[] = { 1, 1, 2, 2, 4, 6, 9 };

	(void)state;
	assert_near(stats_median(odd, 3), 2, EPS);
	/* sorted 1 2 3 5: (2+3)/2 */
	assert_near(stats_median(even, 4), 2.5, EPS);
	/* median 2; |x-2| = 1 1 0 0 2 4 7 -> sorted 0 0 1 1 2 4 7 -> median 1 */
	assert_near(stats_mad(m, N(m)), 1, EPS);
	/* classic: median 4.5; |x-4.5| = 2.5 .5 .5 .5 .5 .5 2.5 4.5 -> sorted
	 * .5 .5 .5 .5 .5 2.5 2.5 4.5 -> median .5 */
	assert_near(stats_mad(classic, N(classic)), 0.5, EPS);
}

static void test_mad_outliers(void **state)
{
	/* sorted 10 10 11 11 11 12 12 50: median 11; |x-11| sorted 0 0 0 1 1 1 1 39:
	 * MAD 1; z(50) = 0.6745*39 = 26.3 > 3.5; z(10 or 12) = 0.6745 */
	const double x[] = { 10, 11, 12, 10, 11, 12, 11, 50 };
	/* same median and MAD; z(16) = 0.6745*5 = 3.37 (kept), z(17) = 0.6745*6 = 4.05 */
	const double edge_in[] = { 10, 11, 12, 10, 11, 12, 11, 16 };
	const double edge_out[] = { 10, 11, 12, 10, 11, 12, 11, 17 };
	/* median 5, |x-5| = 0 0 0 0 4: MAD 0 -> no flags rather than "all but 4" */
	const double flat[] = { 5, 5, 5, 5, 9 };
	bool f[8];

	(void)state;
	assert_int_equal(stats_mad_outliers(x, 8, f), 1);
	assert_true(f[7]);
	for (int i = 0; i < 7; i++)
		assert_false(f[i]);
	assert_int_equal(stats_mad_outliers(edge_in, 8, f), 0);
	assert_int_equal(stats_mad_outliers(edge_out, 8, f), 1);
	assert_true(f[7]);
	assert_int_equal(stats_mad_outliers(flat, 5, f), 0);
	for (int i = 0; i < 5; i++)
		assert_false(f[i]);
}

static void test_rng(void **state)
{
	struct tt_rng r;

	(void)state;
	/* splitmix64's published output for seed 0 (the reference C code) */
	rng_seed(&r, 0);
	assert_true(rng_next(&r) == 0xe220a8397b1dcdafull);
	assert_true(rng_next(&r) == 0x6e789e6aa1b965f4ull);
	assert_true(rng_next(&r) == 0x06c45d188009454full);
	/* every value of [0, 7) shows up, nothing outside */
	unsigned seen[7] = { 0 };
	rng_seed(&r, 42);
	for (int i = 0; i < 7000; i++) {
		uint64_t v = rng_below(&r, 7);

		assert_true(v < 7);
		seen[v]++;
	}
	for (int i = 0; i < 7; i++)   /* expected 1000, sd ~29 */
		assert_in_range(seen[i], 850, 1150);
	assert_true(rng_below(&r, 1) == 0);
}

/* x = {1, 2, 6}: mean 3, deviations -2 -1 3, s^2 = 14/2 = 7, se = sqrt(7/3) */
static const double three[] = { 1, 2, 6 };

static void test_t_quantile(void **state)
{
	(void)state;
	/* published values (R's qt) */
	assert_rel(stats_t_quantile(0.975, 4), 2.7764451051977987, 1e-10);
	assert_rel(stats_t_quantile(0.975, 1), 12.706204736174707, 1e-10);
	assert_rel(stats_t_quantile(0.975, 19), 2.0930240544083096, 1e-10);
	assert_rel(stats_t_quantile(0.975, INFINITY), 1.959963984540054, 1e-12);
	/* df = 1e12 is not quite the normal: A&S 26.7.5's first term
	 * (z^3 + z) / (4 df) = (7.529 + 1.960) / 4e12 = 2.37e-12 */
	assert_near(stats_t_quantile(0.975, 1e12), 1.959963984540054 + 2.37e-12, 1e-14);
	/* df = 1.5 has no closed form: mpmath, 40 digits, inverting
	 * 0.5 * betainc(0.75, 0.5, 0, 1.5/(1.5+t^2)) = 0.1 */
	assert_rel(stats_t_quantile(0.9, 1.5), 2.196398417565538, 1e-10);
	/* df 1000, 5000, 9999 and 10000: either side of the switch to
	 * Cornish-Fisher at 1e4 (mpmath as above) */
	assert_rel(stats_t_quantile(0.975, 5000), 1.9604385517065075, 1e-10);
	assert_rel(stats_t_quantile(1e-12, 1000), -7.1242289253144091, 1e-10);
	assert_rel(stats_t_quantile(0.9, 9999), 1.2816362381983140, 1e-10);
	assert_rel(stats_t_quantile(0.9, 10000), 1.2816362297304777, 1e-10);
	/* the distribution's edges and nonsense in */
	assert_true(stats_t_quantile(0.5, 3) == 0);
	assert_true(stats_t_quantile(0, 3) == -INFINITY);
	assert_true(stats_t_quantile(1, 3) == INFINITY);
	assert_true(isnan(stats_t_quantile(-0.1, 3)));
	assert_true(isnan(stats_t_quantile(1.1, 3)));
	assert_true(isnan(stats_t_quantile(0.9, 0)));
	assert_true(isnan(stats_t_quantile(NAN, 3)));
	assert_true(isnan(stats_t_quantile(0.9, NAN)));
}

/* df 1, 2 and 4 have closed forms (Hill 1970): check a grid of p against
 * them, deep tails included, and the symmetry t(1-p) = -t(p). */
static void test_t_quantile_closed_forms(void **state)
{
	const double ps[] = { 1e-12, 1e-6, 0.001, 0.025, 0.1, 0.3, 0.49, 0.4999 };

	(void)state;
	for (size_t i = 0; i < N(ps); i++) {
		double p = ps[i], a = 4 * p * (1 - p);
		/* Cauchy: t = tan(pi (p - 1/2)) = -1/tan(pi p), the second
		 * form free of the cancellation near p = 0 */
		double t1 = -1 / tan(M_PI * p);
		/* df 2: t = (2p - 1) / sqrt(2 p (1 - p)) */
		double t2 = (2 * p - 1) / sqrt(2 * p * (1 - p));
		/* df 4: t = -2 sqrt(cos(acos(sqrt(a)) / 3) / sqrt(a) - 1), a = 4p(1-p) */
		double t4 = -2 * sqrt(cos(acos(sqrt(a)) / 3) / sqrt(a) - 1);

		assert_rel(stats_t_quantile(p, 1), t1, 1e-10);
		assert_rel(stats_t_quantile(p, 2), t2, 1e-10);
		if (p <= 0.3)    /* the df 4 form cancels as a -> 1 */
			assert_rel(stats_t_quantile(p, 4), t4, 1e-10);
		/* 1 - p is rounded, but 1 - (1 - p) is exact (Sterbenz) */
		assert_true(stats_t_quantile(1 - p, 4) == -stats_t_quantile(1 - (1 - p), 4));
	}
}

static void test_t_ci(void **state)
{
	double ci[2], k[6];

	(void)state;
	/* level 0.5: t_{0.75,2} = (2p-1)/sqrt(2p(1-p)) = 0.5/sqrt(0.375) = sqrt(2/3);
	 * half-width sqrt(2/3) * sqrt(7/3) = sqrt(14)/3 = 1.2472191289246471 */
	stats_t_ci(three, 3, 0.5, ci);
	assert_near(ci[0], 3 - 1.2472191289246471, EPS);
	assert_near(ci[1], 3 + 1.2472191289246471, EPS);
	/* level 0.95: t_{0.975,2} = 0.95/sqrt(0.04875) = 4.3026527297494639;
	 * half-width 4.3026527297494639 * sqrt(7/3) = 6.5724106077284305 */
	stats_t_ci(three, 3, 0.95, ci);
	assert_near(ci[0], 3 - 6.5724106077284305, EPS);
	assert_near(ci[1], 3 + 6.5724106077284305, EPS);
	/* classic: 5 -+ t_{0.975,7} * s / sqrt(8), t_{0.975,7} = 2.3646242515927847
	 * (mpmath, as in test_t_quantile): 5 -+ 1.7874879182362104 */
	stats_t_ci(classic, N(classic), 0.95, ci);
	assert_near(ci[0], 5 - 1.7874879182362104, EPS);
	assert_near(ci[1], 5 + 1.7874879182362104, EPS);
	/* one value: the value; none, or a level that is not one: NaN */
	stats_t_ci(three, 1, 0.95, ci);
	assert_true(ci[0] == 1 && ci[1] == 1);
	stats_t_ci(three, 0, 0.95, ci);
	assert_true(isnan(ci[0]) && isnan(ci[1]));
	stats_t_ci(three, 3, 1, ci);
	assert_true(isnan(ci[0]) && isnan(ci[1]));
	/* no spread, no width: exactly [c, c] */
	for (int i = 0; i < 6; i++)
		k[i] = 0.1;
	stats_t_ci(k, 6, 0.95, ci);
	assert_true(ci[0] == 0.1 && ci[1] == 0.1);
}

static void test_bootstrap_median(void **state)
{
	const double two[] = { 2, 1 }, tri[] = { 3, 1, 2 }, five[] = { 7, 3, 9, 4, 5 };
	double x[100], a[2], b[2], c[2], k[10], one = 3.5;
	int moved = 0;

	(void)state;
	/* {1, 2, 3}: a resample's median is 1 when two or three draws are 1,
	 * 3 (1/3)^2 (2/3) + (1/3)^3 = 7/27 = 26% of resamples; 3 likewise;
	 * both far above 2.5%, so the interval is [1, 3]. {1, 2}: [1, 2]. */
	stats_bootstrap_median_ci(tri, 3, 1000, 1, c);
	assert_true(c[0] == 1 && c[1] == 3);
	stats_bootstrap_median_ci(two, 2, 1000, 1, c);
	assert_true(c[0] == 1 && c[1] == 2);
	/* n = 5: the median is the minimum when 3 or more of 5 draws are:
	 * 10 (1/5)^3 (4/5)^2 + 5 (1/5)^4 (4/5) + (1/5)^5 = 5.8% > 2.5%, so the
	 * interval is the range, whatever the seed */
	for (uint64_t seed = 1; seed < 4; seed++) {
		stats_bootstrap_median_ci(five, 5, 10000, seed, c);
		assert_true(c[0] == 3 && c[1] == 9);
	}
	/* 1..100: the distribution-free 95% interval of the median is
	 * [x(40), x(61)] (Binomial(100, 1/2): P(X <= 39) = 0.018); the
	 * bootstrap's ends land within a rank or two of it */
	for (int i = 0; i < 100; i++)
		x[i] = i + 1;
	stats_bootstrap_median_ci(x, 100, 4000, 7, a);
	assert_true(a[0] >= 38 && a[0] <= 42);
	assert_true(a[1] >= 59 && a[1] <= 63);
	/* deterministic per seed; other seeds move the ends, though not
	 * always, since resampled medians are multiples of 0.5 */
	stats_bootstrap_median_ci(x, 100, 4000, 7, b);
	assert_true(a[0] == b[0] && a[1] == b[1]);
	stats_bootstrap_median_ci(x, 20, 500, 7, b);
	for (uint64_t seed = 8; seed < 18; seed++) {
		stats_bootstrap_median_ci(x, 20, 500, seed, c);
		moved += b[0] != c[0] || b[1] != c[1];
	}
	assert_true(moved > 0);
	/* a constant sample has no spread to resample */
	for (int i = 0; i < 10; i++)
		k[i] = 0.1;
	stats_bootstrap_median_ci(k, 10, 1000, 1, c);
	assert_true(c[0] == 0.1 && c[1] == 0.1);
	stats_bootstrap_median_ci(&one, 1, 1000, 1, c);
	assert_true(c[0] == 3.5 && c[1] == 3.5);
	stats_bootstrap_median_ci(&one, 0, 1000, 1, c);
	assert_true(isnan(c[0]) && isnan(c[1]));
}

/*
 * den = {1, 2, 3}, num = {2, 5, 5}: means b = 2, a = 4; deviations -1 0 1
 * and -2 1 1: s_bb = 2/2 = 1, s_aa = 6/2 = 3, s_ab = 3/2; over n = 3:
 * v22 = 1/3, v11 = 1, v12 = 1/2.
 */
static void test_ratio_ci(void **state)
{
	const double den[] = { 1, 2, 3 }, num[] = { 2, 5, 5 };
	const double neg[] = { -1, -2, -3 };
	const double flat[] = { 2, 2, 2, 2, 2, 2, 2, 2 };
	double ci[2], t[2];

	(void)state;
	/* level 0.5: t^2 = 2/3 (above). A = 4 - (2/3)(1/3) = 34/9,
	 * B = 8 - (2/3)(1/2) = 23/3, C = 16 - (2/3) 1 = 46/3;
	 * B^2 - AC = 529/9 - 1564/27 = 23/27;
	 * roots (23/3 -+ sqrt(23/27)) / (34/9) = 1.7850992981494684, 2.2737242312622963 */
	assert_int_equal(stats_ratio_ci(num, den, 3, 0.5, ci), 0);
	assert_near(ci[0], 1.7850992981494684, EPS);
	assert_near(ci[1], 2.2737242312622963, EPS);
	/* a denominator significantly below 0 is as good: the ratio flips */
	assert_int_equal(stats_ratio_ci(num, neg, 3, 0.5, t), 0);
	assert_near(t[0], -ci[1], EPS);
	assert_near(t[1], -ci[0], EPS);
	/* level 0.95: t^2 = 18.51, A = 4 - 18.51/3 < 0: mean(den) = 2 is
	 * within t standard errors (sqrt(1/3)) of 0, the set is unbounded */
	assert_int_equal(stats_ratio_ci(num, den, 3, 0.95, ci), -1);
	assert_true(isnan(ci[0]) && isnan(ci[1]));
	/* a constant denominator: Fieller is the t interval of num, over 2 */
	assert_int_equal(stats_ratio_ci(classic, flat, 8, 0.95, ci), 0);
	stats_t_ci(classic, 8, 0.95, t);
	assert_near(ci[0], t[0] / 2, EPS);
	assert_near(ci[1], t[1] / 2, EPS);
	/* no spread on either side: the ratio itself */
	assert_int_equal(stats_ratio_ci(flat, flat, 8, 0.95, ci), 0);
	assert_near(ci[0], 1, 1e-15);
	assert_near(ci[1], 1, 1e-15);
	/* one pair: its ratio; none, or a zero mean: -1 and NaN */
	assert_int_equal(stats_ratio_ci(num, den, 1, 0.95, ci), 0);
	assert_true(ci[0] == 2 && ci[1] == 2);
	assert_int_equal(stats_ratio_ci(num, den, 0, 0.95, ci), -1);
	assert_true(isnan(ci[0]));
	t[0] = -1, t[1] = 1;
	assert_int_equal(stats_ratio_ci(num, t, 2, 0.95, ci), -1);
	assert_true(isnan(ci[0]) && isnan(ci[1]));
}

static void test_summarize(void **state)
{
	struct summary s;
	double ci[2];

	(void)state;
	stats_summarize(classic, N(classic), 1, &s);
	assert_int_equal(s.n, 8);
	assert_near(s.mean, 5, EPS);
	assert_near(s.median, 4.5, EPS);
	assert_near(s.stddev, 2.138089935299395, EPS);
	assert_near(s.min, 2, 0);
	assert_near(s.max, 9, 0);
	stats_t_ci(classic, N(classic), 0.95, ci);
	assert_true(s.ci95[0] == ci[0] && s.ci95[1] == ci[1]);
	stats_bootstrap_median_ci(classic, N(classic), 10000, 1, ci);
	assert_true(s.median_ci95[0] == ci[0] && s.median_ci95[1] == ci[1]);
	/* resampled medians of 2 4 4 4 5 5 7 9 stay within the middle values */
	assert_true(s.median_ci95[0] >= 4 && s.median_ci95[0] < 4.5);
	assert_true(s.median_ci95[1] > 4.5 && s.median_ci95[1] <= 7);
	stats_summarize(classic, 0, 1, &s);
	assert_int_equal(s.n, 0);
	assert_true(isnan(s.mean) && isnan(s.ci95[0]) && isnan(s.median_ci95[1]));
}

static void test_rng_uniform_normal(void **state)
{
	struct tt_rng r;
	double sum = 0, sum2 = 0;

	(void)state;
	/* the top 53 bits of splitmix64's first output for seed 0:
	 * (0xe220a8397b1dcdaf >> 11) * 2^-53 */
	rng_seed(&r, 0);
	assert_true(rng_uniform(&r) == 0.8833108082136426);
	/* 100000 normals: sd of the mean 0.0032, of the variance 0.0045 */
	rng_seed(&r, 3);
	for (int i = 0; i < 100000; i++) {
		double z = rng_normal(&r);

		sum += z;
		sum2 += z * z;
	}
	assert_near(sum / 100000, 0, 0.02);
	assert_near(sum2 / 100000, 1, 0.03);
}

static int popcount64(uint64_t v)
{
	return __builtin_popcountll(v);
}

static void test_seed_of(void **state)
{
	struct tt_rng r;
	char id[64], other[64];
	uint64_t seeds[500];
	long flips = 0, pairs = 0;

	(void)state;
	/* FNV-1a 64 of "a" is 0xaf63dc4c8601ec8c (the published test vector);
	 * finalise(seed + golden gamma) for seed 0 is splitmix64's first output
	 * 0xe220a8397b1dcdaf; the result is finalise(their xor), which a
	 * generator seeded one gamma below returns as its next value */
	rng_seed(&r, (0xaf63dc4c8601ec8cull ^ 0xe220a8397b1dcdafull) - 0x9e3779b97f4a7c15ull);
	assert_true(stats_seed_of(0, "a") == rng_next(&r));
	assert_true(stats_seed_of(1, "getpid|bpf:tp/count|1|getpid") ==
		    stats_seed_of(1, "getpid|bpf:tp/count|1|getpid"));
	assert_true(stats_seed_of(1, "getpid|bpf:tp/count|1|getpid") !=
		    stats_seed_of(2, "getpid|bpf:tp/count|1|getpid"));
	assert_true(stats_seed_of(1, NULL) == stats_seed_of(1, ""));
	/* 500 neighbouring identities: no two alike */
	for (int i = 0; i < 500; i++) {
		snprintf(id, sizeof(id), "getpid|bpf:tp/count|%d|getpid", i);
		seeds[i] = stats_seed_of(1, id);
		for (int j = 0; j < i; j++)
			assert_true(seeds[i] != seeds[j]);
	}
	/* one character changed anywhere, the last included: each of the 64
	 * bits flips with probability 1/2, so 32 on average (sd 4 per pair,
	 * 0.07 over 3300 pairs) */
	for (int i = 0; i < 100; i++) {
		int len = snprintf(id, sizeof(id), "getpid|ftrace:syscall|%d|close", i);

		for (int pos = 0; pos < len; pos++) {
			memcpy(other, id, (size_t)len + 1);
			other[pos] ^= 1 << (pos % 7);
			flips += popcount64(stats_seed_of(42, id) ^ stats_seed_of(42, other));
			pairs++;
		}
	}
	print_message("seed_of: %.2f of 64 bits flip per one-character change\n",
		      (double)flips / (double)pairs);
	assert_near((double)flips / (double)pairs, 32, 0.5);
	/* and neighbouring run seeds */
	flips = 0;
	for (uint64_t seed = 0; seed < 1000; seed++)
		flips += popcount64(stats_seed_of(seed, "x") ^ stats_seed_of(seed + 1, "x"));
	assert_near((double)flips / 1000, 32, 0.5);
}

/*
 * Coverage: how often the 95% interval of the mean holds the true mean, over
 * COVERAGE_SAMPLES simulated cells (binomial sd 0.22 points at 95%).
 *
 * The skewed case is a gamma of shape 16, skewness 2/sqrt(16) = 0.5. Why: a
 * rep's overhead is the difference of two means over ~1e6 ops, so the ops'
 * own skew is averaged away (divided by 1000); what skew is left comes from
 * whole reps a neighbour or a timer storm slowed, a long right tail that a
 * gamma has. At skewness 1 (shape 4, or a lognormal of sigma 0.3) and n = 5
 * the t interval covers 93.2-93.7%, just outside the band: five values say
 * too little about skew for any correction to help (docs/method.md §5).
 */
#define COVERAGE_SAMPLES 10000
#define GAMMA_SHAPE 16.0

/* Marsaglia & Tsang (2000), shape >= 1, scale 1: mean = shape */
static double gamma_draw(struct tt_rng *r, double shape)
{
	double d = shape - 1.0 / 3, c = 1 / sqrt(9 * d);

	for (;;) {
		double z = rng_normal(r), v = 1 + c * z, u;

		if (v <= 0)
			continue;
		v = v * v * v;
		u = rng_uniform(r);
		if (log(u) < 0.5 * z * z + d - d * v + d * log(v))
			return d * v;
	}
}

static double mean_coverage(bool skewed, size_t n, uint64_t seed)
{
	double x[20], ci[2], mu = skewed ? GAMMA_SHAPE : 0;
	struct tt_rng r;
	int hit = 0;

	rng_seed(&r, seed);
	for (int s = 0; s < COVERAGE_SAMPLES; s++) {
		for (size_t i = 0; i < n; i++)
			x[i] = skewed ? gamma_draw(&r, GAMMA_SHAPE) : rng_normal(&r);
		stats_t_ci(x, n, 0.95, ci);
		hit += ci[0] <= mu && mu <= ci[1];
	}
	return 100.0 * hit / COVERAGE_SAMPLES;
}

static void test_coverage_mean(void **state)
{
	const size_t ns[] = { 5, 20 };

	(void)state;
	for (int skewed = 0; skewed < 2; skewed++) {
		for (size_t i = 0; i < N(ns); i++) {
			double c = mean_coverage(skewed, ns[i], 100 + 10 * (uint64_t)skewed + i);

			print_message("coverage of the mean's t interval, %s, n = %zu: %.2f%%\n",
				      skewed ? "gamma shape 16" : "normal", ns[i], c);
			assert_near(c, 95, 1.5);
		}
	}
}

/* base ~ N(100, 5), traced = 1.3 base + N(0, 5): the true ratio of the
 * means is 130/100, and the pairs are correlated (rho = 0.79), as a rep's
 * two runs are when the machine's speed drifts. */
static void test_coverage_ratio(void **state)
{
	const size_t ns[] = { 5, 20 };

	(void)state;
	for (size_t k = 0; k < N(ns); k++) {
		double base[20], traced[20], ci[2];
		struct tt_rng r;
		int hit = 0, unbounded = 0;

		rng_seed(&r, 200 + k);
		for (int s = 0; s < COVERAGE_SAMPLES; s++) {
			for (size_t i = 0; i < ns[k]; i++) {
				base[i] = 100 + 5 * rng_normal(&r);
				traced[i] = 1.3 * base[i] + 5 * rng_normal(&r);
			}
			if (stats_ratio_ci(traced, base, ns[k], 0.95, ci) < 0)
				unbounded++;
			else
				hit += ci[0] <= 1.3 && 1.3 <= ci[1];
		}
		print_message("coverage of the ratio's Fieller interval, n = %zu: %.2f%%\n",
			      ns[k], 100.0 * hit / COVERAGE_SAMPLES);
		assert_int_equal(unbounded, 0);
		assert_near(100.0 * hit / COVERAGE_SAMPLES, 95, 1.5);
	}
}

/* A cell of 5 reps; base 100 each, traced 120 except one 200 (an outlier). */
static void test_finish_cell(void **state)
{
	struct rep reps[5];
	struct cell c;

	(void)state;
	memset(&c, 0, sizeof(c));
	memset(reps, 0, sizeof(reps));
	strcpy(c.workload, "getpid");
	strcpy(c.target, "getpid");
	for (int i = 0; i < 5; i++) {
		reps[i] = (struct rep){ .base_ns_per_op = 100, .traced_ns_per_op = 120,
					.events = 200, .hits = 200, .lost = 0, .stops = -1,
					.consumer_ns = 50 };
	}
	reps[3].traced_ns_per_op = 200;
	reps[4].hits = 198;
	reps[4].lost = 2;
	c.reps = reps;
	c.nreps = 5;
	results_finish_cell(&c, 1);
	/* overheads 20 20 20 100 20: mean 36, median 20 */
	assert_near(c.overhead.mean, 36, EPS);
	assert_near(c.overhead.median, 20, EPS);
	/* traced mean (4*120+200)/5 = 136; /100 */
	assert_near(c.slowdown, 1.36, EPS);
	assert_near(c.base_cv, 0, 0);    /* stddev 0 over mean 100 */
	/* MAD of the overheads is 0: no flags although rep 3 stands out */
	assert_int_equal(c.outliers, 0);
	assert_int_equal(c.events, 1000);
	assert_int_equal(c.hits, 998);
	assert_int_equal(c.lost, 2);
	assert_int_equal(c.stops, -1);
	/* 5*50 ns / 1000 events */
	assert_near(c.consumer_ns_per_event, 0.25, EPS);
	assert_string_equal(c.note, "hits 998 != events 1000; lost 2 events");
	/* one rep that cannot count makes the total unknown */
	reps[2].hits = -1;
	results_finish_cell(&c, 1);
	assert_int_equal(c.hits, -1);
	assert_string_equal(c.note, "lost 2 events");
}

static void test_finish_cell_noise(void **state)
{
	/* base 90 110 90 110 100 100 100 100: mean 100, sd sqrt(400/7) = 7.56 -> cv 7.6%;
	 * overheads 20 21 19 20 20 21 19 80: median 20, |d| sorted 0 0 0 1 1 1 1 60,
	 * MAD 1, z(80) = 0.6745*60 = 40.5 -> one outlier */
	const double base[] = { 90, 110, 90, 110, 100, 100, 100, 100 };
	const double over[] = { 20, 21, 19, 20, 20, 21, 19, 80 };
	struct rep reps[8];
	struct cell c;

	(void)state;
	memset(&c, 0, sizeof(c));
	for (int i = 0; i < 8; i++)
		reps[i] = (struct rep){ .base_ns_per_op = base[i],
					.traced_ns_per_op = base[i] + over[i],
					.events = 10, .hits = 10, .stops = 3 };
	c.reps = reps;
	c.nreps = 8;
	strcpy(c.workload, "getpid");
	strcpy(c.target, "close");    /* collateral: hits should be 0 */
	results_finish_cell(&c, 9);
	assert_near(c.base_cv, sqrt(400.0 / 7) / 100, EPS);
	assert_int_equal(c.outliers, 1);
	assert_true(reps[7].outlier);
	assert_false(reps[0].outlier);
	assert_int_equal(c.stops, 24);
	/* with an outlier the note quotes the median: of 19 19 20 20 20 21 21 80 it
	 * is 20, and the bootstrap's medians of 8 draws stay within 19..21 */
	assert_string_equal(c.note, "noisy baseline (cv 7.6%); hits 80 on untargeted events; "
			    "1 outlier rep: median 20.0 [19.0, 21.0]");
}

/*
 * --placement rotate (issue 26, item 2): a cell of @ncpu CPUs crossed with
 * @nrounds rounds, 2 reps (a pair) per CPU per round, as plan_round_reps
 * and cell.c's rotation lay them out. Each round's level moves by
 * +-@drift ns (strong drift between rounds, on every CPU alike), the reps
 * wiggle by +-1 ns within a round, and CPU @slow costs @extra ns more.
 * @tied: the old layout, where a pair's CPU was its round's parity.
 */
static void rotate_cell(struct cell *c, struct rep *reps, struct thread_fig *th, int ncpu,
			int nrounds, double drift, int slow, double extra, bool tied)
{
	static const double level[] = { 0, 1, -1, 0.5, -0.5, 0.8, -0.8, 0.2 };
	int n = 0;

	memset(c, 0, sizeof(*c));
	strcpy(c->workload, "getpid");
	strcpy(c->target, "getpid");
	for (int r = 0; r < nrounds; r++)
		for (int k = 0; k < (tied ? 2 : ncpu); k++)
			for (int j = 0; j < 2; j++, n++) {
				int cpu = tied ? r % ncpu : (k + r) % ncpu;
				double over = 50 + drift * level[r % 8] + (j ? 1 : -1) +
					      (cpu == slow ? extra : 0);

				th[n] = (struct thread_fig){ .cpu = cpu };
				reps[n] = (struct rep){ .base_ns_per_op = 100,
							.traced_ns_per_op = 100 + over, .events = 10,
							.hits = 10, .stops = -1, .round = r,
							.traced_first = j, .threads = &th[n] };
			}
	c->reps = reps;
	c->nreps = n;
	results_finish_cell(c, 3);
}

static void test_per_cpu_rotate(void **state)
{
	struct rep reps[64];
	struct thread_fig th[64];
	struct cell c;

	(void)state;
	/* the same cost on 2 CPUs, rounds 200 ns apart: the CPUs do not differ */
	rotate_cell(&c, reps, th, 2, 8, 200, -1, 0, false);
	assert_int_equal(c.nper_cpu, 2);
	assert_false(c.cpus_differ);
	for (int k = 0; k < 2; k++) {
		double m[8], ci[2];

		/* the CPU's reps span every round; its interval is over its 8 round
		 * means (t with 7 df), as docs/method.md wants, not over 16 reps */
		assert_int_equal(c.per_cpu[k].rounds, 8);
		assert_int_equal(c.per_cpu[k].n, 16);
		for (int r = 0; r < 8; r++)
			m[r] = 50 + 200 * (double[]){ 0, 1, -1, 0.5, -0.5, 0.8, -0.8, 0.2 }[r];
		stats_t_ci(m, 8, 0.95, ci);
		assert_near(c.per_cpu[k].mean, stats_mean(m, 8), EPS);
		assert_near(c.per_cpu[k].ci95[0], ci[0], EPS);
		assert_near(c.per_cpu[k].ci95[1], ci[1], EPS);
	}
	/* 4 CPUs, the same: none of the 6 pairs differs */
	rotate_cell(&c, reps, th, 4, 8, 200, -1, 0, false);
	assert_int_equal(c.nper_cpu, 4);
	assert_false(c.cpus_differ);
	/* a real difference, 10 ns on CPU 1, under the same drift: it shows,
	 * though each CPU's own interval is hundreds of ns wide */
	rotate_cell(&c, reps, th, 4, 8, 200, 1, 10, false);
	assert_true(c.cpus_differ);
	assert_true(c.per_cpu[1].ci95[1] - c.per_cpu[1].ci95[0] > 100);
	assert_non_null(strstr(c.note, "CPUs differ"));
	/* the old layout (a CPU per round's parity), the same cost: the drift
	 * would make the CPUs' difference; no round holds both, nothing is said */
	rotate_cell(&c, reps, th, 2, 8, 200, -1, 0, true);
	assert_int_equal(c.nper_cpu, 2);
	assert_false(c.cpus_differ);
	assert_null(strstr(c.note, "CPUs differ"));
}

static void test_finish_cell_empty(void **state)
{
	struct cell c;

	(void)state;
	memset(&c, 0, sizeof(c));
	c.status = CELL_SKIPPED;
	results_finish_cell(&c, 1);
	assert_true(isnan(c.overhead.mean) && isnan(c.slowdown));
	assert_int_equal(c.hits, -1);
	assert_string_equal(c.note, "");
}

/* Two-level: reps within rounds, the interval over round means (docs/method.md §5c). */
static void test_rounds_ci(void **state)
{
	/* rounds 0, 1, 2 of two reps each: round means 2, 6, 3 */
	const double x[] = { 1, 3, 5, 7, 2, 4 };
	const int r[] = { 0, 0, 1, 1, 2, 2 };
	/* unbalanced, rounds in any order: means 3 (1, 3, 5), 10 (10), 5 (4, 6) */
	const double u[] = { 4, 1, 10, 3, 6, 5 };
	const int ur[] = { 7, 2, 5, 2, 7, 2 };
	struct rounds_est e;

	(void)state;
	stats_rounds_ci(x, r, N(x), 0.95, &e);
	assert_int_equal(e.rounds, 3);
	assert_int_equal(e.n, 6);
	/* mean of 2, 6, 3 = 11/3; deviations -5/3, 7/3, -2/3: squares 26/3, /2 = 13/3,
	 * sd 2.0816659994661326, se = sd / sqrt 3 = 1.2018504251546633 */
	assert_near(e.mean, 11.0 / 3, EPS);
	assert_near(e.se, 1.2018504251546633, EPS);
	assert_near(e.df, 2, 0);
	/* t(0.975, 2) = 4.302652729749464: 11/3 -+ 5.17115... */
	assert_near(e.ci[0], -1.5044783458755995, 1e-9);
	assert_near(e.ci[1], 8.837811679208933, 1e-9);
	/* within: each round's pair is 2 apart, variance 2; between: MSB = 2 (SS 52/3) / 2
	 * = 26/3, n0 = 2: (26/3 - 2) / 2 = 10/3; share 10/3 / (10/3 + 2) = 0.625 */
	assert_near(e.within_var, 2, EPS);
	assert_near(e.between_var, 10.0 / 3, EPS);
	assert_near(e.between_share, 0.625, EPS);

	stats_rounds_ci(u, ur, N(u), 0.95, &e);
	assert_int_equal(e.rounds, 3);
	/* each round weighs the same: (3 + 10 + 5) / 3 = 6, not the reps' 29/6 */
	assert_near(e.mean, 6, EPS);
	assert_near(e.ci[0], -2.956685895029601, 1e-9);
	assert_near(e.ci[1], 14.9566858950296, 1e-9);
	/* SSW 8 + 0 + 2 over 3 df = 10/3; SSB 36.8333 over 2 = 18.41667; n0 = (6 - 14/6) / 2
	 * = 11/6: between (18.41667 - 3.33333) / (11/6) = 8.2272727, share 0.71166448 */
	assert_near(e.within_var, 10.0 / 3, EPS);
	assert_near(e.between_var, 8.227272727272727, 1e-9);
	assert_near(e.between_share, 0.7116644823066841, 1e-9);

	/* one round: the rounds say nothing about drift, no interval (the caller falls back) */
	stats_rounds_ci(x, (const int[]){ 0, 0, 0, 0, 0, 0 }, N(x), 0.95, &e);
	assert_int_equal(e.rounds, 1);
	assert_true(isnan(e.ci[0]) && isnan(e.se) && isnan(e.between_share));
	assert_near(e.within_var, 14.0 / 3, EPS);	/* the sample variance of x: (70/3) / 5 */
	/* rounds of one rep: no within variance, the interval is the t over the reps */
	stats_rounds_ci(classic, (const int[]){ 0, 1, 2, 3, 4, 5, 6, 7 }, N(classic), 0.95, &e);
	assert_true(isnan(e.within_var) && isnan(e.between_share));
	{
		double ci[2];

		stats_t_ci(classic, N(classic), 0.95, ci);
		assert_near(e.ci[0], ci[0], EPS);
		assert_near(e.ci[1], ci[1], EPS);
	}
	/* equal rounds: no between variance, share 0 */
	stats_rounds_ci((const double[]){ 1, 3, 1, 3 }, (const int[]){ 0, 0, 1, 1 }, 4, 0.95, &e);
	assert_near(e.between_var, 0, 0);
	assert_near(e.between_share, 0, 0);
	assert_near(e.ci[0], 2, EPS);
	assert_near(e.ci[1], 2, EPS);
	stats_rounds_ci(x, r, 0, 0.95, &e);
	assert_true(isnan(e.mean) && e.rounds == 0);
}

/* The repeat interval: sqrt(2) x the CI without drift, wider by the drift between runs */
static void test_repeat_pi(void **state)
{
	double pi[2], ci[2];

	(void)state;
	/* m 100, se 2, 7 df, no drift: t(0.975, 7) sqrt(8) = 2.3646242515927844 x 2.8284271 */
	stats_repeat_pi(100, 2, 7, 0, NAN, 0.95, pi);
	assert_near(pi[0], 100 - 6.688167373037691, 1e-9);
	assert_near(pi[1], 100 + 6.688167373037691, 1e-9);
	/* exactly sqrt(2) x the half-width of the t over the same se */
	ci[1] = stats_t_quantile(0.975, 7) * 2;
	assert_near(pi[1] - 100, sqrt(2) * ci[1], 1e-9);
	/* tau^2 0.01 (tau 10%): 2 x 4 + 2 x 0.01 x 100^2 = 208 */
	stats_repeat_pi(100, 2, 7, 0.01, NAN, 0.95, pi);
	assert_near(pi[0], 100 - 34.10309594529378, 1e-9);
	assert_near(pi[1], 100 + 34.10309594529378, 1e-9);
	/* a drift scales the cost: a negative mean widens the same, 0 not at all */
	stats_repeat_pi(-100, 2, 7, 0.01, NAN, 0.95, pi);
	assert_near(pi[1], -100 + 34.10309594529378, 1e-9);
	stats_repeat_pi(0, 2, 7, 0.01, NAN, 0.95, pi);
	assert_near(pi[1], 6.688167373037691, 1e-9);
	/* a negative tau^2 counts as 0; no se or df, no interval */
	stats_repeat_pi(100, 2, 7, -1, NAN, 0.95, pi);
	assert_near(pi[1], 100 + 6.688167373037691, 1e-9);
	stats_repeat_pi(100, NAN, 7, 0, NAN, 0.95, pi);
	assert_true(isnan(pi[0]) && isnan(pi[1]));
	stats_repeat_pi(100, 2, NAN, 0, NAN, 0.95, pi);
	assert_true(isnan(pi[0]) && isnan(pi[1]));
	/*
	 * tau^2 from 2 runs (1 df): 2 x 4 and 2 x 0.01 x 100^2 = 8 + 200, with
	 * df (208^2) / (8^2 / 7 + 200^2 / 1) = 1.0813 by Welch-Satterthwaite:
	 * t 11.48, not 2.36
	 */
	stats_repeat_pi(100, 2, 7, 0.01, 1, 0.95, pi);
	assert_near(pi[1] - 100, stats_t_quantile(0.975, 208.0 * 208 / (64.0 / 7 + 40000)) * sqrt(208),
		    1e-9);
	assert_true(pi[1] - 100 > 10 * sqrt(208));
	/*
	 * from 21 runs it is well known: df 21.5, between the CI's 7 (the t
	 * when its df are not given) and a normal's
	 */
	stats_repeat_pi(100, 2, 7, 0.01, 20, 0.95, pi);
	assert_true(pi[1] - 100 < 34.10309594529378 && pi[1] - 100 > 1.96 * sqrt(208));
	stats_repeat_pi(100, 2, 7, 0, 1, 0.95, pi);
	assert_near(pi[1], 100 + 6.688167373037691, 1e-9);
}

/* tau^2 from earlier runs, by hand; what is left out; truncation at 0; fewer than 2 runs */
static void test_repeat_tau2(void **state)
{
	struct repeat_obs o[] = {
		/* group 0, runs 1-3: means 100, 110, 90 (mb 100), se 2: sum d^2 0.02, se^2/mb^2
		 * 0.0004 each: 0.02 - 2 x 0.0012 / 3 = 0.0192 over 2 df */
		{ .group = 0, .run = 3, .mean = 90, .se = 2 },
		{ .group = 0, .run = 1, .mean = 100, .se = 2 },
		{ .group = 0, .run = 2, .mean = 110, .se = 2 },
		/* group 1, runs 1-2: equal means 50, se 1: 0 - 1 x 2 x 0.0004 / 2 = -0.0004, 1 df */
		{ .group = 1, .run = 1, .mean = 50, .se = 1 },
		{ .group = 1, .run = 2, .mean = 50, .se = 1 },
		/* left out: an A/A cell, a mean under 4 se, a cell of one run */
		{ .group = 2, .run = 1, .mean = 0, .se = 1, .aa = 1 },
		{ .group = 2, .run = 2, .mean = 80, .se = 1, .aa = 1 },
		{ .group = 3, .run = 1, .mean = 5, .se = 10 },
		{ .group = 3, .run = 2, .mean = 15, .se = 10 },
		{ .group = 4, .run = 4, .mean = 1000, .se = 1 },
	};
	struct repeat_obs flat[] = {
		/* equal means, se 5 of 100: -0.0025 -> 0 */
		{ .group = 0, .run = 1, .mean = 100, .se = 5 },
		{ .group = 0, .run = 2, .mean = 100, .se = 5 },
	};
	struct repeat_obs one[] = {
		{ .group = 0, .run = 7, .mean = 100, .se = 1 },
		{ .group = 1, .run = 7, .mean = 200, .se = 1 },
	};
	/* four cells, runs 1-3 at 100, 100, 120 (mb 320/3), se 15: cell by cell the
	 * shift is inside the noise (excess < 0), shared by all four it is not: run
	 * means 0.9375, 0.9375, 1.125, variance 0.01171875, less (15 x 3/320)^2 / 4 */
	struct repeat_obs shift[12];
	int cells, runs;

	for (int g = 0; g < 4; g++)
		for (int r = 0; r < 3; r++)
			shift[g * 3 + r] = (struct repeat_obs){ .group = g, .run = r + 1,
								.mean = r == 2 ? 120 : 100, .se = 15 };
	(void)state;
	assert_near(stats_repeat_tau2(shift, N(shift), &cells, &runs),
		    0.01171875 - 0.140625 * 0.140625 / 4, 1e-12);
	assert_int_equal(cells, 4);
	assert_int_equal(runs, 3);
	/* one cell of them alone: the same shift is noise, 0 */
	for (int r = 0; r < 3; r++)
		shift[r] = (struct repeat_obs){ .group = 0, .run = r + 1, .mean = r == 2 ? 120 : 100, .se = 15 };
	assert_near(stats_repeat_tau2(shift, 3, &cells, &runs), 0, 0);
	/* (0.0192 - 0.0004) / 3 */
	assert_near(stats_repeat_tau2(o, N(o), &cells, &runs), 0.0188 / 3, 1e-12);
	assert_int_equal(cells, 2);
	/* run 4's cell was seen once: it gave nothing to tau, nor to its df */
	assert_int_equal(runs, 3);
	assert_near(stats_repeat_tau2(flat, N(flat), &cells, &runs), 0, 0);
	assert_int_equal(cells, 1);
	assert_int_equal(runs, 2);
	/* one earlier run: nothing to compare, 0 */
	assert_near(stats_repeat_tau2(one, N(one), &cells, &runs), 0, 0);
	assert_int_equal(cells, 0);
	assert_int_equal(runs, 0);
	assert_near(stats_repeat_tau2(one, 0, &cells, &runs), 0, 0);
	assert_int_equal(runs, 0);
}

/* Student's t upper tail, and Welch's interval and p built on it */
static void test_t_upper_welch(void **state)
{
	double ci[2], p, df;

	(void)state;
	/* Cauchy (df 1): P(T > 1) = 1/4 exactly; P(T > 0) = 1/2 */
	assert_near(stats_t_upper(1, 1), 0.25, 1e-12);
	assert_near(stats_t_upper(0, 7), 0.5, 1e-15);
	assert_near(stats_t_upper(-1, 1), 0.75, 1e-12);
	/* df 2: P(T > t) = (1 - t / sqrt(t^2 + 2)) / 2; t = 1: 0.2113248654051871 */
	assert_near(stats_t_upper(1, 2), 0.2113248654051871, 1e-12);
	/* the inverse of the quantile */
	assert_rel(stats_t_upper(2.776445105197793, 4), 0.025, 1e-9);
	assert_rel(stats_t_upper(stats_t_quantile(0.9995, 12.3), 12.3), 0.0005, 1e-9);
	assert_rel(stats_t_upper(1.959963984540054, INFINITY), 0.025, 1e-12);
	assert_true(isnan(stats_t_upper(1, 0)));

	/* A: 10, se 1, 4 df; B: 13, se 2, 9 df. se of B - A = sqrt 5; Welch-Satterthwaite
	 * df = 5^2 / (1/4 + 16/9) = 12.328767123287673; t = 3 / sqrt 5 = 1.3416407864998738 */
	stats_welch_diff(10, 1, 4, 13, 2, 9, 0.95, ci, &p, &df);
	assert_near(df, 12.328767123287673, 1e-9);
	assert_near(ci[0], 3 - stats_t_quantile(0.975, df) * sqrt(5), 1e-9);
	assert_near(ci[1], 3 + stats_t_quantile(0.975, df) * sqrt(5), 1e-9);
	assert_near(p, 2 * stats_t_upper(1.3416407864998738, df), 1e-12);
	assert_true(p > 0.2 && p < 0.21);	/* t 1.34 at 12 df: p 0.204 */
	/* the p and the interval are one test: p = 0.05 exactly where the interval touches 0 */
	stats_welch_diff(0, 1, 6, stats_t_quantile(0.975, 6) * sqrt(2), 1, 6, 0.95, ci, &p, &df);
	assert_near(df, 12, 1e-9);
	stats_welch_diff(0, 1, 12, stats_t_quantile(0.975, 12) * sqrt(2), 1, 12, 0.95, ci, &p, &df);
	assert_near(df, 24, 1e-9);
	stats_welch_diff(0, 1, 12, stats_t_quantile(0.975, 24) * sqrt(2), 1, 12, 0.95, ci, &p, &df);
	assert_near(p, 0.05, 1e-9);
	assert_near(ci[0], 0, 1e-9);
	/* a side without a standard error: nothing */
	stats_welch_diff(0, NAN, 1, 1, 1, 1, 0.95, ci, &p, &df);
	assert_true(isnan(ci[0]) && isnan(p));
}

/* qsort with NaN among the values: the finite ones in order, NaN last. */
static void test_cmp_double_nan(void **state)
{
	double v[] = { 3, NAN, 1, INFINITY, -2, NAN, 0.5, 2, NAN, -INFINITY, 7, 1 };
	const double want[] = { -INFINITY, -2, 0.5, 1, 1, 2, 3, 7, INFINITY };
	size_t n = sizeof(v) / sizeof(v[0]);

	(void)state;
	qsort(v, n, sizeof(v[0]), stats_cmp_double);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		assert_true(v[i] == want[i]);
	for (size_t i = sizeof(want) / sizeof(want[0]); i < n; i++)
		assert_true(isnan(v[i]));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cmp_double_nan),
		cmocka_unit_test(test_mean_stddev),
		cmocka_unit_test(test_mean_exact_for_constant),
		cmocka_unit_test(test_quantile_type7),
		cmocka_unit_test(test_median_mad),
		cmocka_unit_test(test_mad_outliers),
		cmocka_unit_test(test_rng),
		cmocka_unit_test(test_t_quantile),
		cmocka_unit_test(test_t_quantile_closed_forms),
		cmocka_unit_test(test_t_ci),
		cmocka_unit_test(test_bootstrap_median),
		cmocka_unit_test(test_ratio_ci),
		cmocka_unit_test(test_summarize),
		cmocka_unit_test(test_rng_uniform_normal),
		cmocka_unit_test(test_seed_of),
		cmocka_unit_test(test_rounds_ci),
		cmocka_unit_test(test_t_upper_welch),
		cmocka_unit_test(test_repeat_pi),
		cmocka_unit_test(test_repeat_tau2),
		cmocka_unit_test(test_coverage_mean),
		cmocka_unit_test(test_coverage_ratio),
		cmocka_unit_test(test_finish_cell),
		cmocka_unit_test(test_finish_cell_noise),
		cmocka_unit_test(test_finish_cell_empty),
		cmocka_unit_test(test_per_cpu_rotate),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
