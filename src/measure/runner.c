/*
 * The runner executes the plan's cells, one at a time. Per cell: calibrate
 * the baseline and the traced side separately to --run-ms, set the tracer
 * up once, run reps -- a baseline and a traced run back to back, in the
 * order the plan drew -- and tear the tracer down, on every path. With
 * --precision, reps are added until the overhead's CI is narrow enough or
 * the cell's share of --max-time is spent.
 */
#include <math.h>
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
	c->hits_upto = x->t.ops->flags & TT_F_HITS_UPTO;
	x->t.threads = c->threads;
	x->t.tracer_cpu = plan_tracer_cpu(x->a->tracer_cpu);
	x->t.tool_ready = x->a->tool_ready;
	x->t.tool_hits = x->a->tool_hits;
	x->t.audit_rules = x->a->audit_rules;
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

/*
 * A cell across the rounds: prepared (tracer found, sides calibrated) at
 * its first visit, set up and torn down at every visit, finished after its
 * last.
 */
struct slot {
	struct cell_ctx x;
	bool started, done;
	uint64_t visit_ns;      /* its last visit's time: will the next fit the budget */
};

struct rounds_run {
	const struct plan *p;
	const struct measure_opts *a;
	const char *load_path;
	struct results *r;
	FILE *progress;
	struct slot *s;
	int finished;           /* cells done, for the progress lines */
	uint64_t budget_end;
};

static void finish_slot(struct rounds_run *rr, struct slot *s)
{
	struct cell *c = s->x.c;

	s->done = true;
	cmdload_release(&s->x);
	results_finish_cell(c, c->seed);
	progress_line(rr->progress, rr->finished++, rr->p->n, c, rr->a->precision > 0);
}

/* die() inside a set-up cell (out of memory): its tracer torn down first. */
static void teardown_on_die(void *arg)
{
	struct cell_ctx *x = arg;

	cell_teardown(x);
	cmdload_release(x);
}

/*
 * One visit of a cell in round @round: set up, @reps reps, and when it is
 * the cell's last (@last, or --precision reached) the runs that come after
 * the reps (--latency, BPF stats), then teardown. @why: what ends the cell
 * when this visit is its last.
 */
static void visit(struct rounds_run *rr, struct slot *s, int round, int reps, bool last,
		  enum cell_end why)
{
	struct cell_ctx *x = &s->x;
	struct cell *c = x->c;
	const struct measure_opts *a = rr->a;
	uint64_t t0 = now_ns();
	bool ok = true;

	watch_begin(x);
	if (!s->started) {
		s->started = true;
		x->base.spec.tsc_hz = x->traced.spec.tsc_hz = (uint64_t)rr->r->timing.tsc_hz;
		if (cell_prepare(x, rr->load_path))
			ok = false;
	}
	if (ok && cell_setup(x))
		ok = false;
	if (ok) {
		die_hook_set(teardown_on_die, x);
		x->round = round;
		signals_doing("running cell '%s'", x->pc->id);
		for (int k = 0; k < reps && ok; k++) {
			x->round_rep = k;
			if (signals_interrupted() || cell_rep(x, c->nreps))
				ok = false;
			else
				watch_check(x);
		}
		if (ok && !last && a->precision > 0 && !c->aa && round + 1 >= plan_rounds(a) &&
		    results_reached_pct(c) <= a->precision) {
			last = true;
			why = END_PRECISION;
		}
		if (ok && !last && c->nreps + plan_round_reps(a, 0) > RESULTS_MAX_REPS) {
			last = true;
			why = END_MAX_REPS;
		}
		/* after the reps, apart from them: neither timing every call nor BPF
		 * stats may touch their figures */
		if (ok && last) {
			c->ended_by = why;
			/* a failure here costs only what that step adds (cell_keep_reps) */
			if (!after_reps(x))
				progstats_pass(x, &rr->r->stats_cost);
		}
		snprintf(c->tracer_note, sizeof(c->tracer_note), "%s", x->t.note);
		if (x->t.rules_digest[0]) {
			snprintf(c->audit_rules.file, sizeof(c->audit_rules.file), "%s", x->t.audit_rules);
			snprintf(c->audit_rules.digest, sizeof(c->audit_rules.digest), "%s",
				 x->t.rules_digest);
			c->audit_rules.rules = x->t.rules_loaded;
		}
		cell_teardown(x);
		die_hook_set(NULL, NULL);
	}
	watch_end(x);
	s->visit_ns = now_ns() - t0;
	if (!ok || last || signals_interrupted())
		finish_slot(rr, s);
}

/* --precision, A/A cells aside: is any cell still after its target */
static bool any_measuring(const struct rounds_run *rr)
{
	for (int i = 0; i < rr->p->n; i++)
		if (!rr->s[i].done && !rr->s[i].x.c->aa)
			return true;
	return false;
}

/*
 * The plan in rounds (docs/method.md §5c): each round visits every cell
 * still measuring, in an order of its own. Without --precision a cell's
 * last round is the plan's; with it, a cell ends once its interval is
 * narrow enough after the plan's rounds, or when the next round would
 * overrun --max-time. The A/A cells run in every round while any other
 * cell does: the noise floor comes from the same rounds.
 */
static void run_rounds(struct rounds_run *rr)
{
	const struct measure_opts *a = rr->a;
	int R = plan_rounds(a), n = rr->p->n;
	int *order = calloc((size_t)n + 1, sizeof(*order));
	enum cell_end why = END_REPS;
	uint64_t round_ns = 0;

	if (!order)
		die("out of memory");
	for (int round = 0; !signals_interrupted(); round++) {
		uint64_t t0 = now_ns();

		if (round >= R && !(a->precision > 0))
			break;
		if (round >= R && !any_measuring(rr)) {
			why = END_PRECISION;
			break;
		}
		if (round >= R && now_ns() + round_ns > rr->budget_end) {
			why = END_MAX_TIME;
			break;
		}
		plan_round_order(rr->p, a, round, order);
		if (rr->progress && (R > 1 || a->precision > 0))
			fprintf(rr->progress, "round %d%s%d\n", round + 1, round < R ? "/" : ", after ",
				R);
		for (int i = 0; i < n && !signals_interrupted(); i++) {
			struct slot *s = &rr->s[order[i]];

			if (s->done)
				continue;
			if (round >= R && now_ns() + s->visit_ns > rr->budget_end) {
				visit(rr, s, round, 0, true, END_MAX_TIME);
				continue;
			}
			visit(rr, s, round, plan_round_reps(a, round),
			      !(a->precision > 0) && round == R - 1, END_REPS);
		}
		round_ns = now_ns() - t0;
	}
	/* what is left: A/A cells once no other measures, cells out of time */
	for (int i = 0; i < n && !signals_interrupted(); i++)
		if (!rr->s[i].done && rr->s[i].started)
			visit(rr, &rr->s[i], -1, 0, true,
			      why == END_PRECISION && rr->s[i].x.c->aa &&
			      results_reached_pct(rr->s[i].x.c) > a->precision ? END_REPS : why);
	free(order);
}

/* What the audit cells left behind, after every cell put audit back: once a run. */
static void audit_residue(struct audit_residue *ar)
{
	double b, n, a;
	bool on;

	*ar = (struct audit_residue){ .before_ns = NAN, .never_ns = NAN, .after_ns = NAN };
	if (!tracers_audit_residue(&b, &n, &a, &on))
		return;
	ar->measured = true;
	ar->was_on = on;
	ar->before_ns = b >= 0 ? b : NAN;
	ar->never_ns = n >= 0 ? n : NAN;
	ar->after_ns = a >= 0 ? a : NAN;
}

int runner_run(const struct plan *p, const struct measure_opts *a, const char *load_path,
	       struct results *r, FILE *progress)
{
	uint64_t t0 = now_ns();
	struct rounds_run rr = { .p = p, .a = a, .load_path = load_path, .r = r,
				 .progress = progress,
				 .budget_end = t0 + (uint64_t)a->max_time_s * 1000000000ull };
	int failed = 0, disturbed = 0;

	r->cells = calloc((size_t)p->n + 1, sizeof(*r->cells));
	rr.s = calloc((size_t)p->n + 1, sizeof(*rr.s));
	if (!r->cells || !rr.s)
		die("out of memory");
	r->opts.reps = a->reps;
	r->opts.rounds = plan_rounds(a);
	r->opts.run_ms = a->run_ms;
	r->opts.iterations = a->iterations;
	r->opts.seed = a->seed;
	r->opts.precision = a->precision;
	r->opts.max_time_s = a->precision > 0 ? a->max_time_s : 0;
	r->opts.latency = a->latency;
	r->opts.msg_size = a->msg_size;
	snprintf(r->opts.target, sizeof(r->opts.target), "%s", a->target ? a->target : "");
	snprintf(r->opts.tracer_cpu, sizeof(r->opts.tracer_cpu), "%s", a->tracer_cpu);
	r->ncells = p->n;
	for (int i = 0; i < p->n; i++) {
		struct slot *s = &rr.s[i];

		s->x = (struct cell_ctx){ .c = &r->cells[i], .pc = &p->cells[i], .a = a,
					  .deadline = UINT64_MAX };
		cell_init(&r->cells[i], &p->cells[i], a);
	}
	run_rounds(&rr);
	for (int i = 0; i < p->n; i++) {
		struct cell *c = &r->cells[i];

		if (!rr.s[i].started) {
			/* interrupted before its first round came */
			c->status = CELL_SKIPPED;
			snprintf(c->reason, sizeof(c->reason), "not run: interrupted");
		}
		if (!rr.s[i].done)
			finish_slot(&rr, &rr.s[i]);
		failed |= c->status == CELL_FAILED;
		disturbed |= c->disturbed;
	}
	free(rr.s);
	audit_residue(&r->audit_residue);
	results_finish(r);
	r->elapsed_s = (double)(now_ns() - t0) / 1e9;
	signals_doing(NULL);
	if (signals_interrupted())
		return 128 + signals_interrupted();
	return exit_worst(failed ? EXIT_FAILED : EXIT_OK, disturbed ? EXIT_DISTURBED : EXIT_OK);
}
