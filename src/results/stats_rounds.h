/*
 * Two-level statistics of a cell whose reps were taken in rounds spread
 * over the run (docs/method.md §5c): reps within a round share the
 * machine's speed of that moment, rounds sample its drift. Pure functions
 * in stats.c's style: no I/O, unit-tested against hand-computed values.
 */
#ifndef TRACETAX_STATS_ROUNDS_H
#define TRACETAX_STATS_ROUNDS_H

#include <stddef.h>

struct rounds_est {
	size_t n;                 /* values */
	size_t rounds;            /* rounds with at least one value */
	double mean;              /* mean of the round means: each round weighs the same */
	double se;                /* its standard error: sd(round means) / sqrt(rounds) */
	double df;                /* rounds - 1 */
	double ci[2];             /* mean -+ t(df) se */
	double within_var;        /* sigma_w^2: pooled variance within rounds (NaN: no round has 2) */
	double between_var;       /* sigma_b^2: variance of the round levels, ANOVA, >= 0 */
	double between_share;     /* sigma_b^2 / (sigma_b^2 + sigma_w^2) */
};

/*
 * The t interval over round means at @level: x[i] was taken in round
 * round[i] (any ints; rounds need not be sorted or the same size). The
 * round means are the units: whatever the drift between rounds and the
 * noise within them, their spread says how far the mean is from the
 * machine's long-run cost, with rounds - 1 degrees of freedom. With one
 * round there is nothing to say that about: ci and se are NaN (the caller
 * says why). The variance components are the one-way ANOVA's (unbalanced:
 * n0 = (n - sum n_r^2 / n) / (R - 1)), the between one truncated at 0.
 */
void stats_rounds_ci(const double *x, const int *round, size_t n, double level,
		     struct rounds_est *e);

/*
 * Welch's interval at @level of mb - ma, each side a mean with its
 * standard error and degrees of freedom (the round means' of a run), the
 * Welch-Satterthwaite df and the two-sided p of the same t. NaN where a
 * side's se is not finite.
 */
void stats_welch_diff(double ma, double sea, double dfa, double mb, double seb, double dfb,
		      double level, double ci[2], double *p, double *df);

#endif
