/*
 * The statistics of `tracetax compare`: two runs' reps of one cell, side
 * by side. Pure functions in stats.c's style: no I/O, seeded, unit-tested
 * against hand-computed values.
 */
#ifndef TRACETAX_COMPARE_H
#define TRACETAX_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Exit code of `tracetax compare` when a cell got worse (README, --help). */
#define EXIT_WORSE 4

/* Below this many units on a side (round means; reps for a run of one
 * round) a cell gets no verdict: 2 degrees of freedom (docs/method.md §9). */
#define COMPARE_MIN_UNITS 3
/* Resamples: Holm asks for p down to 0.05 / cells, and p >= 2 / (B + 1). */
#define COMPARE_BOOTSTRAP_B 20000
/* --threshold by default, in % of A's overhead. */
#define COMPARE_THRESHOLD_PCT 5.0
/* The family-wise error rate the verdicts keep (the Welch t's own, Holm over the cells). */
#define COMPARE_ALPHA 0.05
/* A side whose baseline varied more than this between reps (cv) gets no
 * verdict: results.c's noisy-baseline threshold, for the same reason. */
#define COMPARE_NOISY_CV 0.05

/*
 * The percentile bootstrap interval at @level of mean(b) - mean(a), each
 * side resampled on its own (unpaired: two runs are two sessions, no rep
 * of one belongs with a rep of the other), and its two-sided p: the share
 * of resampled differences on the far side of 0, doubled. Deterministic
 * for a seed. NaN when a side is empty.
 */
void compare_bootstrap_diff(const double *a, size_t na, const double *b, size_t nb, unsigned B,
			    uint64_t seed, double level, double ci[2], double *p);

/*
 * Mann-Whitney U test, two-sided p: exact without ties up to 50 a side,
 * else the normal approximation with tie and continuity corrections. *u
 * (if not NULL): the count of pairs with b > a (ties count a half).
 */
double compare_mann_whitney(const double *a, size_t na, const double *b, size_t nb, double *u);

/* Holm's step-down adjustment of @n p-values: adj[i] is p[i]'s adjusted value. */
void compare_holm(const double *p, size_t n, double *adj);

enum verdict { VERDICT_SAME, VERDICT_WORSE, VERDICT_BETTER, VERDICT_TOO_FEW, VERDICT_NOISY };

/*
 * The units of one run's cell for compare: its round means when its reps
 * ran in 2 rounds or more, else the per-rep overheads; their mean, the
 * standard error of that mean and its degrees of freedom (units - 1).
 * Returns the number of units.
 */
size_t compare_units(const double *x, const int *round, size_t n, double *mean, double *se,
		     double *df);

/*
 * The verdict on a cell: none below COMPARE_MIN_UNITS units a side or with a
 * side's baseline cv (@cv, the larger of the two; NaN when no side ran in
 * a single round, whose interval leaves the drift out) above COMPARE_NOISY_CV;
 * else worse or better only when the change is significant after Holm
 * (@p_holm below COMPARE_ALPHA), its interval excludes 0, and |@diff|
 * passes both @threshold (ns) and the larger noise floor of the two runs,
 * @floor (ns; NaN: none measured).
 */
enum verdict compare_verdict(size_t na, size_t nb, double cv, double diff, const double ci[2],
			     double p_holm, double threshold, double floor);
const char *compare_verdict_name(enum verdict v);

#endif
