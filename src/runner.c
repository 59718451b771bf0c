/*
 * The runner: for each cell, calibrate iterations to --run-ms under the
 * tracer, then run --reps pairs of baseline and traced runs in a seeded
 * random order (A B B A ...), so that the drift of a shared machine cancels.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "child.h"
#include "plan.h"
#include "runner.h"
#include "signals.h"
#include "tracer.h"
#include "util.h"


/* A calibration run shorter than this is too coarse to extrapolate from. */
#define CALIBRATE_MIN_NS 20000000ull

struct cell_ctx {
	struct cell *c;
	struct tracer t;
	struct load_spec spec;
	const struct run_args *a;
	double expect_ms;   /* how long a traced run should take, for timeouts */
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

static int result_timeout_ms(const struct cell_ctx *x)
{
	if (x->expect_ms <= 0)
		return 600000;	/* fixed --iterations: we cannot know; stay bounded */
	return (int)(x->expect_ms * 20 > 30000 ? x->expect_ms * 20 : 30000);
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
	struct load_proc lp;
	int started = 0, ret = -1, st;
	char why[256] = "";

	memset(hits, 0, sizeof(*hits));
	hits->hits = -1;
	hits->stops = -1;
	if (load_spawn(&lp, &x->spec, t)) {
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
	if (t) {
		started = 1;
		t->load_recorded = -1;
		if (tracer_start(t, lp.pid)) {
			snprintf(why, sizeof(why), "tracer '%s' cannot start: %s", t->name, t->err);
			goto out;
		}
	}
	if (load_go(&lp) || load_read_result(&lp, result_timeout_ms(x), res) ||
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

/* Set up; on failure the wrapper has torn down already. */
static int cell_setup(struct cell_ctx *x)
{
	struct tracer *t = &x->t;
	int r;

	t->events_hint = (int64_t)x->spec.threads * (x->spec.iterations + x->spec.warmup);
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

/* Grows the iteration count under the tracer until one run is long enough to time. */
static int calibrate(struct cell_ctx *x)
{
	struct load_result res;
	struct tt_hits hits;
	int64_t n = 1000;

	x->spec.iterations = n;	/* sizes the tracer's buffers for the first run */
	x->spec.warmup = 100;
	if (cell_setup(x))
		return -1;
	for (;;) {
		double ns, grow;

		x->spec.iterations = n;
		if (run_once(x, &x->t, &res, &hits))
			break;
		ns = res.max_thread_ns;
		if (ns >= CALIBRATE_MIN_NS || n >= 1000000000) {
			double per_op = ns / (double)n;
			int64_t want = (int64_t)((double)x->a->run_ms * 1e6 / per_op);

			x->spec.iterations = want < 100 ? 100 : want;
			x->expect_ms = (double)x->spec.iterations * per_op / 1e6;
			tracer_teardown(&x->t);
			return 0;
		}
		/* aim at 1.5x the minimum next time, growing at most 100x a step */
		grow = ns > 0 ? CALIBRATE_MIN_NS * 1.5 / ns + 1 : 100;
		n *= (int64_t)(grow < 100 ? grow : 100);
	}
	tracer_teardown(&x->t);
	return -1;
}

static void add_rep(struct cell *c, const struct load_result *base, const struct load_result *tr,
		    const struct tt_hits *h, bool traced_first)
{
	struct rep *r = &c->reps[c->nreps++];

	r->base_ns_per_op = base->ns_per_op;
	r->traced_ns_per_op = tr->ns_per_op;
	r->base_cycles_per_op = base->cycles_per_op;
	r->traced_cycles_per_op = tr->cycles_per_op;
	r->events = tr->events;
	r->hits = h->hits;
	r->lost = h->lost;
	r->stops = h->stops;
	r->consumer_ns = h->consumer_ns;
	r->traced_first = traced_first;
}

static int run_reps(struct cell_ctx *x, struct tt_rng *rng)
{
	struct cell *c = x->c;

	c->reps = calloc((size_t)x->a->reps, sizeof(*c->reps));
	if (!c->reps)
		return cell_fail(c, "out of memory");
	for (int i = 0; i < x->a->reps; i++) {
		struct load_result base, tr;
		struct tt_hits h, none;
		bool traced_first = rng_below(rng, 2);
		int bad;

		if (traced_first)
			bad = run_once(x, &x->t, &tr, &h) || run_once(x, NULL, &base, &none);
		else
			bad = run_once(x, NULL, &base, &none) || run_once(x, &x->t, &tr, &h);
		if (bad)
			return -1;
		add_rep(c, &base, &tr, &h, traced_first);
	}
	return 0;
}


static void cell_run(struct cell *c, const struct run_args *a, const char *load_path,
		     struct tt_rng *rng)
{
	struct cell_ctx x = { .c = c, .a = a };
	char err[256];

	x.spec.load_path = load_path;
	x.spec.workload = c->workload;
	x.spec.threads = c->threads;
	if (tracer_init(&x.t, c->tracer, *c->target ? tt_syscall_find(c->target) : NULL, err,
			sizeof(err))) {
		cell_fail(c, "%s", err);
		return;
	}
	x.t.threads = c->threads;
	x.t.tracer_cpu = plan_tracer_cpu(a->tracer_cpu);
	plan_bind(&x.t, c->workload, load_path);
	if (!plan_hooks_ok(x.t.ops->hooks, x.t.workload, c->target, c->reason, sizeof(c->reason))) {
		c->status = CELL_SKIPPED;
		return;
	}
	if (tracer_supported(&x.t, c->reason, sizeof(c->reason)) != TT_OK) {
		c->status = CELL_SKIPPED;
		return;
	}
	if (a->iterations) {
		x.spec.iterations = a->iterations;
	} else if (calibrate(&x)) {
		return;
	}
	x.spec.warmup = warmup_for(x.spec.iterations);
	c->iterations = x.spec.iterations;
	c->warmup = x.spec.warmup;
	if (!cell_setup(&x)) {
		run_reps(&x, rng);
		tracer_teardown(&x.t);
	}
}


static void progress_line(FILE *f, int i, int n, const struct cell *c)
{
	if (!f)
		return;
	fprintf(f, "[%d/%d] %-22s %-7s %2dT  %s%s%s\n", i + 1, n, c->tracer, c->workload, c->threads,
		c->status == CELL_OK ? "ok" : c->status == CELL_SKIPPED ? "skipped" : "failed",
		*c->reason ? ": " : "", c->reason);
	fflush(f);
}

int runner_run(const struct run_args *a, const char *load_path, struct results *r, FILE *progress)
{
	int n = 0, failed = 0;
	uint64_t t0 = now_ns();
	struct tt_rng rng;

	rng_seed(&rng, a->seed);
	r->cells = calloc((size_t)(a->nworkloads * a->ntracers * a->nthreads), sizeof(*r->cells));
	if (!r->cells)
		die("out of memory");
	r->opts.reps = a->reps;
	r->opts.run_ms = a->run_ms;
	r->opts.iterations = a->iterations;
	r->opts.seed = a->seed;
	snprintf(r->opts.target, sizeof(r->opts.target), "%s", a->target ? a->target : "");
	snprintf(r->opts.tracer_cpu, sizeof(r->opts.tracer_cpu), "%s", a->tracer_cpu);
	/* the plan first, so that progress can say "[3/24]" */
	for (int w = 0; w < a->nworkloads; w++)
		for (int th = 0; th < a->nthreads; th++)
			for (int k = 0; k < a->ntracers; k++) {
				struct cell *c = &r->cells[n];

				if (a->tracers_default && !plan_fits(a, a->workloads[w], a->tracers[k]))
					continue;
				snprintf(c->workload, sizeof(c->workload), "%s", a->workloads[w]);
				snprintf(c->tracer, sizeof(c->tracer), "%s", a->tracers[k]);
				snprintf(c->target, sizeof(c->target), "%s", plan_target(a, a->workloads[w]));
				c->threads = a->threads[th];
				n++;
			}
	for (int i = 0; i < n; i++) {
		struct cell *c = &r->cells[i];

		if (signals_interrupted())
			break;
		r->ncells = i + 1;
		cell_run(c, a, load_path, &rng);
		results_finish_cell(c, a->seed);
		failed |= c->status == CELL_FAILED;
		progress_line(progress, i, n, c);
	}
	r->elapsed_s = (double)(now_ns() - t0) / 1e9;
	if (signals_interrupted())
		return 128 + signals_interrupted();
	return failed ? 1 : 0;
}

void results_release(struct results *r)
{
	for (int i = 0; i < r->ncells; i++)
		free(r->cells[i].reps);
	free(r->cells);
	r->cells = NULL;
	r->ncells = 0;
}
