/*
 * One cell's runs, for the runner: a run of the workload (traced or not),
 * a rep (a run of each side, the machine read around them), calibrating a
 * side, and the tracer's setup and teardown around them.
 */
#ifndef TRACETAX_CELL_H
#define TRACETAX_CELL_H

#include <stdbool.h>
#include <stdint.h>

#include "base/activity.h"
#include "measure/child.h"
#include "measure/plan.h"
#include "results/results.h"
#include "tracers/tracer.h"
#include "base/vmstat.h"

/* One side of a cell: the baseline or the traced runs. */
struct side {
	struct load_spec spec;
	double expect_ms;   /* how long a run should take, for timeouts; 0: unknown */
};

struct cell_ctx {
	struct cell *c;
	const struct plan_cell *pc;
	struct tracer t;
	struct side base, traced;
	const struct measure_opts *a;
	struct vmstat vm;
	uint64_t deadline;  /* --precision: the cell's share of --max-time ends here */
	struct activity before;	/* what else traced when the cell began */
	bool watching;
	struct cmdload *cmd;	/* a cmd: workload's (cmdload.h); NULL for the load's loops */
	int round;		/* the plan's round the next reps run in */
	int round_rep;		/* the next rep's place in its round (--placement rotate) */
};

/* Marks the cell failed with the reason; returns -1. */
int cell_fail(struct cell *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Marks the cell disturbed (the first change is the one told). */
void cell_disturbed(struct cell *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Set up for the traced side's runs; on failure the wrapper has torn down. */
int cell_setup(struct cell_ctx *x);
void cell_teardown(struct cell_ctx *x);
/* Size one side's iterations to --run-ms; 0, or -1 with the cell failed or skipped. */
int cell_calibrate(struct cell_ctx *x, bool traced);
/* Rep @i: both runs in the plan's order, added to the cell; 0, or -1 (cell failed). */
int cell_rep(struct cell_ctx *x, int i);
/* One traced run outside the reps (progstats.c); 0, or -1 with the cell failed. */
int cell_run_traced(struct cell_ctx *x, struct load_result *res, struct tt_hits *hits);
/* One baseline run outside the reps (cmdload.c's counting pass); 0, or -1 with the cell failed. */
int cell_run_base(struct cell_ctx *x, struct load_result *res);
/* --latency pair @i: both runs with every call timed, into c->lat; 0, or -1 (cell failed). */
int cell_latency(struct cell_ctx *x, int i);
/*
 * After the reps, @step (the --latency runs, the BPF-stats pass, the cost
 * pairs) failed the cell: its reps' figures stand. The cell is ok again and
 * the failure goes to its note ("the --latency runs failed, the reps'
 * figures stand: ..."). Interrupted, the cell stays failed. Returns -1:
 * later steps do not run.
 */
int cell_keep_reps(struct cell_ctx *x, const char *step);
/* Warm-up iterations for a run of @iterations. */
int64_t cell_warmup(int64_t iterations);

#endif
