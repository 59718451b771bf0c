/* The log-linear histogram: see hist.h. Pure, unit-tested in tests/unit/test_hist.c. */
#include <math.h>
#include <string.h>

#include "base/hist.h"

void hist_init(struct hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

uint64_t hist_bucket_lo(unsigned i)
{
	unsigned e;

	if (i < HIST_SUB)
		return i;
	/* bucket i: exponent e = i / 64 + 5, offset i % 64 in units of 2^(e - 6) */
	e = i / HIST_SUB + HIST_SUB_BITS - 1;
	return (uint64_t)(HIST_SUB + i % HIST_SUB) << (e - HIST_SUB_BITS);
}

/* The top bucket also holds everything above 2^HIST_MAX_EXP. */
uint64_t hist_bucket_hi(unsigned i)
{
	if (i >= HIST_BUCKETS - 1)
		return UINT64_MAX;
	return hist_bucket_lo(i + 1);
}

int hist_add_bucket(struct hist *h, unsigned i, uint64_t n)
{
	if (i >= HIST_BUCKETS)
		return -1;
	h->b[i] += n;
	h->count += n;
	return 0;
}

void hist_set_exact(struct hist *h, uint64_t sum, double sumsq, uint64_t min, uint64_t max)
{
	h->sum = sum;
	h->sumsq = sumsq;
	h->min = min;
	h->max = max;
}

void hist_merge(struct hist *dst, const struct hist *src)
{
	for (unsigned i = 0; i < HIST_BUCKETS; i++)
		dst->b[i] += src->b[i];
	dst->count += src->count;
	dst->sum += src->sum;
	dst->sumsq += src->sumsq;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
}

unsigned hist_next(const struct hist *h, unsigned i)
{
	while (i < HIST_BUCKETS && !h->b[i])
		i++;
	return i;
}

double hist_quantile(const struct hist *h, double p)
{
	uint64_t rank, seen = 0;
	double lo, hi, mid;
	unsigned i;

	if (!h->count || !(p >= 0 && p <= 1))
		return NAN;
	rank = (uint64_t)ceil(p * (double)h->count);
	/* the extremes are known exactly */
	if (rank <= 1)
		return (double)h->min;
	if (rank >= h->count)
		return (double)h->max;
	for (i = 0; i < HIST_BUCKETS - 1; i++) {
		seen += h->b[i];
		if (seen >= rank)
			break;
	}
	/* the bucket holds the integers lo .. hi - 1: their middle */
	lo = (double)hist_bucket_lo(i);
	hi = i == HIST_BUCKETS - 1 ? (double)h->max + 1 : (double)hist_bucket_hi(i);
	mid = (lo + hi - 1) / 2;
	if (mid < (double)h->min)
		mid = (double)h->min;
	if (mid > (double)h->max)
		mid = (double)h->max;
	return mid;
}

double hist_mean(const struct hist *h)
{
	return h->count ? (double)h->sum / (double)h->count : NAN;
}

double hist_variance(const struct hist *h)
{
	double n = (double)h->count, mean, v;

	if (h->count < 2)
		return NAN;
	mean = (double)h->sum / n;
	v = (h->sumsq - n * mean * mean) / (n - 1);
	return v > 0 ? v : 0;	/* rounding can take a constant's below 0 */
}

double hist_sumsq_of_buckets(const struct hist *h)
{
	double s = 0;

	for (unsigned i = hist_next(h, 0); i < HIST_BUCKETS; i = hist_next(h, i + 1)) {
		double lo = (double)hist_bucket_lo(i);
		double hi = i == HIST_BUCKETS - 1 ? (double)h->max + 1 : (double)hist_bucket_hi(i);
		double mid = (lo + hi - 1) / 2;

		s += (double)h->b[i] * mid * mid;
	}
	return s;
}

uint64_t hist_log2_lo(unsigned k)
{
	return k == 0 ? 0 : 1ull << (k - 1);
}

void hist_log2(const struct hist *h, uint64_t bins[HIST_LOG2_BINS])
{
	memset(bins, 0, HIST_LOG2_BINS * sizeof(bins[0]));
	for (unsigned i = hist_next(h, 0); i < HIST_BUCKETS; i = hist_next(h, i + 1)) {
		uint64_t lo = hist_bucket_lo(i);

		/* a bucket never straddles a power of two: its lower end says where */
		bins[lo ? 64 - __builtin_clzll(lo) : 0] += h->b[i];
	}
}
