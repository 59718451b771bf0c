/*
 * The runner executes the plan's cells, one at a time. Per cell: calibrate
 * the baseline and the traced side separately to --run-ms, set the tracer
 * up once, run reps -- a baseline and a traced run back to back, in the
 * order the plan drew -- and tear the tracer down, on every path. With
 * --precision, reps are added until the overhead's CI is narrow enough or
 * the cell's share of --max-time is spent.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure/cell.h"
#include "measure/cmdload.h"
#include "measure/cmdload_pass.h"
#include "load/workloads.h"
#include "measure/progstats.h"
#include "measure/runner.h"
#include "base/signals.h"
#include "measure/syscheck.h"
#include "base/util.h"

/*
 * Independently of the lock, which only other tracetax runs honour: what
 * else traces on the machine is read before the cell and after every rep
 * and the teardown; a change means the cell measured someone else's cost
 * too (or lost events to them: a BPF program on a tracepoint silences perf).
 */
static void watch_begin(struct cell_ctx *x)
{
	x->watching = !activity_sample(&x->before);
}

static void watch_check(struct cell_ctx *x)
{
	struct activity now;
	char what[256];

	if (!x->watching || x->c->disturbed || activity_sample(&now))
		return;
	if (activity_diff(&x->before, &now, what, sizeof(what)))
		cell_disturbed(x->c, "%s", what);
	activity_release(&now);
}

static void watch_end(struct cell_ctx *x)
{
	watch_check(x);
	if (x->watching)
		activity_release(&x->before);
	x->watching = false;
}

/* Whether to run another rep; when not, *why says what ended the cell. */
static bool want_rep(const struct cell_ctx *x, uint64_t rep_ns, enum cell_end *why)
{
	const struct cell *c = x->c;

	if (c->nreps < x->a->reps)
		return true;
	if (!(x->a->precision > 0)) {
		*why = END_REPS;
		return false;
	}
	if (results_reached_pct(c) <= x->a->precision) {
		*why = END_PRECISION;
		return false;
	}
	if (now_ns() + rep_ns > x->deadline) {
		*why = END_MAX_TIME;
		return false;
	}
	if (c->nreps >= RESULTS_MAX_REPS) {
		*why = END_MAX_REPS;
		return false;
	}
	return true;
}

static int run_reps(struct cell_ctx *x)
{
	struct cell *c = x->c;
	uint64_t rep_ns = 0;

	c->ended_by = END_STOPPED;
	signals_doing("running cell '%s'", x->pc->id);
	while (want_rep(x, rep_ns, &c->ended_by)) {
		uint64_t t0 = now_ns();

		if (signals_interrupted() || cell_rep(x, c->nreps))
			return -1;
		watch_check(x);
		rep_ns = now_ns() - t0;
	}
	return 0;
}

/* --latency: runs of their own after the reps, so that no overhead figure pays for timing. */
/* 0, or -1 when interrupted or the cell failed */
static int run_latency(struct cell_ctx *x)
{
	signals_doing("timing every call of cell '%s'", x->pc->id);
	for (int i = 0; i < PLAN_LATENCY_PAIRS; i++) {
		if (signals_interrupted() || cell_latency(x, i))
			return -1;
		watch_check(x);
	}
	return 0;
}

/* The --latency runs; -1 when they failed (their figures dropped) or we were interrupted. */
static int after_reps(struct cell_ctx *x)
{
	if (!x->c->lat)
		return signals_interrupted() ? -1 : 0;
	x->t.phase = "latency";
	if (!run_latency(x))
		return 0;
	results_latency_drop(x->c);
	return cell_keep_reps(x, "the --latency runs");
}

static void cell_init(struct cell *c, const struct plan_cell *pc, const struct measure_opts *a)
{
	snprintf(c->workload, sizeof(c->workload), "%s", pc->workload);
	snprintf(c->tracer, sizeof(c->tracer), "%s", pc->tracer);
	snprintf(c->target, sizeof(c->target), "%s", pc->target);
	snprintf(c->id, sizeof(c->id), "%s", pc->id);
	c->threads = pc->threads;
	c->seed = pc->seed;
	c->precision_pct = a->precision;
	c->ended_by = END_STOPPED;
	c->cmd.events_per_run = c->cmd.exit_status = -1;
	if (a->latency && !workload_find(pc->workload)->cmd &&	/* a command has no loop to time */
	    !(c->lat = results_latency_new()))
		cell_fail(c, "out of memory");
}

/* Up to the reps: is the tracer there, what does it need, how long is a run. */
static int cell_prepare(struct cell_ctx *x, const char *load_path)
{
	struct cell *c = x->c;
	char err[256];
	int rc;

	x->base.spec.load_path = x->traced.spec.load_path = load_path;
	x->base.spec.workload = x->traced.spec.workload = c->workload;
	x->base.spec.threads = x->traced.spec.threads = c->threads;
	x->base.spec.msg_size = x->traced.spec.msg_size = x->a->msg_size;
	if (tracer_init(&x->t, c->tracer, *c->target ? tt_syscall_find(c->target) : NULL, err,
			sizeof(err)))
		return cell_fail(c, "%s", err);
	tracer_set_tracepoint(&x->t, c->target);	/* when it names one */
	c->aa = x->t.ops->flags & TT_F_AA;
	x->t.threads = c->threads;
	x->t.tracer_cpu = plan_tracer_cpu(x->a->tracer_cpu);
	x->t.tool_ready = x->a->tool_ready;
	x->t.tool_hits = x->a->tool_hits;
	plan_bind(&x->t, c->workload, load_path);
	if (!plan_hooks_ok(x->t.ops->hooks, x->t.workload, c->target, c->reason, sizeof(c->reason))) {
		c->status = CELL_SKIPPED;
		return -1;
	}
	rc = tracer_supported(&x->t, c->reason, sizeof(c->reason));
	if (rc != TT_OK) {
		c->status = rc == TT_SKIP ? CELL_SKIPPED : CELL_FAILED;
		return -1;
	}
	/* the syscall the workload's ops make, seen by the kernel once per run */
	if (syscheck_workload(c->workload, load_path, c->verified_syscall, sizeof(c->verified_syscall),
			      err, sizeof(err)) == SYSCHECK_MISMATCH)
		return cell_fail(c, "%s", err);
	vmstat_init(&x->vm, c->threads);
	if (workload_find(c->workload)->cmd) {
		if (cmdload_prepare(x))
			return -1;
	} else if (x->a->iterations) {
		x->base.spec.iterations = x->traced.spec.iterations = x->a->iterations;
	} else if (cell_calibrate(x, false) || cell_calibrate(x, true)) {
		return -1;
	}
	if (!x->cmd) {
		x->base.spec.warmup = cell_warmup(x->base.spec.iterations);
		x->traced.spec.warmup = cell_warmup(x->traced.spec.iterations);
	}
	c->base_iterations = x->base.spec.iterations;
	c->base_warmup = x->base.spec.warmup;
	c->iterations = x->traced.spec.iterations;
	c->warmup = x->traced.spec.warmup;
	return 0;
}

static void cell_run(struct cell *c, const struct plan_cell *pc, const struct measure_opts *a,
		     const char *load_path, uint64_t deadline, struct stats_cost *cost,
		     uint64_t tsc_hz)
{
	struct cell_ctx x = { .c = c, .pc = pc, .a = a, .deadline = deadline };

	cell_init(c, pc, a);
	x.base.spec.tsc_hz = x.traced.spec.tsc_hz = tsc_hz;
	watch_begin(&x);
	if (c->status == CELL_OK && !cell_prepare(&x, load_path) && !cell_setup(&x)) {
		/*
		 * After the reps, apart from them: neither timing every call nor
		 * BPF stats may touch their figures, and a failure there costs
		 * only what that step would have added (cell_keep_reps).
		 */
		if (!run_reps(&x) && !after_reps(&x))
			progstats_pass(&x, cost);
		x.t.phase = NULL;
		snprintf(c->tracer_note, sizeof(c->tracer_note), "%s", x.t.note);
		cell_teardown(&x);
	}
	cmdload_release(&x);
	watch_end(&x);
}

static void progress_line(FILE *f, int i, int n, const struct cell *c, bool precision)
{
	if (!f)
		return;
	fprintf(f, "[%d/%d] %-22s %-7s %2dT  %s", i + 1, n, c->tracer, c->workload, c->threads,
		cell_status_name(c->status));
	if (c->status == CELL_OK && precision)
		fprintf(f, ", %d reps, +-%.3g%%: %s", c->nreps, c->reached_pct, cell_end_phrase(c->ended_by));
	fprintf(f, "%s%s\n", *c->reason ? ": " : "", c->reason);
	fflush(f);
}

int runner_run(const struct plan *p, const struct measure_opts *a, const char *load_path,
	       struct results *r, FILE *progress)
{
	uint64_t t0 = now_ns(), budget_end = t0 + (uint64_t)a->max_time_s * 1000000000ull;
	int failed = 0, disturbed = 0;

	r->cells = calloc((size_t)p->n + 1, sizeof(*r->cells));
	if (!r->cells)
		die("out of memory");
	r->opts.reps = a->reps;
	r->opts.run_ms = a->run_ms;
	r->opts.iterations = a->iterations;
	r->opts.seed = a->seed;
	r->opts.precision = a->precision;
	r->opts.max_time_s = a->precision > 0 ? a->max_time_s : 0;
	r->opts.latency = a->latency;
	r->opts.msg_size = a->msg_size;
	snprintf(r->opts.target, sizeof(r->opts.target), "%s", a->target ? a->target : "");
	snprintf(r->opts.tracer_cpu, sizeof(r->opts.tracer_cpu), "%s", a->tracer_cpu);
	for (int i = 0; i < p->n && !signals_interrupted(); i++) {
		struct cell *c = &r->cells[i];
		uint64_t now = now_ns();
		/* what is left of the budget, shared fairly by the cells still to run */
		uint64_t share = budget_end > now ? (budget_end - now) / (uint64_t)(p->n - i) : 0;

		r->ncells = i + 1;
		cell_run(c, &p->cells[i], a, load_path, now + share, &r->stats_cost,
			 (uint64_t)r->timing.tsc_hz);
		results_finish_cell(c, c->seed);
		failed |= c->status == CELL_FAILED;
		disturbed |= c->disturbed;
		progress_line(progress, i, p->n, c, a->precision > 0);
	}
	results_finish(r);
	r->elapsed_s = (double)(now_ns() - t0) / 1e9;
	signals_doing(NULL);
	if (signals_interrupted())
		return 128 + signals_interrupted();
	return exit_worst(failed ? EXIT_FAILED : EXIT_OK, disturbed ? EXIT_DISTURBED : EXIT_OK);
}
