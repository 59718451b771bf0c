/*
 * The statistics of `tracetax compare`: two runs' units of one cell (round
 * means), side by side, Welch's t over them (stats_rounds.h), Holm over
 * the cells, the verdicts. The tests it replaced live with the tests
 * (tests/unit/compare_rejected.h). Pure functions in stats.c's style: no I/O, seeded, unit-tested
 * against hand-computed values.
 */
#ifndef TRACETAX_COMPARE_H
#define TRACETAX_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Exit code of `tracetax compare` when a cell got worse (README, --help). */
#define EXIT_WORSE 4
/* ...when no verdict can be given: one run's ns are an emulated CPU's (a
 * guest of run --kernel under TCG), the other's are not (README, --help). */
#define EXIT_NOT_COMPARABLE 5

/* Below this many units on a side (round means; reps for a run of one
 * round) a cell gets no verdict: 2 degrees of freedom (docs/method.md §9). */
#define COMPARE_MIN_UNITS 3
/* --threshold by default, in % of A's overhead. */
#define COMPARE_THRESHOLD_PCT 5.0
/* The family-wise error rate the verdicts keep (the Welch t's own, Holm over the cells). */
#define COMPARE_ALPHA 0.05
/* A side whose baseline varied more than this between reps (cv) gets no
 * verdict: results.c's noisy-baseline threshold, for the same reason. */
#define COMPARE_NOISY_CV 0.05

/* Holm's step-down adjustment of @n p-values: adj[i] is p[i]'s adjusted value. */
void compare_holm(const double *p, size_t n, double *adj);

enum verdict { VERDICT_SAME, VERDICT_WORSE, VERDICT_BETTER, VERDICT_TOO_FEW, VERDICT_NOISY,
	       VERDICT_NOT_COMPARABLE };

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
