/*
 * stats.c against values computed by hand (the working is in the comments;
 * cross-checked with python3's statistics module where it has the function).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "results.h"
#include "stats.h"

#define EPS 1e-9
#define N(a) (sizeof(a) / sizeof((a)[0]))

/* cmocka's assert_float_equal() goes through float: 7 digits, not enough. */
#define assert_near(a, b, eps) do {						\
	double a_ = (a), b_ = (b);						\
	if (!(fabs(a_ - b_) <= (eps))) {					\
		print_error("%.17g != %.17g (eps %g)\n", a_, b_, (double)(eps));	\
		_fail(__FILE__, __LINE__);					\
	}									\
} while (0)

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

static void test_t_quantile(void **state)
{
	(void)state;
	/* the brief's values (tables, R's qt) */
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

static void test_bootstrap(void **state)
{
	double x[100], a[2], b[2], c[2], k[10], one = 3.5;

	(void)state;
	for (int i = 0; i < 100; i++)
		x[i] = i + 1;
	stats_bootstrap_ci(x, 100, 4000, 7, a);
	stats_bootstrap_ci(x, 100, 4000, 7, b);
	stats_bootstrap_ci(x, 100, 4000, 8, c);
	/* deterministic per seed, different with another */
	assert_true(a[0] == b[0] && a[1] == b[1]);
	assert_true(a[0] != c[0] || a[1] != c[1]);
	/* contains the mean 50.5 */
	assert_true(a[0] < 50.5 && 50.5 < a[1]);
	/* 1..100: population sd sqrt((100^2-1)/12) = 28.866; se = 2.8866;
	 * normal approximation 50.5 -+ 1.96*2.8866 = [44.84, 56.16] */
	assert_near(a[0], 44.84, 0.6);
	assert_near(a[1], 56.16, 0.6);
	/* a constant sample has no spread to resample */
	for (int i = 0; i < 10; i++)
		k[i] = 0.1;
	stats_bootstrap_ci(k, 10, 1000, 1, c);
	assert_true(c[0] == 0.1 && c[1] == 0.1);
	stats_bootstrap_ci(&one, 1, 1000, 1, c);
	assert_true(c[0] == 3.5 && c[1] == 3.5);
}

static void test_summarize(void **state)
{
	struct summary s;

	(void)state;
	stats_summarize(classic, N(classic), 1, &s);
	assert_int_equal(s.n, 8);
	assert_near(s.mean, 5, EPS);
	assert_near(s.median, 4.5, EPS);
	assert_near(s.stddev, 2.138089935299395, EPS);
	assert_near(s.min, 2, 0);
	assert_near(s.max, 9, 0);
	assert_true(s.ci95[0] < 5 && 5 < s.ci95[1]);
	assert_true(s.ci95[0] >= 2 && s.ci95[1] <= 9);
	stats_summarize(classic, 0, 1, &s);
	assert_int_equal(s.n, 0);
	assert_true(isnan(s.mean) && isnan(s.ci95[0]));
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
	assert_string_equal(c.note,
			    "noisy baseline (cv 7.6%); hits 80 on untargeted events; 1 outlier rep");
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mean_stddev),
		cmocka_unit_test(test_mean_exact_for_constant),
		cmocka_unit_test(test_quantile_type7),
		cmocka_unit_test(test_median_mad),
		cmocka_unit_test(test_mad_outliers),
		cmocka_unit_test(test_rng),
		cmocka_unit_test(test_t_quantile),
		cmocka_unit_test(test_t_quantile_closed_forms),
		cmocka_unit_test(test_bootstrap),
		cmocka_unit_test(test_summarize),
		cmocka_unit_test(test_finish_cell),
		cmocka_unit_test(test_finish_cell_noise),
		cmocka_unit_test(test_finish_cell_empty),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
