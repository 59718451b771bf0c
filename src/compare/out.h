/*
 * Two runs compared cell by cell (compare/runs.c), for `tracetax compare`
 * (cmd/compare.c, compare/env.c) and the report.
 */
#ifndef TRACETAX_COMPARE_OUT_H
#define TRACETAX_COMPARE_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "compare/compare.h"
#include "doc/read.h"
#include "results/results.h"

/* One cell's comparison; a or b NULL: the cell is on one side only. */
struct cmp_row {
	const struct cell *a, *b;
	bool compared;             /* ok on both sides: the figures below are set */
	size_t na, nb;             /* reps with figures */
	size_t ua, ub;             /* units: round means, or reps for a run of one round */
	bool one_round;            /* a side ran in one round: its interval lacks the drift */
	double ma, mb;             /* mean overhead per event, ns (of the round means) */
	double diff, ratio;        /* mb - ma; mb / ma (NaN when A's is not above its floor) */
	double ci[2], p, df;       /* Welch's interval of diff over the units, its p and df */
	double p_holm;             /* p adjusted over the family (Holm) */
	double threshold;          /* ns a change must pass: --threshold of A's scale */
	double floor;              /* the larger noise floor of the two runs; NaN: none */
	double base_shift;         /* B's baseline mean / A's - 1: the untraced workload's change */
	bool base_moved;           /* ...beyond the threshold, and significant (Welch, round
	                              means): the machine differed, no verdict */
	enum verdict verdict;
};

struct cmp {
	struct cmp_row *rows;
	int nrows;
	int family;                /* cells in Holm's family: compared, with enough reps */
	int worse, better, same, too_few, noisy, not_comparable;
	char incomparable[160];    /* why no cell gets a verdict ("": they do) */
	double base_shift;         /* the median of the rows' base_shift; NaN: none compared */
	double threshold_pct;
};

/*
 * Whether one run's ns are an emulated CPU's (a guest of run --kernel
 * under TCG: not costs, docs/vm.md) and the other's are not; then @why
 * says where each ran. Two TCG guests compare with each other, as do KVM
 * guests and the host. compare_runs then gives no verdicts.
 */
/*
 * One run's figures are instructions (qemu's -icount, environment.unit) and
 * the other's ns: nothing of one can be set beside the other. @why: the line.
 */
bool compare_units_apart(const struct results *a, const struct results *b, char *why, size_t len);
bool compare_emulated_apart(const struct results *a, const struct results *b, char *why,
			    size_t len);
/* Matches cells by (workload, tracer, threads, target) and compares them. */
void compare_runs(const struct results *a, const struct results *b, double threshold_pct,
		  struct cmp *out);
void compare_release(struct cmp *c);

struct cmp_style { const char *red, *green, *bold_yellow, *dim, *bold, *reset; };

/* The two runs, and what differs between their environments and options. */
void compare_print_env(FILE *f, const struct doc *a, const struct doc *b,
		       const struct cmp_style *st);

#endif
