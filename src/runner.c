/*
 * The runner executes the plan's cells, one at a time. Per cell: calibrate
 * the baseline and the traced side separately to --run-ms, set the tracer
 * up once, run reps -- a baseline and a traced run back to back, in the
 * order the plan drew -- and tear the tracer down, on every path. With
 * --precision, reps are added until the overhead's CI is narrow enough or
 * the cell's share of --max-time is spent.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "activity.h"
#include "child.h"
#include "plan.h"
#include "runner.h"
#include "signals.h"
#include "stats.h"
#include "tracer.h"
#include "util.h"
#include "vmstat.h"

/* A calibration run shorter than this is too coarse to extrapolate from. */
#define CALIBRATE_MIN_NS 20000000ull

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
	const struct run_args *a;
	struct vmstat vm;
	uint64_t deadline;  /* --precision: the cell's share of --max-time ends here */
	struct activity before;	/* what else traced when the cell began */
	bool watching;
};

__attribute__((format(printf, 2, 3)))
static int cell_fail(struct cell *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->reason, sizeof(c->reason), fmt, ap);
	va_end(ap);
	c->status = CELL_FAILED;
	return -1;
}

static int result_timeout_ms(const struct side *s)
{
	if (s->expect_ms <= 0)
		return 600000;	/* calibrating or fixed --iterations: stay bounded */
	return (int)(s->expect_ms * 20 > 30000 ? s->expect_ms * 20 : 30000);
}

__attribute__((format(printf, 2, 3)))
static void cell_disturbed(struct cell *c, const char *fmt, ...)
{
	va_list ap;

	if (c->disturbed)
		return;	/* the first change tells; the rest follow from it */
	c->disturbed = true;
	va_start(ap, fmt);
	vsnprintf(c->disturbed_by, sizeof(c->disturbed_by), fmt, ap);
	va_end(ap);
}

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

/* Describes how a workload ended when it did not exit 0. */
static void describe_status(int st, char *buf, size_t len)
{
	if (WIFSIGNALED(st))
		snprintf(buf, len, "workload killed by signal %d", WTERMSIG(st));
	else if (WIFEXITED(st))
		snprintf(buf, len, "workload exited with status %d%s", WEXITSTATUS(st),
			 WEXITSTATUS(st) == 125 ? " (tracer's child setup failed)" :
			 WEXITSTATUS(st) == 127 ? " (cannot exec tracetax-load)" : "");
	else
		snprintf(buf, len, "workload ended with wait status %d", st);
}

/*
 * One run of the workload, traced when @t is set. The tracer is started
 * after the workload is ready and stopped after it exited; stop() is called
 * whenever start() was, so that tracer threads are always joined.
 */
static int run_once(struct cell_ctx *x, struct tracer *t, struct load_result *res,
		    struct tt_hits *hits)
{
	const struct side *s = t ? &x->traced : &x->base;
	struct load_proc lp;
	int started = 0, ret = -1, st;
	pid_t tracer_pid;
	char why[256] = "";

	memset(hits, 0, sizeof(*hits));
	hits->hits = -1;
	hits->stops = -1;
	if (load_spawn(&lp, &s->spec, t)) {
		snprintf(why, sizeof(why), "%s", lp.err);
		goto out;
	}
	if (t && tracer_spawned(t, lp.pid)) {
		snprintf(why, sizeof(why), "tracer '%s' failed: %s", t->name, t->err);
		goto out;
	}
	if (load_wait_ready(&lp, 10000)) {
		snprintf(why, sizeof(why), "%s", lp.err);
		goto out;
	}
	/* an untraced run has no ptracer of ours: any is someone else's */
	if (!t && (tracer_pid = activity_ptracer(lp.pid, 0)))
		cell_disturbed(x->c, "appeared: ptracer pid %d of the workload", (int)tracer_pid);
	if (t) {
		started = 1;
		t->load_recorded = -1;
		if (tracer_start(t, lp.pid)) {
			snprintf(why, sizeof(why), "tracer '%s' cannot start: %s", t->name, t->err);
			goto out;
		}
	}
	if (load_go(&lp) || load_read_result(&lp, result_timeout_ms(s), res) ||
	    load_wait_exit(&lp, 10000)) {
		snprintf(why, sizeof(why), "%s", lp.err);
		goto out;
	}
	if (t)
		t->load_recorded = res->recorded;
	ret = 0;
out:
	if (ret)
		load_kill(&lp);
	if (started && tracer_stop(t, hits) && !ret) {
		snprintf(why, sizeof(why), "tracer '%s' failed: %s", t->name, t->err);
		ret = -1;
	}
	st = load_reap(&lp);
	if (!ret && st != 0) {
		describe_status(st, why, sizeof(why));
		ret = -1;
	}
	if (!ret && res->bad)
		snprintf(why, sizeof(why), "%lld ops of the workload returned unexpected results",
			 (long long)res->bad), ret = -1;
	if (ret)
		cell_fail(x->c, "%s%s", signals_interrupted() ? "interrupted: " : "", why);
	return ret;
}

static int64_t warmup_for(int64_t iterations)
{
	int64_t w = iterations / 10;

	return w < 100 ? 100 : w > 100000 ? 100000 : w;
}

/* Set up for the traced side's runs; on failure the wrapper has torn down. */
static int cell_setup(struct cell_ctx *x)
{
	struct tracer *t = &x->t;
	int r;

	t->events_hint = (int64_t)x->traced.spec.threads *
			 (x->traced.spec.iterations + x->traced.spec.warmup);
	signals_doing("setting up tracer '%s'", t->name);
	r = tracer_setup(t);
	if (r == TT_SKIP) {
		x->c->status = CELL_SKIPPED;
		snprintf(x->c->reason, sizeof(x->c->reason), "%s", t->err);
		return -1;
	}
	if (r)
		return cell_fail(x->c, "tracer '%s' setup failed: %s", t->name, t->err);
	return 0;
}

static void cell_teardown(struct cell_ctx *x)
{
	signals_doing("tearing down tracer '%s'", x->t.name);
	tracer_teardown(&x->t);
}

/*
 * Grows one side's iteration count until a run is long enough to time,
 * then sizes it to --run-ms. Each side on its own: a tracer at x78 would
 * otherwise leave its baseline runs a millisecond long, all timer ticks.
 */
static int calibrate(struct cell_ctx *x, bool traced)
{
	struct side *s = traced ? &x->traced : &x->base;
	struct load_result res;
	struct tt_hits hits;
	int64_t n = 1000;
	int ret = -1;

	s->spec.iterations = n;	/* sizes the tracer's buffers for the first run */
	s->spec.warmup = 100;
	if (traced && cell_setup(x))
		return -1;
	for (;;) {
		double ns, grow;

		s->spec.iterations = n;
		if (run_once(x, traced ? &x->t : NULL, &res, &hits))
			break;
		ns = res.max_thread_ns;
		if (ns >= CALIBRATE_MIN_NS || n >= 1000000000) {
			double per_op = ns / (double)n;
			int64_t want = (int64_t)((double)x->a->run_ms * 1e6 / per_op);

			s->spec.iterations = want < 100 ? 100 : want;
			s->expect_ms = (double)s->spec.iterations * per_op / 1e6;
			ret = 0;
			break;
		}
		/* aim at 1.5x the minimum next time, growing at most 100x a step */
		grow = ns > 0 ? CALIBRATE_MIN_NS * 1.5 / ns + 1 : 100;
		n *= (int64_t)(grow < 100 ? grow : 100);
	}
	if (traced)
		cell_teardown(x);
	return ret;
}

static int add_rep(struct cell *c, const struct rep *r)
{
	if (c->nreps == c->cap_reps) {
		int cap = c->cap_reps ? 2 * c->cap_reps : 8;
		struct rep *n = realloc(c->reps, (size_t)cap * sizeof(*n));

		if (!n)
			return cell_fail(c, "out of memory");
		c->reps = n;
		c->cap_reps = cap;
	}
	c->reps[c->nreps++] = *r;
	return 0;
}

static void note_mhz(struct rep *r, double mhz)
{
	if (isnan(mhz))
		return;
	if (isnan(r->mhz_min) || mhz < r->mhz_min)
		r->mhz_min = mhz;
	if (isnan(r->mhz_max) || mhz > r->mhz_max)
		r->mhz_max = mhz;
}

/* One rep: both runs in the plan's order, with the machine read around them. */
static int run_rep(struct cell_ctx *x, int i)
{
	struct load_result base, tr;
	struct tt_hits h, none;
	struct vm_sample v0, v1, v2;
	struct rep r = { .steal_ms = NAN, .mhz_min = NAN, .mhz_max = NAN };
	uint64_t t0 = now_ns();
	int bad;

	r.traced_first = plan_traced_first(x->pc, i);
	vmstat_sample(&x->vm, &v0);
	if (r.traced_first) {
		bad = run_once(x, &x->t, &tr, &h);
		vmstat_sample(&x->vm, &v1);
		bad = bad || run_once(x, NULL, &base, &none);
	} else {
		bad = run_once(x, NULL, &base, &none);
		vmstat_sample(&x->vm, &v1);
		bad = bad || run_once(x, &x->t, &tr, &h);
	}
	if (bad)
		return -1;
	vmstat_sample(&x->vm, &v2);
	r.wall_ms = (double)(now_ns() - t0) / 1e6;
	r.steal_ms = vmstat_steal_ms(&x->vm, &v0, &v2);
	note_mhz(&r, v0.mhz);
	note_mhz(&r, v1.mhz);
	note_mhz(&r, v2.mhz);
	r.base_ns_per_op = base.ns_per_op;
	r.traced_ns_per_op = tr.ns_per_op;
	r.base_cycles_per_op = base.cycles_per_op;
	r.traced_cycles_per_op = tr.cycles_per_op;
	r.events = tr.events;
	r.hits = h.hits;
	r.lost = h.lost;
	r.stops = h.stops;
	r.consumer_ns = h.consumer_ns;
	return add_rep(x->c, &r);
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

		if (signals_interrupted() || run_rep(x, c->nreps))
			return -1;
		watch_check(x);
		rep_ns = now_ns() - t0;
	}
	return 0;
}

static void cell_init(struct cell *c, const struct plan_cell *pc, const struct run_args *a)
{
	snprintf(c->workload, sizeof(c->workload), "%s", pc->workload);
	snprintf(c->tracer, sizeof(c->tracer), "%s", pc->tracer);
	snprintf(c->target, sizeof(c->target), "%s", pc->target);
	snprintf(c->id, sizeof(c->id), "%s", pc->id);
	c->threads = pc->threads;
	c->seed = pc->seed;
	c->precision_pct = a->precision;
	c->ended_by = END_STOPPED;
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
	if (tracer_init(&x->t, c->tracer, *c->target ? tt_syscall_find(c->target) : NULL, err,
			sizeof(err)))
		return cell_fail(c, "%s", err);
	c->aa = x->t.ops->flags & TT_F_AA;
	x->t.threads = c->threads;
	x->t.tracer_cpu = plan_tracer_cpu(x->a->tracer_cpu);
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
	vmstat_init(&x->vm, c->threads);
	if (x->a->iterations) {
		x->base.spec.iterations = x->traced.spec.iterations = x->a->iterations;
	} else if (calibrate(x, false) || calibrate(x, true)) {
		return -1;
	}
	x->base.spec.warmup = warmup_for(x->base.spec.iterations);
	x->traced.spec.warmup = warmup_for(x->traced.spec.iterations);
	c->base_iterations = x->base.spec.iterations;
	c->base_warmup = x->base.spec.warmup;
	c->iterations = x->traced.spec.iterations;
	c->warmup = x->traced.spec.warmup;
	return 0;
}

static void cell_run(struct cell *c, const struct plan_cell *pc, const struct run_args *a,
		     const char *load_path, uint64_t deadline)
{
	struct cell_ctx x = { .c = c, .pc = pc, .a = a, .deadline = deadline };

	cell_init(c, pc, a);
	watch_begin(&x);
	if (!cell_prepare(&x, load_path) && !cell_setup(&x)) {
		run_reps(&x);
		snprintf(c->tracer_note, sizeof(c->tracer_note), "%s", x.t.note);
		cell_teardown(&x);
	}
	watch_end(&x);
}

static const char *end_name(enum cell_end e)
{
	switch (e) {
	case END_PRECISION: return "precision reached";
	case END_MAX_TIME:  return "time share spent";
	case END_MAX_REPS:  return "most reps";
	default:            return "";
	}
}

static void progress_line(FILE *f, int i, int n, const struct cell *c, bool precision)
{
	if (!f)
		return;
	fprintf(f, "[%d/%d] %-22s %-7s %2dT  %s", i + 1, n, c->tracer, c->workload, c->threads,
		c->status == CELL_OK ? "ok" : c->status == CELL_SKIPPED ? "skipped" : "failed");
	if (c->status == CELL_OK && precision)
		fprintf(f, ", %d reps, +-%.3g%%: %s", c->nreps, c->reached_pct, end_name(c->ended_by));
	fprintf(f, "%s%s\n", *c->reason ? ": " : "", c->reason);
	fflush(f);
}

int runner_run(const struct plan *p, const struct run_args *a, const char *load_path,
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
	snprintf(r->opts.target, sizeof(r->opts.target), "%s", a->target ? a->target : "");
	snprintf(r->opts.tracer_cpu, sizeof(r->opts.tracer_cpu), "%s", a->tracer_cpu);
	for (int i = 0; i < p->n && !signals_interrupted(); i++) {
		struct cell *c = &r->cells[i];
		uint64_t now = now_ns();
		/* what is left of the budget, shared fairly by the cells still to run */
		uint64_t share = budget_end > now ? (budget_end - now) / (uint64_t)(p->n - i) : 0;

		r->ncells = i + 1;
		cell_run(c, &p->cells[i], a, load_path, now + share);
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
	return failed ? EXIT_FAILED : disturbed ? EXIT_DISTURBED : EXIT_OK;
}
