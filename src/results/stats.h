/* Statistics: pure functions, unit-tested against hand-computed values. */
#ifndef TRACETAX_STATS_H
#define TRACETAX_STATS_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

struct summary {
	size_t n;
	double mean, median, stddev, min, max;
	double ci95[2];           /* Student's t interval of the mean */
	double median_ci95[2];    /* seeded percentile bootstrap of the median */
};

double stats_mean(const double *x, size_t n);
double stats_stddev(const double *x, size_t n);        /* sample (n-1) */
double stats_quantile(const double *x, size_t n, double p); /* type 7, x need not be sorted */
double stats_median(const double *x, size_t n);
double stats_mad(const double *x, size_t n);           /* raw median absolute deviation */
/* Flags x[i] whose modified z-score 0.6745*|x-med|/MAD exceeds 3.5. Returns count. */
size_t stats_mad_outliers(const double *x, size_t n, bool *flags);
double stats_cv(const double *x, size_t n);            /* stddev / mean */

/* Quantile of Student's t with df degrees of freedom (df > 0, not only
 * integers; df = INFINITY is the normal). NaN for p outside [0, 1]. */
double stats_t_quantile(double p, double df);
/* P(T > t) for Student's t with df degrees of freedom (df > 0; INFINITY: the normal) */
double stats_t_upper(double t, double df);
/* Two-sided Student's t interval of the mean at level (0.95 for 95%).
 * n = 1 gives [x, x], n = 0 NaN. */
void stats_t_ci(const double *x, size_t n, double level, double ci[2]);
/* 95% percentile bootstrap interval of the median, B resamples,
 * deterministic for a seed. */
void stats_bootstrap_median_ci(const double *x, size_t n, unsigned B, uint64_t seed,
			       double ci[2]);
/* Fieller interval of mean(num) / mean(den), num[i] and den[i] paired.
 * -1 (ci NaN) when mean(den) is not significantly away from 0 at this
 * level, where the set is unbounded, or when n = 0. */
int stats_ratio_ci(const double *num, const double *den, size_t n, double level,
		   double ci[2]);
/* n, mean, median, stddev, min, max, t interval, bootstrap median interval */
void stats_summarize(const double *x, size_t n, uint64_t seed, struct summary *s);

/* A seed of its own for one cell: the run's seed mixed with the cell's
 * identity string, so adding a cell does not move another's stream. */
uint64_t stats_seed_of(uint64_t seed, const char *identity);

/* splitmix64 PRNG, seeded, for bootstrap and rep order */
struct tt_rng { uint64_t s; };
void rng_seed(struct tt_rng *r, uint64_t seed);
uint64_t rng_next(struct tt_rng *r);
uint64_t rng_below(struct tt_rng *r, uint64_t n);
double rng_uniform(struct tt_rng *r);                  /* [0, 1), 53 bits */
double rng_normal(struct tt_rng *r);                   /* standard normal */

/* qsort's comparison of doubles: a total order, NaN last. */
int stats_cmp_double(const void *a, const void *b);

#endif
