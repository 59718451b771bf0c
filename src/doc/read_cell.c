/*
 * One cell of a results document and its runs (doc/field.h): the
 * figures checked against the status, the runs against the rep count.
 */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "doc/field.h"
#include "results/results.h"
#include "tracers/tracer.h"
#include "base/util.h"


/* Version 3 added these; absent from a version 2 document, they read as null. */
#define V3(key, read) (!rd_absent(x, o, key) && (read))

/* A tool's start-up and shut-down, ms: NaN for a mechanism. */
static int read_tool_ms(struct rd *x, json_t *o, double *startup, double *shutdown)
{
	*startup = *shutdown = NAN;
	return V3("startup_ms", rd_num(x, o, "startup_ms", 0, F_NULL, startup)) ||
	       V3("shutdown_ms", rd_num(x, o, "shutdown_ms", 0, F_NULL, shutdown)) ? -1 : 0;
}

static int read_run(struct rd *x, json_t *o, struct rep *r, int threads)
{
	double mhz[2];
	int ret;

	r->kernel_consumer_ns = NAN;
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
	      /* absent before kauditd's CPU was measured: not measured */
	      (json_object_get(o, "kernel_consumer_ns") &&
	       rd_num(x, o, "kernel_consumer_ns", 0, F_NULL, &r->kernel_consumer_ns)) ||
	      rd_bool(x, o, "traced_first", &r->traced_first) ||
	      rd_bool(x, o, "outlier", &r->outlier) ||
	      /* before rounds (schema 3 as first written): every rep in round 0 */
	      (json_object_get(o, "round") && rd_intv(x, o, "round", 0, RESULTS_MAX_REPS, &r->round)) ||
	      rd_num(x, o, "wall_ms", 0, F_NULL, &r->wall_ms) ||
	      rd_num(x, o, "steal_ms", 0, F_NULL, &r->steal_ms) ||
	      rd_pair(x, o, "cpu_mhz", 0, mhz) || read_tool_ms(x, o, &r->startup_ms, &r->shutdown_ms) ||
	      doc_read_rep_dist(x, o, r, threads) ? -1 : 0;
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

		if (read_run(x, json_array_get(runs, (size_t)i), &c->reps[i], c->threads))
			return -1;
		rd_pop(x, k);
	}
	rd_pop(x, at);
	return 0;
}

/* A BPF cell's program time: null for another; every figure null when not measured. */
static int read_program(struct rd *x, json_t *o, struct prog_time *p)
{
	int64_t runs = -1;
	json_t *v;
	size_t at;
	int ret;

	memset(p, 0, sizeof(*p));
	p->ns_per_run = p->run_ns = p->dispatch_ns = p->range[0] = p->range[1] = NAN;
	if (rd_object(x, o, "program", &v))
		return -1;
	if (!v)
		return 0;
	at = rd_push(x, "program");
	ret = rd_num(x, v, "ns_per_run", 0, F_NULL, &p->ns_per_run) ||
	      rd_pair(x, v, "ns_per_run_range", F_NULL, p->range) ||
	      rd_int(x, v, "runs", 1, INT_MAX, F_NULL, &runs) ||
	      rd_int(x, v, "run_cnt", 0, INT64_MAX, F_NULL, &p->run_cnt) ||
	      rd_num(x, v, "run_time_ns", 0, F_NULL, &p->run_ns) ||
	      rd_int(x, v, "hits", 0, INT64_MAX, F_NULL, &p->hits) ||
	      rd_int(x, v, "events", 0, INT64_MAX, F_NULL, &p->events) ||
	      rd_num(x, v, "dispatch_ns_per_event", -INFINITY, F_NULL, &p->dispatch_ns) ||
	      rd_str(x, v, "reason", p->reason, sizeof(p->reason), F_NULL) ? -1 : 0;
	rd_pop(x, at);
	p->bpf = true;
	/* the writer gives the pass's runs exactly when it measured */
	p->measured = !ret && runs > 0;
	p->runs = p->measured ? (int)runs : 0;
	return ret;
}

/* Workloads that send bytes: their throughput with and without the tracer. */
static int read_throughput(struct rd *x, json_t *o, struct cell *c)
{
	json_t *v;
	size_t at;
	int ret;

	c->bytes_per_event = 0;
	c->base_mbps = c->traced_mbps = c->loss_pct = c->loss_ci95[0] = c->loss_ci95[1] = NAN;
	if (rd_object(x, o, "throughput", &v))
		return -1;
	if (!v)
		return 0;
	at = rd_push(x, "throughput");
	ret = rd_int(x, v, "bytes_per_event", 1, INT64_MAX, 0, &c->bytes_per_event) ||
	      rd_num(x, v, "baseline_mb_per_s", 0, F_NULL, &c->base_mbps) ||
	      rd_num(x, v, "traced_mb_per_s", 0, F_NULL, &c->traced_mbps) ||
	      rd_num(x, v, "loss_pct", -INFINITY, F_NULL, &c->loss_pct) ||
	      rd_pair(x, v, "loss_ci95", 0, c->loss_ci95) ? -1 : 0;
	rd_pop(x, at);
	return ret;
}

/* --placement rotate: the overhead per CPU (optional; an ok cell's). */
static int read_per_cpu(struct rd *x, json_t *o, struct cell *c)
{
	json_t *a;
	size_t at;
	int ret = 0;

	c->nper_cpu = 0;
	/* optional in version 3 too: only a run whose reps moved has it */
	if (!json_object_get(o, "overhead_per_cpu"))
		return 0;
	if (rd_array(x, o, "overhead_per_cpu", CELL_MAX_CPUS, &a) ||
	    rd_bool(x, o, "cpus_differ", &c->cpus_differ))
		return -1;
	at = rd_push(x, "overhead_per_cpu");
	for (size_t i = 0; !ret && i < json_array_size(a); i++) {
		struct cpu_overhead *p = &c->per_cpu[i];
		json_t *e = json_array_get(a, i);
		size_t at2 = rd_push_index(x, i);

		ret = !json_is_object(e) ? rd_fail(x, "want an object, not %s", rd_type(e)) :
		      rd_intv(x, e, "cpu", 0, 1 << 20, &p->cpu) ||
		      rd_intv(x, e, "reps", 1, c->nreps, &p->n) ||
		      /* optional: documents before it have none (0) */
		      (json_object_get(e, "rounds") &&
		       rd_intv(x, e, "rounds", 1, c->nreps, &p->rounds)) ||
		      rd_num(x, e, "mean", -INFINITY, F_NULL, &p->mean) ||
		      rd_pair(x, e, "ci95", F_NULL, p->ci95) ? -1 : 0;
		rd_pop(x, at2);
		c->nper_cpu = (int)i + 1;
	}
	rd_pop(x, at);
	return ret;
}

/* audit:rules' rule set: absent in other cells, and in documents from before it. */
static int read_audit_rules(struct rd *x, json_t *o, struct cell *c)
{
	struct cell_rules *r = &c->audit_rules;
	json_t *v;
	size_t at;
	int ret;

	memset(r, 0, sizeof(*r));
	if (!json_object_get(o, "audit_rules"))
		return 0;
	if (rd_object(x, o, "audit_rules", &v))
		return -1;
	if (!v)
		return 0;
	at = rd_push(x, "audit_rules");
	ret = rd_str(x, v, "file", r->file, sizeof(r->file), F_NONEMPTY) ||
	      rd_str(x, v, "digest", r->digest, sizeof(r->digest), F_NONEMPTY) ||
	      rd_intv(x, v, "rules", 0, INT_MAX, &r->rules);
	if (!ret && (strlen(r->digest) != 16 || strspn(r->digest, "0123456789abcdef") != 16)) {
		rd_push(x, "digest");
		ret = rd_fail(x, "want 16 lower-case hex digits");
	}
	rd_pop(x, at);
	return ret;
}

/* Version 3's figures of a cell: null in a cell that is not ok, as the others. */
static int read_v3(struct rd *x, json_t *o, struct cell *c, bool ok)
{
	static const char *const ok_only[] = {
		"startup_ms", "shutdown_ms", "hits_per_event", "overhead_ns_per_hit", "throughput",
		"program", "per_thread", "cpus_used", "thread_spread_pct", "throughput_mops",
		"latency", NULL,
	};

	for (int i = 0; !ok && ok_only[i]; i++) {
		json_t *v = json_object_get(o, ok_only[i]);

		if (v && !json_is_null(v)) {
			rd_push(x, ok_only[i]);
			return rd_fail(x, "figures of a cell that is not ok");
		}
	}
	c->hits_per_event = c->ns_per_hit = NAN;
	return read_tool_ms(x, o, &c->startup_ms, &c->shutdown_ms) ||
	       V3("hits_per_event", rd_num(x, o, "hits_per_event", 0, F_NULL, &c->hits_per_event)) ||
	       V3("overhead_ns_per_hit",
		  rd_num(x, o, "overhead_ns_per_hit", -INFINITY, F_NULL, &c->ns_per_hit)) ||
	       V3("verified_syscall", rd_str(x, o, "verified_syscall", c->verified_syscall,
					     sizeof(c->verified_syscall), F_NULL)) ||
	       read_throughput(x, o, c) || read_program(x, o, &c->prog) ||
	       (ok && read_per_cpu(x, o, c)) ||
	       doc_read_cell_dist(x, o, c) ? -1 : 0;
}

/* A cell's figures: all there when it is ok, all null when it is not. */
static int read_figures(struct rd *x, json_t *o, struct cell *c, bool ok)
{
	int f = ok ? 0 : F_NULL, end = END_STOPPED, ret;
	json_t *prec = json_object_get(o, "precision");
	bool have[3];
	double cv;

	c->between_share = NAN;
	c->kernel_consumer_ns_per_event = NAN;
	c->rounds = 0;
	c->repeat95[0] = c->repeat95[1] = NAN;
	ret = rd_summary(x, o, "baseline_ns_per_op", (size_t)c->nreps, f, &c->base, &have[0]) ||
	      rd_summary(x, o, "traced_ns_per_op", (size_t)c->nreps, f, &c->traced, &have[1]) ||
	      rd_summary(x, o, "overhead_ns_per_event", (size_t)c->nreps, f, &c->overhead, &have[2]) ||
	      rd_num(x, o, "slowdown", 0, F_NULL, &c->slowdown) ||
	      rd_num(x, o, "baseline_cv", 0, F_NULL, &cv) ||
	      rd_intv(x, o, "outliers", 0, c->nreps, &c->outliers) ||
	      rd_num(x, o, "consumer_ns_per_event", 0, F_NULL, &c->consumer_ns_per_event) ||
	      (json_object_get(o, "kernel_consumer_ns_per_event") &&
	       rd_num(x, o, "kernel_consumer_ns_per_event", 0, F_NULL,
		      &c->kernel_consumer_ns_per_event)) ||
	      rd_pair(x, o, "slowdown_ci95", F_NULL, c->slowdown_ci95) ||
	      rd_bool(x, o, "below_noise_floor", &c->below_floor) ||
	      (json_object_get(o, "rounds") && rd_intv(x, o, "rounds", 0, c->nreps, &c->rounds)) ||
	      (json_object_get(o, "between_round_share") &&
	       rd_num(x, o, "between_round_share", 0, F_NULL, &c->between_share)) ||
	      (json_object_get(o, "repeat95") && rd_pair(x, o, "repeat95", F_NULL, c->repeat95)) ||
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
		    rd_enum(x, prec, "ended_by", cell_end_names, &end))
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

/*
 * Whether the cell's tracer's own filters decide its hits (HITS_UPTO). A
 * document written before the field: its tracer's flag in this tracetax's
 * registry (a tracer it does not know keeps the plain rule).
 */
static int read_hits_upto(struct rd *x, json_t *o, struct cell *c)
{
	const struct tracer_ops *ops;
	const char *variant;
	char err[256];

	if (json_object_get(o, "hits_upto"))
		return rd_bool(x, o, "hits_upto", &c->hits_upto);
	ops = tracer_ops_find(c->tracer, &variant, err, sizeof(err));
	c->hits_upto = ops && (ops->flags & TT_F_HITS_UPTO);
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
	    rd_enum(x, o, "status", cell_status_names, &status) || S("reason", reason, F_NULL) ||
	    rd_bool(x, o, "aa", &c->aa) || read_hits_upto(x, o, c) ||
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
	if (read_figures(x, o, c, c->status == CELL_OK) || read_v3(x, o, c, c->status == CELL_OK) ||
	    read_runs(x, o, c) || read_audit_rules(x, o, c) ||
	    rd_pair(x, o, "cpu_mhz", F_NULL, mhz))
		return -1;
	c->mhz_min = mhz[0];
	c->mhz_max = mhz[1];
	return 0;
}
