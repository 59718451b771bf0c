/*
 * Version 3's fields of a results document (doc/field.h), the reading side
 * of doc/write_dist.c: what tracetax timed with, what BPF stats cost,
 * each thread's figures and the --latency distributions. A distribution
 * comes back as the struct hist it was written from: its buckets are the
 * counts, and count, mean, variance, min and max give the exact figures
 * (sum and sum of squares) that hist.c derives the table's from.
 */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "doc/field.h"
#include "doc/read.h"
#include "base/hist.h"
#include "results/results.h"
#include "base/util.h"

#define DONE(at, ret) do { int r_ = (ret); rd_pop(x, at); return r_; } while (0)

/* A boolean or null: 1, 0, or -1 for null. */
static int rd_tristate(struct rd *x, json_t *o, const char *key, int *out)
{
	json_t *v = json_object_get(o, key);
	bool b;

	*out = -1;
	if (v && json_is_null(v))
		return 0;
	if (rd_bool(x, o, key, &b))
		return -1;
	*out = b;
	return 0;
}

static int read_timing(struct rd *x, json_t *d, struct timing *t)
{
	json_t *o;
	size_t at;
	int ret;

	memset(t, 0, sizeof(*t));
	t->clock_vdso = -1;
	if (rd_object(x, d, "timing", &o))
		return -1;
	if (!o)
		return 0;
	at = rd_push(x, "timing");
	ret = rd_str(x, o, "clock", t->clock, sizeof(t->clock), F_NULL) ||
	      rd_num(x, o, "clock_ns", 0, F_NULL, &t->clock_ns) ||
	      rd_num(x, o, "clock_resolution_ns", 0, F_NULL, &t->clock_res_ns) ||
	      rd_tristate(x, o, "clock_vdso", &t->clock_vdso) ||
	      rd_str(x, o, "timer", t->timer, sizeof(t->timer), F_NULL) ||
	      rd_num(x, o, "timer_ns", 0, F_NULL, &t->timer_ns) ||
	      rd_num(x, o, "tsc_hz", 0, F_NULL, &t->tsc_hz) ? -1 : 0;
	if (isnan(t->tsc_hz))
		t->tsc_hz = 0;	/* the struct's "no TSC" */
	DONE(at, ret);
}

static int read_stats_cost(struct rd *x, json_t *d, struct stats_cost *k)
{
	json_t *o;
	size_t at;
	int ret;

	memset(k, 0, sizeof(*k));
	if (rd_object(x, d, "bpf_stats_cost", &o))
		return -1;
	if (!o)
		return 0;
	at = rd_push(x, "bpf_stats_cost");
	ret = rd_str(x, o, "tracer", k->tracer, sizeof(k->tracer), F_NONEMPTY) ||
	      rd_str(x, o, "workload", k->workload, sizeof(k->workload), F_NONEMPTY) ||
	      rd_intv(x, o, "threads", 1, MAX_THREADS, &k->threads) ||
	      rd_intv(x, o, "pairs", 0, RESULTS_MAX_REPS, &k->pairs) ||
	      rd_num(x, o, "ns_per_event", -INFINITY, F_NULL, &k->mean) ||
	      rd_pair(x, o, "ci95", 0, k->ci95) ? -1 : 0;
	k->measured = !ret;
	DONE(at, ret);
}

/* Absent where no audit cell ran, and in documents from before it. */
static int read_audit_residue(struct rd *x, json_t *d, struct audit_residue *a)
{
	json_t *o = json_object_get(d, "audit_residue");
	size_t at;
	int ret;

	*a = (struct audit_residue){ .before_ns = NAN, .never_ns = NAN, .after_ns = NAN };
	if (!o)
		return 0;
	if (!json_is_object(o))
		return rd_fail(x, "audit_residue: want an object, not %s", rd_type(o));
	at = rd_push(x, "audit_residue");
	ret = rd_bool(x, o, "was_on", &a->was_on) ||
	      rd_num(x, o, "before_ns", 0, F_NULL, &a->before_ns) ||
	      rd_num(x, o, "never_task_ns", 0, F_NULL, &a->never_ns) ||
	      rd_num(x, o, "after_ns", 0, F_NULL, &a->after_ns) ? -1 : 0;
	a->measured = !ret;
	DONE(at, ret);
}

/*
 * Absent where a fresh task took the fast path, and in documents from before
 * the probe. causes null: unknown, and why.
 */
static int read_slow_path(struct rd *x, json_t *d, struct slow_path *s)
{
	json_t *o = json_object_get(d, "syscall_slow_path"), *c;
	int64_t enabled = -1;
	size_t at, i;
	int ret;

	*s = (struct slow_path){ .audit_enabled = -1, .getpid_ns = NAN, .never_task_ns = NAN };
	if (!o)
		return 0;
	if (!json_is_object(o))
		return rd_fail(x, "syscall_slow_path: want an object, not %s", rd_type(o));
	at = rd_push(x, "syscall_slow_path");
	c = json_object_get(o, "causes");
	s->known = c && !json_is_null(c);
	ret = rd_str(x, o, "unknown", s->unknown, sizeof(s->unknown), F_NULL) ||
	      rd_int(x, o, "audit_enabled", 0, 2, F_NULL, &enabled) ||
	      rd_str(x, o, "tracepoints", s->tracepoints, sizeof(s->tracepoints), F_NULL) ||
	      rd_num(x, o, "getpid_ns", 0, F_NULL, &s->getpid_ns) ||
	      rd_num(x, o, "never_task_getpid_ns", 0, F_NULL, &s->never_task_ns) ? -1 : 0;
	s->audit_enabled = (int)enabled;
	if (!ret && s->known && rd_array(x, o, "causes", SLOW_NCAUSES, &c))
		ret = -1;
	for (i = 0; !ret && s->known && i < json_array_size(c); i++) {
		const char *n = json_string_value(json_array_get(c, i));
		int k;

		for (k = 0; n && slow_cause_names[k] && strcmp(slow_cause_names[k], n); k++)
			;
		if (!n || !slow_cause_names[k]) {
			rd_push(x, "causes");
			rd_push_index(x, i);
			ret = rd_fail(x, "want one of audit, syscall_tracepoint, seccomp, ptrace, "
				      "user_dispatch");
		} else
			s->causes |= 1u << k;
	}
	if (!ret && s->known == !!s->unknown[0]) {
		rd_push(x, "unknown");
		ret = rd_fail(x, "want a reason when causes is null, and null otherwise");
	}
	s->probed = !ret;
	DONE(at, ret);
}

int doc_read_top_dist(struct rd *x, json_t *d, struct results *r)
{
	return read_timing(x, d, &r->timing) || read_stats_cost(x, d, &r->stats_cost) ||
	       read_audit_residue(x, d, &r->audit_residue) ||
	       read_slow_path(x, d, &r->slow_path) ? -1 : 0;
}

static int read_thread(struct rd *x, json_t *o, struct thread_fig *t)
{
	int64_t cpu;

	if (!json_is_object(o))
		return rd_fail(x, "want an object, not %s", rd_type(o));
	if (rd_int(x, o, "cpu", 0, INT_MAX, F_NULL, &cpu) ||
	    rd_num(x, o, "baseline_ns_per_op", 0, F_NULL, &t->base_ns_per_op) ||
	    rd_num(x, o, "traced_ns_per_op", 0, F_NULL, &t->traced_ns_per_op) ||
	    rd_int(x, o, "events", 0, INT64_MAX, 0, &t->events))
		return -1;
	t->cpu = (int)cpu;
	return 0;
}

/*
 * One per workload thread: a cell's is null or has them all; a run's is
 * empty (reps made without threads) or has them all.
 */
static int read_threads(struct rd *x, json_t *o, const char *key, int n, bool cell,
			struct thread_fig **out)
{
	json_t *v = json_object_get(o, key), *a;
	size_t at, len;

	*out = NULL;
	if (rd_absent(x, o, key) || (cell && v && json_is_null(v)))
		return 0;
	if (rd_array(x, o, key, MAX_THREADS, &a))
		return -1;
	len = json_array_size(a);
	at = rd_push(x, key);
	if (len != (size_t)n && (cell || len))
		DONE(at, rd_fail(x, "%zu threads, but the cell has %d", len, n));
	if (!len)
		DONE(at, 0);
	*out = calloc(len, sizeof(**out));
	if (!*out)
		die("out of memory");
	for (size_t i = 0; i < len; i++) {
		size_t k = rd_push_index(x, i);

		if (read_thread(x, json_array_get(a, i), &(*out)[i]))
			DONE(at, -1);
		rd_pop(x, k);
	}
	DONE(at, 0);
}

/* [lo, hi, count] of non-negative integers into @v. */
static int bucket_ints(struct rd *x, json_t *e, int64_t v[3])
{
	if (!json_is_array(e) || json_array_size(e) != 3)
		return rd_fail(x, "want [lo, hi, count], not %s",
			       json_is_array(e) ? "another array" : rd_type(e));
	for (size_t i = 0; i < 3; i++) {
		json_t *n = json_array_get(e, i);

		if (!json_is_integer(n) || json_integer_value(n) < 0)
			return rd_fail(x, "want [lo, hi, count] of non-negative integers");
		v[i] = json_integer_value(n);
	}
	return 0;
}

/*
 * The buckets, each where hist.c puts it, ascending, none empty, adding up
 * to @count; the top bucket ends at max + 1, as the writer gives it. The
 * first and last buckets are returned to check min and max against.
 */
static int read_buckets(struct rd *x, json_t *o, struct hist *h, uint64_t count, uint64_t max,
			unsigned *first, unsigned *last)
{
	json_t *a;
	size_t at;

	if (rd_array(x, o, "buckets", HIST_BUCKETS, &a))
		return -1;
	at = rd_push(x, "buckets");
	for (size_t j = 0; j < json_array_size(a); j++) {
		size_t k = rd_push_index(x, j);
		int64_t v[3];
		unsigned i;
		uint64_t hi;

		if (bucket_ints(x, json_array_get(a, j), v))
			DONE(at, -1);
		i = hist_index((uint64_t)v[0]);
		hi = i == HIST_BUCKETS - 1 ? max + 1 : hist_bucket_hi(i);
		if (hist_bucket_lo(i) != (uint64_t)v[0])
			DONE(at, rd_fail(x, "%lld is not where a bucket starts", (long long)v[0]));
		if (j && i <= *last)
			DONE(at, rd_fail(x, "not in ascending order"));
		if ((uint64_t)v[1] != hi)
			DONE(at, rd_fail(x, "the bucket at %lld ends at %llu, not %lld", (long long)v[0],
					 (unsigned long long)hi, (long long)v[1]));
		if (!v[2] || (uint64_t)v[2] > count - h->count)
			DONE(at, rd_fail(x, v[2] ? "more calls than count" : "an empty bucket"));
		hist_add_bucket(h, i, (uint64_t)v[2]);
		*first = j ? *first : i;
		*last = i;
		rd_pop(x, k);
	}
	if (h->count != count)
		DONE(at, rd_fail(x, "%llu calls, but count is %llu", (unsigned long long)h->count,
				 (unsigned long long)count));
	DONE(at, 0);
}

/* Where the exact figures must be, given the buckets; 0 or the complaint. */
static const char *dist_mismatch(const struct hist *h, double mean, int64_t min, int64_t max,
				 unsigned first, unsigned last, const char **key)
{
	*key = "min";
	if (!h->count)
		return min >= 0 || max >= 0 ? "a value for no calls" : NULL;
	if (min < 0 || hist_index((uint64_t)min) != first)
		return min < 0 ? "null for calls" : "not in the first bucket";
	*key = "max";
	if (max < 0 || hist_index((uint64_t)max) != last)
		return max < 0 ? "null for calls" : "not in the last bucket";
	*key = "mean";
	/* the exact sum must fit the uint64_t it was */
	if (!(mean >= (double)min && mean <= (double)max && mean * (double)h->count < 0x1p64))
		return "not between min and max";
	return NULL;
}

static int read_dist(struct rd *x, json_t *o, const char *key, struct hist *h)
{
	static const char *const quantiles[] = { "p50", "p90", "p99", "p99_9", "p99_99", NULL };
	size_t at = rd_push(x, key);
	json_t *v = json_object_get(o, key);
	int64_t count, min, max;
	double mean, var, q;
	unsigned first = 0, last = 0;
	const char *why, *where;
	uint64_t sum;

	if (!v || !json_is_object(v))
		DONE(at, v ? rd_fail(x, "want a distribution object, not %s", rd_type(v)) :
			     rd_fail(x, "missing"));
	if (rd_int(x, v, "count", 0, INT64_MAX, 0, &count) ||
	    rd_num(x, v, "mean", 0, F_NULL, &mean) || rd_num(x, v, "variance", 0, F_NULL, &var) ||
	    rd_int(x, v, "min", 0, INT64_MAX, F_NULL, &min) ||
	    rd_int(x, v, "max", 0, INT64_MAX, F_NULL, &max))
		DONE(at, -1);
	/* derived from the buckets again; checked, not kept */
	for (int i = 0; quantiles[i]; i++)
		if (rd_num(x, v, quantiles[i], 0, F_NULL, &q))
			DONE(at, -1);
	if (read_buckets(x, v, h, (uint64_t)count, max < 0 ? 0 : (uint64_t)max, &first, &last))
		DONE(at, -1);
	why = dist_mismatch(h, mean, min, max, first, last, &where);
	if (why) {
		rd_push(x, where);
		DONE(at, rd_fail(x, "%s", why));
	}
	if (!count)
		DONE(at, 0);
	/* mean has 15 digits: sum comes back exact below 10^15 ns */
	sum = (uint64_t)nearbyint(mean * (double)count);
	mean = (double)sum / (double)count;
	/* what hist_variance() subtracts again, so that it gives var back */
	hist_set_exact(h, sum, (count > 1 && !isnan(var) ? var * (double)(count - 1) : 0) +
		       (double)count * mean * mean, (uint64_t)min, (uint64_t)max);
	DONE(at, 0);
}

static int read_latency(struct rd *x, json_t *o, struct cell *c)
{
	struct cell_latency *l;
	double ns[2];
	json_t *v;
	size_t at;
	int ret;

	if (rd_object(x, o, "latency", &v))
		return -1;
	if (!v)
		return 0;
	at = rd_push(x, "latency");
	/* 32 KiB of histograms each, from a few bytes of text: bounded apart */
	if (++x->latencies > DOC_MAX_LATENCIES)
		DONE(at, rd_fail(x, "more than %d cells with latencies", DOC_MAX_LATENCIES));
	c->lat = l = results_latency_new();
	ret = rd_intv(x, v, "pairs", 1, INT_MAX, &l->pairs) ||
	      rd_int(x, v, "calls", 0, INT64_MAX, 0, &l->calls) ||
	      rd_int(x, v, "baseline_calls", 0, INT64_MAX, 0, &l->base_calls) ||
	      rd_int(x, v, "events", 0, INT64_MAX, 0, &l->events) ||
	      rd_int(x, v, "hits", 0, INT64_MAX, F_NULL, &l->hits) ||
	      rd_num(x, v, "timer_ns", 0, F_NULL, &l->timer_ns) ||
	      rd_num(x, v, "timing_cost_ns", -INFINITY, F_NULL, &l->timing_cost_ns) ||
	      rd_sides(x, v, "ns_per_op", 0, ns) || read_dist(x, v, "baseline", l->base) ||
	      read_dist(x, v, "traced", l->traced) ? -1 : 0;
	l->base_ns_per_op = ns[0];
	l->traced_ns_per_op = ns[1];
	DONE(at, ret);
}

int doc_read_cell_dist(struct rd *x, json_t *o, struct cell *c)
{
	double spread[2], mops[2];
	int64_t cpus = -1;

	if (read_threads(x, o, "per_thread", c->threads, true, &c->per_thread) ||
	    (!rd_absent(x, o, "cpus_used") &&
	     rd_int(x, o, "cpus_used", 1, c->threads, F_NULL, &cpus)) ||
	    rd_sides(x, o, "thread_spread_pct", 0, spread) ||
	    rd_sides(x, o, "throughput_mops", 0, mops) || read_latency(x, o, c))
		return -1;
	c->cpus_used = cpus < 0 ? 0 : (int)cpus;
	c->base_spread_pct = spread[0];
	c->traced_spread_pct = spread[1];
	c->base_mops = mops[0];
	c->traced_mops = mops[1];
	return 0;
}

int doc_read_rep_dist(struct rd *x, json_t *o, struct rep *r, int threads)
{
	double mops[2];

	if (read_threads(x, o, "threads", threads, false, &r->threads) ||
	    rd_sides(x, o, "throughput_mops", 0, mops))
		return -1;
	r->base_mops = mops[0];
	r->traced_mops = mops[1];
	return 0;
}
