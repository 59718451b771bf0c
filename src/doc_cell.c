/*
 * One cell of a results document and its runs (doc_field.h): the
 * figures checked against the status, the runs against the rep count.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "doc_field.h"
#include "results.h"
#include "util.h"

static const char *const status_names[] = { "ok", "skipped", "failed", NULL };
static const char *const end_names[] = { "reps", "precision", "max_time", "max_reps", "stopped", NULL };

static int read_run(struct rd *x, json_t *o, struct rep *r)
{
	double mhz[2];
	int ret;

	if (!json_is_object(o))
		return rd_fail(x, "want an object, not %s", rd_type(o));
	ret = rd_num(x, o, "baseline_ns_per_op", 0, F_NULL, &r->base_ns_per_op) ||
	      rd_num(x, o, "traced_ns_per_op", 0, F_NULL, &r->traced_ns_per_op) ||
	      rd_num(x, o, "baseline_cycles_per_op", 0, F_NULL, &r->base_cycles_per_op) ||
	      rd_num(x, o, "traced_cycles_per_op", 0, F_NULL, &r->traced_cycles_per_op) ||
	      rd_int(x, o, "events", 0, INT64_MAX, 0, &r->events) ||
	      rd_int(x, o, "hits", 0, INT64_MAX, F_NULL, &r->hits) ||
	      rd_int(x, o, "lost", 0, INT64_MAX, 0, &r->lost) ||
	      rd_int(x, o, "stops", 0, INT64_MAX, F_NULL, &r->stops) ||
	      rd_num(x, o, "consumer_ns", 0, F_NULL, &r->consumer_ns) ||
	      rd_bool(x, o, "traced_first", &r->traced_first) ||
	      rd_bool(x, o, "outlier", &r->outlier) ||
	      rd_num(x, o, "wall_ms", 0, F_NULL, &r->wall_ms) ||
	      rd_num(x, o, "steal_ms", 0, F_NULL, &r->steal_ms) ||
	      rd_pair(x, o, "cpu_mhz", 0, mhz) ? -1 : 0;
	/* the struct's "unknown" for these is 0, as results.c fills it */
	if (isnan(r->base_cycles_per_op))
		r->base_cycles_per_op = 0;
	if (isnan(r->traced_cycles_per_op))
		r->traced_cycles_per_op = 0;
	if (isnan(r->consumer_ns))
		r->consumer_ns = 0;
	r->mhz_min = mhz[0];
	r->mhz_max = mhz[1];
	return ret;
}

static int read_runs(struct rd *x, json_t *o, struct cell *c)
{
	json_t *runs;
	size_t at;

	if (rd_array(x, o, "runs", RESULTS_MAX_REPS, &runs))
		return -1;
	at = rd_push(x, "runs");
	if (json_array_size(runs) != (size_t)c->nreps) {
		int ret = rd_fail(x, "%zu runs, but reps is %d", json_array_size(runs), c->nreps);

		rd_pop(x, at);
		return ret;
	}
	c->cap_reps = c->nreps;
	c->reps = calloc((size_t)c->nreps + 1, sizeof(*c->reps));
	if (!c->reps)
		die("out of memory");
	for (int i = 0; i < c->nreps; i++) {
		size_t k = rd_push_index(x, (size_t)i);

		if (read_run(x, json_array_get(runs, (size_t)i), &c->reps[i]))
			return -1;
		rd_pop(x, k);
	}
	rd_pop(x, at);
	return 0;
}

/* A cell's figures: all there when it is ok, all null when it is not. */
static int read_figures(struct rd *x, json_t *o, struct cell *c, bool ok)
{
	int f = ok ? 0 : F_NULL, end = END_STOPPED, ret;
	json_t *prec = json_object_get(o, "precision");
	bool have[3];
	double cv;

	ret = rd_summary(x, o, "baseline_ns_per_op", (size_t)c->nreps, f, &c->base, &have[0]) ||
	      rd_summary(x, o, "traced_ns_per_op", (size_t)c->nreps, f, &c->traced, &have[1]) ||
	      rd_summary(x, o, "overhead_ns_per_event", (size_t)c->nreps, f, &c->overhead, &have[2]) ||
	      rd_num(x, o, "slowdown", 0, F_NULL, &c->slowdown) ||
	      rd_num(x, o, "baseline_cv", 0, F_NULL, &cv) ||
	      rd_intv(x, o, "outliers", 0, c->nreps, &c->outliers) ||
	      rd_num(x, o, "consumer_ns_per_event", 0, F_NULL, &c->consumer_ns_per_event) ||
	      rd_pair(x, o, "slowdown_ci95", F_NULL, c->slowdown_ci95) ||
	      rd_bool(x, o, "below_noise_floor", &c->below_floor) ||
	      rd_num(x, o, "steal_pct", 0, F_NULL, &c->steal_pct) ? -1 : 0;
	if (ret)
		return -1;
	c->base_cv = cv;
	if (isnan(c->consumer_ns_per_event))
		c->consumer_ns_per_event = 0;
	if ((have[0] || have[1] || have[2]) && !ok)
		return rd_fail(x, "figures of a cell that is not ok");
	c->precision_pct = 0;
	c->reached_pct = NAN;
	c->ended_by = END_STOPPED;
	if (prec && !json_is_null(prec)) {
		size_t at = rd_push(x, "precision");

		if (!json_is_object(prec))
			return rd_fail(x, "want an object or null, not %s", rd_type(prec));
		if (rd_num(x, prec, "target_pct", 0, F_NULL, &c->precision_pct) ||
		    rd_num(x, prec, "reached_pct", 0, F_NULL, &c->reached_pct) ||
		    rd_enum(x, prec, "ended_by", end_names, &end))
			return -1;
		rd_pop(x, at);
		c->ended_by = (enum cell_end)end;
		if (isnan(c->precision_pct))
			c->precision_pct = 0;
	} else if (!prec) {
		rd_push(x, "precision");
		return rd_fail(x, "missing");
	}
	return 0;
}

int doc_read_cell(struct rd *x, json_t *o, struct cell *c)
{
	int64_t reps;
	double mhz[2];
	int status = CELL_FAILED;

	if (!json_is_object(o))
		return rd_fail(x, "want an object, not %s", rd_type(o));
#define S(key, f, flags) rd_str(x, o, key, c->f, sizeof(c->f), flags)
	if (S("workload", workload, F_NONEMPTY) || S("tracer", tracer, F_NONEMPTY) ||
	    S("target", target, F_NULL) || rd_intv(x, o, "threads", 1, MAX_THREADS, &c->threads) ||
	    S("id", id, F_NONEMPTY) || rd_seed(x, o, "seed", &c->seed) ||
	    rd_enum(x, o, "status", status_names, &status) || S("reason", reason, F_NULL) ||
	    rd_bool(x, o, "aa", &c->aa) ||
	    rd_int(x, o, "iterations", 0, INT64_MAX, 0, &c->iterations) ||
	    rd_int(x, o, "warmup", 0, INT64_MAX, 0, &c->warmup) ||
	    rd_int(x, o, "baseline_iterations", 0, INT64_MAX, 0, &c->base_iterations) ||
	    rd_int(x, o, "baseline_warmup", 0, INT64_MAX, 0, &c->base_warmup) ||
	    rd_int(x, o, "reps", 0, RESULTS_MAX_REPS, 0, &reps) ||
	    rd_int(x, o, "events", 0, INT64_MAX, 0, &c->events) ||
	    rd_int(x, o, "hits", 0, INT64_MAX, F_NULL, &c->hits) ||
	    rd_int(x, o, "lost", 0, INT64_MAX, 0, &c->lost) ||
	    rd_int(x, o, "stops", 0, INT64_MAX, F_NULL, &c->stops) ||
	    rd_bool(x, o, "disturbed", &c->disturbed) ||
	    S("disturbed_by", disturbed_by, F_NULL) || S("tracer_note", tracer_note, F_NULL) ||
	    S("note", note, F_NULL))
		return -1;
#undef S
	c->status = (enum cell_status)status;
	c->nreps = (int)reps;
	if (c->status == CELL_OK && (!c->nreps || c->reason[0])) {
		rd_push(x, c->nreps ? "reason" : "reps");
		return rd_fail(x, c->nreps ? "a reason for an ok cell" : "an ok cell without reps");
	}
	if (c->status != CELL_OK && !c->reason[0]) {
		rd_push(x, "reason");
		return rd_fail(x, "a cell that is not ok without its reason");
	}
	if (read_figures(x, o, c, c->status == CELL_OK) || read_runs(x, o, c) ||
	    rd_pair(x, o, "cpu_mhz", F_NULL, mhz))
		return -1;
	c->mhz_min = mhz[0];
	c->mhz_max = mhz[1];
	return 0;
}
