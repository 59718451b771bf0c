/*
 * tracetax rate (rate.h): each tracer set up once, then one paced traced
 * run a step through the cell's own run protocol (cell_run_traced: the
 * tracer's prefork, start and stop, its hits, lost, consumers' CPU), so
 * that the box is put back exactly as after any cell (teardown).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/signals.h"
#include "base/util.h"
#include "load/workloads.h"
#include "measure/cell.h"
#include "measure/plan.h"
#include "measure/rate.h"

const char *const rate_verdict_names[] = { "kept", "lost", "wait", "slow", "missed", "failed" };

/* The warm-up step's rate, events a second (or the first step's, when higher). */
#define RATE_WARMUP 1000
/* A load that reaches less than this share of the asked rate did not make it. */
#define RATE_REACHED_MIN 0.9

/* Up to the steps: the tracer found, bound to the workload, supported here. */
static int rate_prepare(struct cell_ctx *x, const struct rate_args *a, const char *load_path)
{
	struct cell *c = x->c;
	const struct workload *w = workload_find(a->workload);
	char err[256];
	int rc;

	snprintf(c->workload, sizeof(c->workload), "%s", a->workload);
	snprintf(c->target, sizeof(c->target), "%s", w->syscall);
	c->threads = 1;
	x->traced.spec.load_path = load_path;
	x->traced.spec.workload = c->workload;
	x->traced.spec.threads = 1;
	x->traced.spec.iterations = RATE_RECORDS_MIN;
	if (tracer_init(&x->t, c->tracer, tt_syscall_find(w->syscall), err, sizeof(err))) {
		snprintf(c->reason, sizeof(c->reason), "%s", err);
		return TT_FAIL;
	}
	x->t.threads = 1;
	x->t.tracer_cpu = -1;
	plan_bind(&x->t, c->workload, load_path);
	if (!plan_hooks_ok(x->t.ops->hooks, x->t.workload, c->target, c->reason, sizeof(c->reason)))
		return TT_SKIP;
	rc = tracer_supported(&x->t, c->reason, sizeof(c->reason));
	return rc;
}

static enum rate_verdict verdict_of(const struct rate_step *s)
{
	if (s->lost > 0)
		return RATE_LOST;
	if (s->waited > 0)
		return RATE_WAIT;
	if (s->reached < RATE_REACHED_MIN * (double)s->rate)
		return RATE_SLOW;
	if (s->hits >= 0 && s->hits != s->events)
		return RATE_MISSED;
	return RATE_KEPT;
}

/* A step's events and buffer at @rate: three buffers a step (rate.h). */
static void step_size(const struct rate_args *a, int64_t rate, int64_t *records, int64_t *backlog)
{
	int64_t n = a->records ? a->records : a->backlog ? RATE_BACKLOGS * a->backlog :
		    rate * a->step_ms / 1000;

	*records = n < RATE_RECORDS_MIN ? RATE_RECORDS_MIN : n;
	*backlog = a->backlog ? a->backlog : *records / RATE_BACKLOGS;
}

/* One step: a paced traced run; 0, or -1 with the cell failed (its reason). */
static int rate_step(const struct rate_args *a, struct cell_ctx *x, int64_t rate,
		     struct rate_step *s)
{
	struct load_result res;
	struct tt_hits h;
	uint64_t t0 = now_ns();
	int ret;

	memset(s, 0, sizeof(*s));
	s->rate = rate;
	step_size(a, rate, &x->traced.spec.iterations, &s->backlog);
	x->t.buffer_events = s->backlog;
	x->traced.spec.rate = rate;
	x->traced.expect_ms = 1000.0 * (double)x->traced.spec.iterations / (double)rate;
	ret = cell_run_traced(x, &res, &h);
	s->seconds = (double)(now_ns() - t0) / 1e9;
	if (!ret) {
		s->events = res.events;
		s->reached = res.ns_per_op > 0 ? 1e9 / res.ns_per_op : 0;
		s->hits = h.hits;
		s->lost = h.lost;
		s->waited = h.waited;
		s->consumer_ns = res.events > 0 && h.consumer_ns > 0 ?
			h.consumer_ns / (double)res.events : NAN;
		s->kernel_consumer_ns = res.events > 0 ? h.kernel_consumer_ns / (double)res.events : NAN;
		s->verdict = verdict_of(s);
	} else {
		s->verdict = RATE_FAILED;
	}
	load_result_release(&res);
	return ret;
}

/* One tracer's climb: set up once, a step a rate until the first not kept (--all: every one). */
static int rate_climb(const struct rate_args *a, const char *load_path, struct rate_tracer *rt,
		      FILE *progress)
{
	struct cell *c = calloc(1, sizeof(*c));
	struct cell_ctx x = { .c = c };
	int ret = 0, rc;

	if (!c)
		die("out of memory");
	rt->kept = rt->first_bad = -1;
	snprintf(c->tracer, sizeof(c->tracer), "%s", rt->name);
	rc = rate_prepare(&x, a, load_path);
	if (rc == TT_OK && cell_setup(&x))
		rc = c->status == CELL_SKIPPED ? TT_SKIP : TT_FAIL;
	else if (rc == TT_OK) {
		struct rate_step warm;

		/*
		 * A warm-up step, not reported: the first records after the
		 * consumer started (auditd's first writes) pause it for longer
		 * than a small buffer holds, which is its start, not its rate.
		 */
		if (rate_step(a, &x, a->rates[0] > RATE_WARMUP ? a->rates[0] : RATE_WARMUP, &warm))
			rc = TT_FAIL;
		for (int i = 0; rc == TT_OK && i < a->nrates && !signals_interrupted(); i++) {
			struct rate_step *s = &rt->steps[rt->nsteps++];

			if (rate_step(a, &x, a->rates[i], s)) {
				rc = TT_FAIL;
				break;
			}
			if (progress)
				fprintf(progress, "  %-24s %8lld/s  %s\n", rt->name, (long long)s->rate,
					rate_verdict_names[s->verdict]), fflush(progress);
			if (s->verdict == RATE_KEPT && rt->first_bad < 0)
				rt->kept = i;
			else if (s->verdict != RATE_KEPT && rt->first_bad < 0)
				rt->first_bad = i;
			if (rt->first_bad >= 0 && !a->all)
				break;
		}
		snprintf(rt->note, sizeof(rt->note), "%s", x.t.note);
		cell_teardown(&x);
	}
	rt->status = rc;
	snprintf(rt->reason, sizeof(rt->reason), "%s", c->reason);
	if (rc == TT_FAIL)
		ret = -1;
	free(c->reps);
	free(c);
	return ret;
}

int rate_run(const struct rate_args *a, const char *load_path, struct rate_results *r,
	     FILE *progress)
{
	int ret = EXIT_OK;

	memset(r, 0, sizeof(*r));
	r->args = *a;
	for (int i = 0; i < a->ntracers && !signals_interrupted(); i++) {
		struct rate_tracer *rt = &r->tr[r->ntr++];

		snprintf(rt->name, sizeof(rt->name), "%s", a->tracers[i]);
		if (progress)
			fprintf(progress, "[%d/%d] %s\n", i + 1, a->ntracers, rt->name), fflush(progress);
		if (rate_climb(a, load_path, rt, progress))
			ret = EXIT_FAILED;
	}
	if (signals_interrupted())
		return 128 + signals_interrupted();
	return ret;
}
