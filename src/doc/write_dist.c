/*
 * The results document's part of how the cost spreads (docs/schema.md):
 * each thread's figures, throughput, the --latency distributions with
 * their sparse buckets, and what tracetax times with.
 */
#include <math.h>

#include "base/json_num.h"
#include "base/hist.h"
#include "doc/write.h"
#include "results/results.h"
#include "base/util.h"

static json_t *sides(double base, double traced)
{
	return json_pack("{s:o, s:o}", "baseline", json_num(base), "traced", json_num(traced));
}

json_t *output_json_threads(const struct thread_fig *t, int n)
{
	json_t *a = json_array();

	for (int i = 0; t && i < n; i++)
		json_array_append_new(a, json_pack("{s:o, s:o, s:o, s:I}",
			"cpu", t[i].cpu >= 0 ? json_integer(t[i].cpu) : json_null(),
			"baseline_ns_per_op", json_num(t[i].base_ns_per_op),
			"traced_ns_per_op", json_num(t[i].traced_ns_per_op), "events", (json_int_t)t[i].events));
	return a;
}

void output_json_rep_dist(json_t *o, const struct rep *r, int threads)
{
	json_object_set_new(o, "threads", output_json_threads(r->threads, r->threads ? threads : 0));
	json_object_set_new(o, "throughput_mops", sides(r->base_mops, r->traced_mops));
}

/* A distribution: the figures, and every non-empty bucket as [lo, hi, count]. */
json_t *output_json_dist(const struct hist *h)
{
	json_t *b = json_array();
	json_t *o = json_pack("{s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
		"count", (json_int_t)h->count, "mean", json_num(hist_mean(h)),
		"variance", json_num(hist_variance(h)),
		"min", h->count ? json_integer((json_int_t)h->min) : json_null(),
		"p50", json_num(hist_quantile(h, 0.5)), "p90", json_num(hist_quantile(h, 0.9)),
		"p99", json_num(hist_quantile(h, 0.99)), "p99_9", json_num(hist_quantile(h, 0.999)),
		"p99_99", json_num(hist_quantile(h, 0.9999)),
		"max", h->count ? json_integer((json_int_t)h->max) : json_null(),
		"buckets", b);

	for (unsigned i = hist_next(h, 0); i < HIST_BUCKETS; i = hist_next(h, i + 1)) {
		uint64_t hi = hist_bucket_hi(i);

		/* the top bucket has no upper end: the largest value is */
		json_array_append_new(b, json_pack("[I, I, I]", (json_int_t)hist_bucket_lo(i),
			(json_int_t)(hi == UINT64_MAX ? h->max + 1 : hi), (json_int_t)h->b[i]));
	}
	return o;
}

static json_t *latency_json(const struct cell_latency *l)
{
	json_t *o;

	if (!l || !l->pairs)
		return json_null();
	o = json_pack("{s:i, s:I, s:I, s:I, s:o, s:o, s:o}",
		"pairs", l->pairs, "calls", (json_int_t)l->calls,
		"baseline_calls", (json_int_t)l->base_calls, "events", (json_int_t)l->events,
		"hits", l->hits < 0 ? json_null() : json_integer(l->hits),
		"timer_ns", json_num(l->timer_ns), "timing_cost_ns", json_num(l->timing_cost_ns));
	json_object_set_new(o, "ns_per_op", sides(l->base_ns_per_op, l->traced_ns_per_op));
	json_object_set_new(o, "baseline", output_json_dist(l->base));
	json_object_set_new(o, "traced", output_json_dist(l->traced));
	return o;
}

void output_json_cell_dist(json_t *o, const struct cell *c)
{
	bool ok = c->status == CELL_OK && c->nreps > 0;

	json_object_set_new(o, "per_thread", ok && c->per_thread ?
			    output_json_threads(c->per_thread, c->threads) : json_null());
	json_object_set_new(o, "cpus_used", ok && c->cpus_used ? json_integer(c->cpus_used) :
			    json_null());
	json_object_set_new(o, "thread_spread_pct", ok ? sides(c->base_spread_pct,
			    c->traced_spread_pct) : json_null());
	json_object_set_new(o, "throughput_mops", ok ? sides(c->base_mops, c->traced_mops) :
			    json_null());
	json_object_set_new(o, "latency", ok ? latency_json(c->lat) : json_null());
}

json_t *output_json_timing(const struct timing *t)
{
	/* a document made without a run (tests) has none: null, as everything unknown */
	return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
		"clock", t->clock[0] ? json_string(t->clock) : json_null(), "clock_ns", json_num(t->clock[0] ? t->clock_ns : NAN),
		"clock_resolution_ns", json_num(t->clock[0] ? t->clock_res_ns : NAN),
		"clock_vdso", t->clock_vdso < 0 || !t->clock[0] ? json_null() :
			      json_boolean(t->clock_vdso),
		"timer", t->timer[0] ? json_string(t->timer) : json_null(),
		"timer_ns", json_num(t->timer[0] ? t->timer_ns : NAN),
		"tsc_hz", json_num(t->tsc_hz > 0 ? t->tsc_hz : NAN));
}
