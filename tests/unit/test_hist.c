/*
 * hist.c: bucket boundaries at every power of two, merge, log2 bins, and
 * quantiles against a sorted-array oracle on random data.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "base/hist.h"
#include "results/stats.h"

#define N_RANDOM 200000

static struct hist *hist_new(void)
{
	struct hist *h = malloc(sizeof(*h));

	assert_non_null(h);
	hist_init(h);
	return h;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Log-uniform from 1 ns to ~20 s, with a run of exact small values. */
static uint64_t draw(struct tt_rng *r)
{
	if (rng_below(r, 10) == 0)
		return rng_below(r, 70);
	return (uint64_t)exp(rng_uniform(r) * log(2e10));
}

static void test_power_of_two_boundaries(void **state)
{
	(void)state;
	for (unsigned k = 0; k < 64; k++) {
		uint64_t p = 1ull << k;
		unsigned i = hist_index(p);

		if (k < HIST_MAX_EXP) {
			/* every power of two starts a bucket, and the one below ends there */
			assert_int_equal(hist_bucket_lo(i), p);
			if (k > 0) {
				assert_int_equal(hist_index(p - 1) + 1, i);
				assert_int_equal(hist_bucket_hi(hist_index(p - 1)), p);
			}
		} else {
			assert_int_equal(i, HIST_BUCKETS - 1);
		}
	}
	assert_int_equal(hist_index(UINT64_MAX), HIST_BUCKETS - 1);
	assert_int_equal(hist_index(0), 0);
	assert_int_equal(hist_index(63), 63);
	assert_int_equal(hist_index(64), 64);
	assert_int_equal(hist_index(127), 127);
	assert_int_equal(hist_index(128), 128);
	assert_int_equal(hist_index(129), 128);	/* width 2 from 128 on */
	assert_int_equal(hist_index(130), 129);
}

static void test_every_bucket(void **state)
{
	(void)state;
	for (unsigned i = 0; i < HIST_BUCKETS - 1; i++) {
		uint64_t lo = hist_bucket_lo(i), hi = hist_bucket_hi(i);

		assert_true(hi > lo);
		assert_int_equal(hist_bucket_lo(i + 1), hi);	/* contiguous */
		assert_int_equal(hist_index(lo), i);
		assert_int_equal(hist_index(hi - 1), i);
		/* at most 1/64 of its values wide: the middle is within 0.8% */
		if (lo >= HIST_SUB)
			assert_true((hi - lo) * HIST_SUB <= lo);
		else
			assert_int_equal(hi - lo, 1);
	}
	/* 10 s fits below the shared top bucket */
	assert_true(hist_index(10000000000ull) < HIST_BUCKETS - 1);
}

static void test_quantiles_oracle(void **state)
{
	static const double ps[] = { 0, 0.001, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 0.999,
				     0.9999, 1 };
	uint64_t *x = malloc(N_RANDOM * sizeof(*x));
	struct hist *h = hist_new();
	struct tt_rng r;

	(void)state;
	assert_non_null(x);
	rng_seed(&r, 42);
	for (size_t i = 0; i < N_RANDOM; i++) {
		x[i] = draw(&r);
		hist_add(h, x[i]);
	}
	qsort(x, N_RANDOM, sizeof(*x), cmp_u64);
	assert_int_equal(h->count, N_RANDOM);
	assert_int_equal(h->min, x[0]);
	assert_int_equal(h->max, x[N_RANDOM - 1]);
	for (size_t k = 0; k < sizeof(ps) / sizeof(ps[0]); k++) {
		uint64_t rank = (uint64_t)ceil(ps[k] * N_RANDOM);
		uint64_t want = x[(rank ? rank : 1) - 1];
		unsigned b = hist_index(want);
		double got = hist_quantile(h, ps[k]);
		/* within the oracle's bucket: half its width, and under 1% of the value */
		double tol = (double)(hist_bucket_hi(b) - hist_bucket_lo(b) - 1) / 2;

		if (fabs(got - (double)want) > tol || fabs(got - (double)want) > 0.01 * (double)want) {
			print_error("p %g: hist %.1f, oracle %llu, tolerance %.1f\n", ps[k], got,
				    (unsigned long long)want, tol);
			fail();
		}
	}
	assert_true(hist_quantile(h, 1) == (double)x[N_RANDOM - 1]);
	free(x);
	free(h);
}

/* A few values: nearest rank picks exactly, small values are exact. */
static void test_quantiles_small(void **state)
{
	struct hist *h = hist_new();

	(void)state;
	assert_true(isnan(hist_quantile(h, 0.5)));
	assert_true(isnan(hist_mean(h)));
	for (uint64_t v = 1; v <= 10; v++)
		hist_add(h, v);
	assert_true(hist_quantile(h, 0.5) == 5);	/* rank 5 of 10 */
	assert_true(hist_quantile(h, 0.51) == 6);
	assert_true(hist_quantile(h, 0.9) == 9);
	assert_true(hist_quantile(h, 0.99) == 10);
	assert_true(hist_quantile(h, 0) == 1);
	assert_true(hist_mean(h) == 5.5);
	/* sum of squares 385: (385 - 10 * 30.25) / 9 = 82.5 / 9 */
	assert_true(fabs(hist_variance(h) - 82.5 / 9) < 1e-12);
	free(h);
	/* one large value: within [min, max], not the bucket's middle */
	h = hist_new();
	hist_add(h, 1000003);
	assert_true(hist_quantile(h, 0.5) == 1000003);
	assert_true(isnan(hist_variance(h)));
	/* beyond the top bucket: clamped to the exact max */
	hist_add(h, 1ull << 40);
	assert_true(hist_quantile(h, 1) == (double)(1ull << 40));
	free(h);
}

static void test_merge(void **state)
{
	struct hist *a = hist_new(), *b = hist_new(), *all = hist_new();
	struct tt_rng r;

	(void)state;
	rng_seed(&r, 7);
	for (int i = 0; i < 50000; i++) {
		uint64_t v = draw(&r);

		hist_add(i % 3 ? a : b, v);
		hist_add(all, v);
	}
	hist_merge(a, b);
	assert_int_equal(a->count, all->count);
	assert_int_equal(a->sum, all->sum);
	assert_int_equal(a->min, all->min);
	assert_int_equal(a->max, all->max);
	assert_true(fabs(a->sumsq - all->sumsq) <= 1e-9 * all->sumsq);
	assert_memory_equal(a->b, all->b, sizeof(a->b));
	/* merging an empty one changes nothing, min included */
	hist_init(b);
	hist_merge(a, b);
	assert_int_equal(a->min, all->min);
	assert_int_equal(a->count, all->count);
	free(a);
	free(b);
	free(all);
}

/* What a sparse export gives back: buckets, then the exact figures. */
static void test_sparse_roundtrip(void **state)
{
	struct hist *h = hist_new(), *copy = hist_new();
	struct tt_rng r;
	unsigned nonzero = 0;

	(void)state;
	rng_seed(&r, 3);
	for (int i = 0; i < 10000; i++)
		hist_add(h, draw(&r));
	for (unsigned i = hist_next(h, 0); i < HIST_BUCKETS; i = hist_next(h, i + 1)) {
		assert_int_equal(hist_add_bucket(copy, i, h->b[i]), 0);
		nonzero++;
	}
	assert_true(nonzero > 100 && nonzero < HIST_BUCKETS);
	assert_int_equal(hist_add_bucket(copy, HIST_BUCKETS, 1), -1);
	hist_set_exact(copy, h->sum, h->sumsq, h->min, h->max);
	assert_memory_equal(copy, h, sizeof(*h));
	free(h);
	free(copy);
}

static void test_log2(void **state)
{
	struct hist *h = hist_new();
	uint64_t bins[HIST_LOG2_BINS], total = 0;

	(void)state;
	hist_add(h, 0);
	hist_add(h, 1);
	hist_add(h, 2);
	hist_add(h, 3);
	hist_add(h, 63);
	hist_add(h, 64);
	hist_add(h, 127);
	hist_add(h, 128);
	hist_add(h, 1000000);	/* 2^19 <= 1e6 < 2^20 */
	hist_log2(h, bins);
	assert_int_equal(bins[0], 1);	/* 0 */
	assert_int_equal(bins[1], 1);	/* [1, 2) */
	assert_int_equal(bins[2], 2);	/* [2, 4) */
	assert_int_equal(bins[6], 1);	/* [32, 64) */
	assert_int_equal(bins[7], 2);	/* [64, 128) */
	assert_int_equal(bins[8], 1);	/* [128, 256) */
	assert_int_equal(bins[20], 1);	/* [2^19, 2^20) */
	for (unsigned k = 0; k < HIST_LOG2_BINS; k++)
		total += bins[k];
	assert_int_equal(total, h->count);
	assert_int_equal(hist_log2_lo(0), 0);
	assert_int_equal(hist_log2_lo(1), 1);
	assert_int_equal(hist_log2_lo(11), 1024);
	free(h);
}

/* pair's variance: squares from the bucket middles, exact below 64 ns */
static void test_sumsq_of_buckets(void **state)
{
	struct hist *h = hist_new();
	struct tt_rng r;

	(void)state;
	for (uint64_t v = 1; v <= 10; v++)
		hist_add(h, v);
	assert_true(hist_sumsq_of_buckets(h) == 385);
	hist_init(h);
	rng_seed(&r, 11);
	for (int i = 0; i < 10000; i++)
		hist_add(h, 100 + rng_below(&r, 100000));
	assert_true(fabs(hist_sumsq_of_buckets(h) / h->sumsq - 1) < 0.02);
	free(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_power_of_two_boundaries),
		cmocka_unit_test(test_every_bucket),
		cmocka_unit_test(test_quantiles_oracle),
		cmocka_unit_test(test_quantiles_small),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_sparse_roundtrip),
		cmocka_unit_test(test_log2),
		cmocka_unit_test(test_sumsq_of_buckets),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
