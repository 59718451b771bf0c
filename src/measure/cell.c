/* One cell's runs: see cell.h. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <sched.h>

#include "base/cpus.h"
#include "measure/cell.h"
#include "measure/cmdload.h"
#include "base/hist.h"
#include "base/signals.h"
#include "base/util.h"

/*
 * A tracepoint that --target names fires per segment, ACK or packet, not
 * per op: buffers are sized for this many hits per event, and a run that
 * needs more shows as lost events.
 */
#define TP_HITS_PER_EVENT 4

/* A calibration run shorter than this is too coarse to extrapolate from. */
#define CALIBRATE_MIN_NS 20000000ull
/* ...unless it made this many ops: calibration grows no further. */
#define CALIBRATE_MAX_OPS 1000000000

int cell_fail(struct cell *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->reason, sizeof(c->reason), fmt, ap);
	va_end(ap);
	c->status = CELL_FAILED;
	return -1;
}

/*
 * A tracer's name for a reason: a cmd: template may be 4000 characters,
 * and quoted whole it would push the reason itself out of the cell's.
 */
static const char *short_name(const struct tracer *t, char *buf, size_t len)
{
	if (strlen(t->name) < len)
		return t->name;
	snprintf(buf, len, "%.*s...", (int)len - 4, t->name);
	return buf;
}

static int result_timeout_ms(const struct side *s)
{
	if (s->expect_ms <= 0)
		return 600000;	/* calibrating or fixed --iterations: stay bounded */
	return (int)(s->expect_ms * 20 > 30000 ? s->expect_ms * 20 : 30000);
}

void cell_disturbed(struct cell *c, const char *fmt, ...)
{
	va_list ap;

	if (c->disturbed)
		return;	/* the first change tells; the rest follow from it */
	c->disturbed = true;
	va_start(ap, fmt);
	vsnprintf(c->disturbed_by, sizeof(c->disturbed_by), fmt, ap);
	va_end(ap);
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
 * whenever start() was, so that tracer threads are always joined. A tool
 * that wraps the workload is stopped whenever it ran, even if the workload
 * never got ready: its own last words then tell why.
 */
static int run_once(struct cell_ctx *x, struct tracer *t, struct load_result *res,
		    struct tt_hits *hits)
{
	const struct side *s = t ? &x->traced : &x->base;
	struct load_proc lp;
	int started = 0, start_failed = 0, ret = -1, st, bad_status = 0;
	pid_t tracer_pid;
	char why[256] = "", nm[64];

	memset(res, 0, sizeof(*res));	/* released by the caller, whatever happens */
	memset(hits, 0, sizeof(*hits));
	hits->hits = -1;
	hits->stops = -1;
	hits->kernel_consumer_ns = NAN;
	hits->waited = -1;
	if (load_spawn(&lp, &s->spec, t)) {
		snprintf(why, sizeof(why), "%s", lp.err);
		goto out;
	}
	if (t && tracer_spawned(t, lp.pid)) {
		snprintf(why, sizeof(why), "tracer '%s' failed: %s", short_name(t, nm, sizeof(nm)),
				 t->err);
		goto out;
	}
	if (load_wait_ready(&lp, 10000) || (x->cmd && cmdload_ready(x->cmd, &lp))) {
		snprintf(why, sizeof(why), "%s", lp.err);
		goto out;
	}
	/* an untraced run has no ptracer of ours: any is someone else's */
	if (!t && (tracer_pid = activity_ptracer(lp.pid, 0)))
		cell_disturbed(x->c, "appeared: ptracer pid %d of the workload", (int)tracer_pid);
	if (t) {
		started = 1;
		t->load_recorded = -1;
		if (tracer_start(t, lp.load_pid)) {
			start_failed = 1;
			snprintf(why, sizeof(why), "tracer '%s' cannot start: %s",
				 short_name(t, nm, sizeof(nm)), t->err);
			goto out;
		}
	}
	if (x->cmd ? cmdload_go_wait(x->cmd, &lp, res) :
	    load_go(&lp) || load_read_result(&lp, result_timeout_ms(s), res) ||
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
	if ((started || lp.wrapped) && tracer_stop(t, hits)) {
		if (!ret)
			snprintf(why, sizeof(why), "tracer '%s' failed: %s", short_name(t, nm, sizeof(nm)),
				 t->err);
		else if ((lp.wrapped || (t->ops->flags & TT_F_TOOL)) && !start_failed)
			/* a tool's words say why */
			snprintf(why + strlen(why), sizeof(why) - strlen(why), " (%s)", t->err);
		ret = -1;
	}
	if (x->cmd)
		load_kill(&lp);	/* what the command left running: its group */
	st = load_reap(&lp);
	if (!ret && st != 0) {
		describe_status(st, why, sizeof(why));
		ret = -1;
		bad_status = 1;
	}
	if (ret && x->cmd)
		cmdload_failed(x->cmd, bad_status ? st : 0, why, sizeof(why));
	if (!ret && res->bad)
		snprintf(why, sizeof(why), "%lld ops of the workload returned unexpected results",
			 (long long)res->bad), ret = -1;
	if (ret)
		cell_fail(x->c, "%s%s", signals_interrupted() ? "interrupted: " : "", why);
	return ret;
}

int cell_run_traced(struct cell_ctx *x, struct load_result *res, struct tt_hits *hits)
{
	return run_once(x, &x->t, res, hits);
}

int cell_run_base(struct cell_ctx *x, struct load_result *res)
{
	struct tt_hits none;

	return run_once(x, NULL, res, &none);
}

int cell_keep_reps(struct cell_ctx *x, const char *step)
{
	struct cell *c = x->c;

	if (c->status != CELL_FAILED || signals_interrupted())
		return -1;
	tracer_note(&x->t, "%s failed, the reps' figures stand: %s", step, c->reason);
	c->status = CELL_OK;
	c->reason[0] = '\0';
	return -1;
}

int64_t cell_warmup(int64_t iterations)
{
	int64_t w = iterations / 10;

	return w < 100 ? 100 : w > 100000 ? 100000 : w;
}

/* The events the traced side's next run makes, for the tracer to size its buffers. */
static void events_hint_set(struct cell_ctx *x)
{
	struct tracer *t = &x->t;

	t->events_hint = (int64_t)x->traced.spec.threads *
			 (x->traced.spec.iterations + x->traced.spec.warmup);
	if (!t->target && *t->tp_system)
		t->events_hint *= TP_HITS_PER_EVENT;
}

int cell_setup(struct cell_ctx *x)
{
	struct tracer *t = &x->t;
	char nm[64];
	int r;

	events_hint_set(x);
	signals_doing("setting up tracer '%s'", t->name);
	r = tracer_setup(t);
	if (r == TT_SKIP) {
		x->c->status = CELL_SKIPPED;
		snprintf(x->c->reason, sizeof(x->c->reason), "%s", t->err);
		return -1;
	}
	if (r)
		return cell_fail(x->c, "tracer '%s' setup failed: %s", short_name(t, nm, sizeof(nm)),
				 t->err);
	return 0;
}

void cell_teardown(struct cell_ctx *x)
{
	signals_doing("tearing down tracer '%s'", x->t.name);
	tracer_teardown(&x->t);
}

/*
 * Grows one side's iteration count until a run is long enough to time,
 * then sizes it to --run-ms. Each side on its own: a tracer at x78 would
 * otherwise leave its baseline runs a millisecond long, all timer ticks.
 */
int cell_calibrate(struct cell_ctx *x, bool traced)
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
		/* a tracer that sizes a buffer at each start (audit's backlog) sizes it to this run */
		if (traced)
			events_hint_set(x);
		if (run_once(x, traced ? &x->t : NULL, &res, &hits)) {
			load_result_release(&res);
			break;
		}
		ns = res.max_thread_ns;
		load_result_release(&res);
		/*
		 * TRACETAX_FAULT=NAME@calibrate-0ns (t_calibrate): the traced side's
		 * run reports 0 ns after the most ops calibration makes, as from a
		 * clock that never moved, without waiting for those ops.
		 */
		if (traced && tracer_fault(&x->t, "calibrate-0ns"))
			ns = 0, n = CALIBRATE_MAX_OPS;
		if (ns >= CALIBRATE_MIN_NS || n >= CALIBRATE_MAX_OPS) {
			double per_op = ns / (double)n;

			if (!(per_op > 0)) {	/* would divide --run-ms by zero */
				cell_fail(x->c, "calibration: %lld ops reported %.0f ns", (long long)n, ns);
				break;
			}
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

/* Both runs of a pair in the given order, @mid (may be NULL) read between them. */
static int run_pair(struct cell_ctx *x, bool traced_first, struct load_result *base,
		    struct load_result *tr, struct tt_hits *h, struct vm_sample *mid)
{
	struct tt_hits none;
	int bad;

	memset(base, 0, sizeof(*base));
	memset(tr, 0, sizeof(*tr));
	if (traced_first) {
		bad = run_once(x, &x->t, tr, h);
		if (mid)
			vmstat_sample(&x->vm, mid);
		bad = bad || run_once(x, NULL, base, &none);
	} else {
		bad = run_once(x, NULL, base, &none);
		if (mid)
			vmstat_sample(&x->vm, mid);
		bad = bad || run_once(x, &x->t, tr, h);
	}
	return bad ? -1 : 0;
}

/* Each thread's figures, and what all threads did together, from a pair's runs. */
static int rep_threads(struct cell_ctx *x, struct rep *r, const struct load_result *base,
		       const struct load_result *tr)
{
	int n = x->c->threads;

	if (base->nthreads != n || tr->nthreads != n)
		return cell_fail(x->c, "workload reported %d and %d threads, not %d", base->nthreads,
				 tr->nthreads, n);
	r->threads = calloc((size_t)n, sizeof(*r->threads));
	if (!r->threads)
		return cell_fail(x->c, "out of memory");
	for (int i = 0; i < n; i++) {
		r->threads[i].cpu = tr->th[i].cpu;
		r->threads[i].base_ns_per_op = base->th[i].ns_per_op;
		r->threads[i].traced_ns_per_op = tr->th[i].ns_per_op;
		r->threads[i].events = tr->th[i].events;
	}
	/* the threads start together at a barrier: the slowest one ends the work */
	r->base_mops = base->max_thread_ns > 0 ?
		1e3 * (double)n * (double)x->base.spec.iterations / base->max_thread_ns : NAN;
	r->traced_mops = tr->max_thread_ns > 0 ?
		1e3 * (double)n * (double)x->traced.spec.iterations / tr->max_thread_ns : NAN;
	return 0;
}

/*
 * --placement rotate: the @pair-th pair of reps of the round (one of each
 * order, plan.h: the order effect cancels on each CPU) on the allowed CPU
 * (@pair + round) mod n, n = plan_rotate_cpus. A round's pairs are whole
 * sets of n (plan_round_reps), so every round visits every CPU, starting
 * one later each round: a CPU's reps span all the rounds, and the drift
 * between rounds falls on every CPU alike instead of making their
 * difference. A helper goes on the workload's CPU (--tracer-cpu same)
 * with it; the steal and frequency readings follow. A cmd: workload is
 * not pinned.
 */
static void placement_rotate(struct cell_ctx *x, int pair)
{
	int cpus[CPU_SETSIZE], n = plan_rotate_cpus(x->a), k;

	if (n < 2 || cpus_allowed(cpus, CPU_SETSIZE) < n)
		return;
	k = (pair + (x->round > 0 ? x->round : 0)) % n;
	x->base.spec.cpu_offset = x->traced.spec.cpu_offset = k;
	if (!strcmp(x->a->tracer_cpu, "same"))
		x->t.tracer_cpu = cpus[k];
	else if (!strcmp(x->a->tracer_cpu, "other"))
		x->t.tracer_cpu = cpus[(k + 1) % n];
	x->vm.ncpus = x->c->threads < n ? x->c->threads : n;
	for (int j = 0; j < x->vm.ncpus; j++)
		x->vm.cpus[j] = cpus[(j + k) % n];
}

/* One rep: both runs in the plan's order, with the machine read around them. */
int cell_rep(struct cell_ctx *x, int i)
{
	struct load_result base, tr;
	struct tt_hits h;
	struct vm_sample v0, v1, v2;
	struct rep r = { .steal_ms = NAN, .mhz_min = NAN, .mhz_max = NAN,
			 .kernel_consumer_ns = NAN };
	uint64_t t0 = now_ns();
	int ret = -1;

	/* TRACETAX_FAULT=NAME@die: a fatal error inside a set-up cell (t_fault) */
	if (tracer_fault(&x->t, "die"))
		die("fault injected by TRACETAX_FAULT at die");
	r.traced_first = plan_traced_first(x->pc, i);
	r.round = x->round;
	if (x->a->rotate)
		placement_rotate(x, x->round_rep / 2);
	vmstat_sample(&x->vm, &v0);
	if (run_pair(x, r.traced_first, &base, &tr, &h, &v1) || rep_threads(x, &r, &base, &tr))
		goto out;
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
	x->c->bytes_per_event = tr.bytes_per_op;
	r.hits = h.hits;
	r.lost = h.lost;
	r.stops = h.stops;
	r.consumer_ns = h.consumer_ns;
	r.kernel_consumer_ns = h.kernel_consumer_ns;
	r.startup_ms = h.startup_ms > 0 ? h.startup_ms : NAN;
	r.shutdown_ms = h.shutdown_ms > 0 ? h.shutdown_ms : NAN;
	ret = add_rep(x->c, &r);
	if (ret)
		free(r.threads);
out:
	load_result_release(&base);
	load_result_release(&tr);
	return ret;
}

/* A running mean over @n values, of which @v is the last. */
static void mean_add(double *mean, double v, int n)
{
	*mean += (v - *mean) / n;
}

/*
 * Latency pair @i: the same two runs with every call timed, into the
 * cell's histograms. Runs of their own, after the reps: the timing costs
 * the loop a few ns per call, which the overhead figures must not pay.
 */
int cell_latency(struct cell_ctx *x, int i)
{
	struct cell_latency *l = x->c->lat;
	struct load_result base, tr;
	struct tt_hits h;
	int ret;

	x->base.spec.latency = x->traced.spec.latency = true;
	ret = run_pair(x, plan_traced_first(x->pc, i), &base, &tr, &h, NULL);
	x->base.spec.latency = x->traced.spec.latency = false;
	if (!ret && (!base.lat || !tr.lat))
		ret = cell_fail(x->c, "workload timed no calls in a --latency run");
	if (!ret) {
		hist_merge(l->base, base.lat);
		hist_merge(l->traced, tr.lat);
		l->pairs++;
		mean_add(&l->base_ns_per_op, base.ns_per_op, l->pairs);
		mean_add(&l->traced_ns_per_op, tr.ns_per_op, l->pairs);
		mean_add(&l->timer_ns, (base.timer_ns + tr.timer_ns) / 2, l->pairs);
		l->events += tr.events;
		l->hits = l->pairs == 1 ? h.hits : l->hits < 0 || h.hits < 0 ? -1 : l->hits + h.hits;
		l->calls += (int64_t)x->c->threads * x->traced.spec.iterations;
		l->base_calls += (int64_t)x->c->threads * x->base.spec.iterations;
	}
	load_result_release(&base);
	load_result_release(&tr);
	return ret;
}
