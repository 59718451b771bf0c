/*
 * A log-linear histogram of nanoseconds (fio's and HdrHistogram's layout):
 * values below 64 have a bucket each; above, every power of two is cut
 * into 64 buckets, so a bucket is at most 1/64 of its values wide and its
 * midpoint within 1/128 (0.8%) of any value in it. Mergeable by adding
 * counts. Values from 2^36 ns (69 s) up share the top bucket; max stays
 * exact. Count, sum, sum of squares, min and max are exact.
 *
 * The workload (src/load/) records into it in its hot loop: hist_add() is
 * inline here, and hist.c has no dependency beyond libc.
 */
#ifndef TRACETAX_HIST_H
#define TRACETAX_HIST_H

#include <stddef.h>
#include <stdint.h>

#define HIST_SUB_BITS 6
#define HIST_SUB (1u << HIST_SUB_BITS)                 /* buckets per power of two */
#define HIST_MAX_EXP 36                                /* 2^36 ns: 68.7 s */
#define HIST_BUCKETS ((HIST_MAX_EXP - HIST_SUB_BITS + 1) * HIST_SUB)
#define HIST_LOG2_BINS 65                              /* [0,1), [1,2), [2,4) ... [2^63,2^64) */

struct hist {
	uint64_t count;
	uint64_t sum;             /* of the values, ns */
	double sumsq;             /* of their squares: a double, 10 s squared overflows */
	uint64_t min, max;        /* exact; min is UINT64_MAX while empty */
	uint64_t b[HIST_BUCKETS];
};

/* The bucket of @v: v itself below 64, else 64 per power of two. */
static inline unsigned hist_index(uint64_t v)
{
	unsigned e;

	if (v < HIST_SUB)
		return (unsigned)v;
	e = 63u - (unsigned)__builtin_clzll(v);
	if (e >= HIST_MAX_EXP)
		return HIST_BUCKETS - 1;
	/* v >> (e - 6) is in [64, 128): the sub-bucket plus 64 */
	return (e - HIST_SUB_BITS) * HIST_SUB + (unsigned)(v >> (e - HIST_SUB_BITS));
}

static inline void hist_add(struct hist *h, uint64_t v)
{
	h->b[hist_index(v)]++;
	h->count++;
	h->sum += v;
	h->sumsq += (double)v * (double)v;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
}

void hist_init(struct hist *h);
/* Adds @n values in bucket @i, as a sparse export gives them back (no sum or
 * extremes: hist_set_exact() supplies those). -1: no such bucket. */
int hist_add_bucket(struct hist *h, unsigned i, uint64_t n);
void hist_set_exact(struct hist *h, uint64_t sum, double sumsq, uint64_t min, uint64_t max);
void hist_merge(struct hist *dst, const struct hist *src);

/* The values bucket @i holds: [lo, hi). */
uint64_t hist_bucket_lo(unsigned i);
uint64_t hist_bucket_hi(unsigned i);

/*
 * The p-quantile (0 <= p <= 1), nearest rank: the value of rank
 * max(1, ceil(p * count)) lies in the bucket returned, reported as its
 * middle, kept within [min, max]. NaN when empty.
 */
double hist_quantile(const struct hist *h, double p);
double hist_mean(const struct hist *h);
double hist_variance(const struct hist *h);    /* n - 1; NaN below two values */

/* Σ count × middle², for a histogram whose values themselves were not kept. */
double hist_sumsq_of_buckets(const struct hist *h);

/* The next non-empty bucket at or after @i; HIST_BUCKETS when none. */
unsigned hist_next(const struct hist *h, unsigned i);

/* Counts per power of two, bin k holding [2^(k-1), 2^k) (bin 0: the value 0). */
void hist_log2(const struct hist *h, uint64_t bins[HIST_LOG2_BINS]);
uint64_t hist_log2_lo(unsigned k);

#endif
