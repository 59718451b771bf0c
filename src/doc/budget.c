/*
 * The budget document (docs/schema.md, "budget"): the rates, each tracer's
 * cost and predicted share, and the checks of -w cmd:. Undefined figures
 * are null, as in the results document.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/atomic_file.h"
#include "base/util.h"
#include "doc/budget.h"
#include "measure/rates.h"

static json_t *num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *ci(double lo, double hi)
{
	return json_pack("[o, o]", num(lo), num(hi));
}

static json_t *rates_json_counted(const struct budget_rates *r)
{
	json_t *cpus = json_array(), *procs = json_array(), *nrs = json_array();

	for (int k = 0; k < r->ncpu; k++)
		json_array_append_new(cpus, json_pack("{s:i, s:I, s:f}", "cpu", k, "events",
						      (json_int_t)r->per_cpu[k], "per_s",
						      (double)r->per_cpu[k] / r->seconds));
	for (int k = 0; k < r->ntop; k++)
		json_array_append_new(procs, json_pack("{s:i, s:s, s:I, s:f, s:o, s:f}", "pid",
						       r->top[k].pid, "comm", r->top[k].comm, "events",
						       (json_int_t)r->top[k].events, "per_s",
						       (double)r->top[k].events / r->seconds, "cpu_ns",
						       r->top[k].cpu_ns >= 0 ? num(r->top[k].cpu_ns) :
						       json_null(), "pace",
						       r->top[k].pace > 0 ? r->top[k].pace : 1));
	json_t *comms = json_array();

	for (int k = 0; k < r->ntop_comm; k++)
		json_array_append_new(comms, json_pack("{s:s, s:i, s:I}", "comm", r->top_comm[k].comm,
						       "processes", r->top_comm[k].pid, "events",
						       (json_int_t)r->top_comm[k].events));
	for (int k = 0; k < r->nnrs; k++)
		json_array_append_new(nrs, json_pack("{s:s, s:I}", "syscall", r->nrs[k].name,
						     "events", (json_int_t)r->nrs[k].events));
	return json_pack("{s:f, s:i, s:s, s:o, s:I, s:f, s:o, s:o, s:o, s:i, s:I, s:o, s:{s:s, s:b, s:o, s:o, s:o}}",
			 "seconds", r->seconds, "cpus", r->cpus, "scope", r->scope,
			 "target", r->target[0] ? json_string(r->target) : json_null(),
			 "events", (json_int_t)r->events, "per_s", r->events / r->seconds,
			 "per_cpu", cpus, "top_processes", procs, "top_commands", comms,
			 "processes", r->nprocs,
			 "unnamed_events", (json_int_t)r->unnamed, "top_syscalls", nrs,
			 "counter", "method", "bpf raw_tp raw_syscalls:sys_enter",
			 "measured", r->self_measured,
			 "ns_per_event", r->self_measured ? num(r->self_ns) : json_null(),
			 "runs", json_integer(r->self_runs),
			 "reason", r->self_reason[0] ? json_string(r->self_reason) : json_null());
}

/* The counter's tax on what it counts (measure/pace.h): rates' "counter" and attached's "syscalls" */
void budget_json_pace(json_t *o, const struct budget_rates *r)
{
	json_object_set_new(o, "price_ns", num(r->price_ns));
	json_object_set_new(o, "price_base_ns", num(r->price_base_ns));
	json_object_set_new(o, "price_reason", r->price_why[0] ? json_string(r->price_why) : json_null());
	json_object_set_new(o, "pace", json_real(budget_pace(r)));
	json_object_set_new(o, "paced_events", json_integer(r->paced));
}

static json_t *rates_json(const struct budget_rates *r)
{
	json_t *o = rates_json_counted(r);

	budget_json_pace(json_object_get(o, "counter"), r);
	return o;
}

static const char *const levels[AUDIT_LEVELS] = { "lower", "point", "upper" };

static json_t *nr_names(const int *v, int n)
{
	json_t *a = json_array();

	for (int i = 0; i < n; i++) {
		const char *s = rates_syscall_name(v[i]);
		char nr[32];

		snprintf(nr, sizeof(nr), "nr %d", v[i]);
		json_array_append_new(a, json_string(s ? s : nr));
	}
	return a;
}

static json_t *audit_cost_json(const struct budget_audit_cost *c)
{
	json_t *o;

	if (!c->source[0])
		return json_pack("{s:n, s:s}", "source", "reason", c->reason);
	o = json_pack("{s:s, s:s, s:s, s:o, s:o, s:i, s:o, s:o, s:o}", "source", c->source,
		      "tracer", c->tracer, "workload", c->workload,
		      "run_id", c->run_id ? json_integer(c->run_id) : json_null(),
		      "started", c->started[0] ? json_string(c->started) : json_null(),
		      "reps", c->reps, "ns_per_call", num(c->ns), "ci95", ci(c->lo, c->hi),
		      "consumer_ns_per_record", c->consumer_ns > 0 ? num(c->consumer_ns) : json_null());
	json_object_update_new(o, doc_walk_rules_json(c));
	return o;
}

json_t *doc_walk_rules_json(const struct budget_audit_cost *c)
{
	bool walk = c->source[0] && !strcmp(c->tracer, "audit:rules");
	bool known = walk && c->rules.file[0];

	return json_pack("{s:o, s:o, s:o}",
			 "rules_file", known ? json_string(c->rules.file) : json_null(),
			 "rules_digest", known ? json_string(c->rules.digest) : json_null(),
			 "rules_match", walk ? json_boolean(c->rules_match) : json_null());
}

static json_t *records_json(const int64_t *r)
{
	return json_pack("{s:I, s:I, s:I}", "lower", (json_int_t)r[AUDIT_LOWER], "point",
			 (json_int_t)r[AUDIT_POINT], "upper", (json_int_t)r[AUDIT_UPPER]);
}

/* audit:rules' prediction (docs/schema.md, "budget", tracers[].audit). */
static json_t *audit_json(const struct budget_audit *a)
{
	const struct budget_audit_est *e = &a->box;
	json_t *auids = json_array(), *est = json_object();

	for (int i = 0; i < a->nauids; i++)
		json_array_append_new(auids, json_pack("{s:I, s:I, s:I, s:I, s:o}", "auid",
						       (json_int_t)a->auids[i].auid, "calls",
						       (json_int_t)a->auids[i].events, "named",
						       (json_int_t)a->auids[i].named, "excluded",
						       (json_int_t)a->auids[i].excluded, "records",
						       records_json(a->auids[i].records)));
	for (int l = 0; l < AUDIT_LEVELS; l++)
		json_object_set_new(est, levels[l], json_pack(
			"{s:I, s:o, s:o, s:o, s:o}", "records", (json_int_t)e->records[l],
			"ns_per_call", num(e->events ? e->ns[l] / (double)e->events : NAN),
			"share_pct", num(a->share[l]), "share_ci95", ci(a->share_lo[l], a->share_hi[l]),
			"consumer_share_pct", num(a->consumer_share[l])));
	json_t *o = json_pack("{s:s, s:i, s:i, s:i, s:i, s:i, s:o, s:o, s:b, s:o, s:o, s:I, s:I, s:I, "
			 "s:o, s:o, s:s}", "rules_file", a->file, "rules", a->nrules, "exit_rules",
			 a->exit_rules, "file_rules", a->fs_rules, "other_arch_rules", a->other_arch,
			 "control_lines_dropped", a->dropped,
			 "syscalls", nr_names(a->syscalls, a->nsyscalls),
			 "file_syscalls", nr_names(a->fs_syscalls, a->nfs_syscalls),
			 "all_syscalls", a->all_syscalls, "walk", audit_cost_json(&a->walk),
			 "record", audit_cost_json(&a->record), "calls", (json_int_t)e->events,
			 "named_calls", (json_int_t)e->named, "excluded_calls", (json_int_t)e->excluded,
			 "by_auid", auids, "estimates", est, "bound", a->bound);

	json_object_set_new(o, "rules_digest", json_string(a->digest));
	json_object_set_new(o, "walk_path", audit_cost_json(&a->walk_path));
	json_object_set_new(o, "record_path", audit_cost_json(&a->record_path));
	json_object_set_new(o, "path_calls", json_integer(e->path));
	return o;
}

/* With --target: what the hook costs the scope's other syscalls; null without */
static json_t *coll_json(const struct budget *b, const struct budget_tracer *t)
{
	const struct budget_cost *k = &t->coll;
	bool have = k->source[0] && isfinite(t->coll_share);

	if (b->rates.others < 0 || t->audit)
		return json_null();
	return json_pack("{s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
			 "events", (json_int_t)b->rates.others,
			 "source", k->source[0] ? json_string(k->source) : json_null(),
			 "reason", k->source[0] ? json_null() : json_string(k->reason),
			 "run_id", k->run_id ? json_integer(k->run_id) : json_null(),
			 "workload", k->source[0] ? json_string(k->workload) : json_null(),
			 "target", k->source[0] ? json_string("close") : json_null(),
			 "ns_per_event", k->source[0] ? num(k->ns) : json_null(),
			 "ci95", k->source[0] ? ci(k->lo, k->hi) : ci(NAN, NAN),
			 "share_pct", have ? num(t->coll_share) : json_null(),
			 "share_ci95", have ? ci(t->coll_lo, t->coll_hi) : ci(NAN, NAN));
}

static json_t *tracer_json(const struct budget *b, const struct budget_tracer *t)
{
	const struct budget_cost *c = &t->cost;
	json_t *cpus = json_array(), *procs = json_array(), *cost;

	for (int k = 0; k < b->rates.ncpu; k++)
		json_array_append_new(cpus, json_pack("{s:i, s:o}", "cpu", k, "share_pct",
						      num(t->cpu_share ? t->cpu_share[k] : NAN)));
	for (int k = 0; k < b->rates.ntop; k++)
		json_array_append_new(procs, json_pack("{s:i, s:s, s:o}", "pid", b->rates.top[k].pid,
						       "comm", b->rates.top[k].comm, "share_pct",
						       num(t->proc_share[k])));
	if (c->source[0])
		cost = json_pack("{s:s, s:o, s:o, s:s, s:i, s:I, s:o, s:o, s:o, s:b}",
				 "source", c->source,
				 "run_id", c->run_id ? json_integer(c->run_id) : json_null(),
				 "started", c->started[0] ? json_string(c->started) : json_null(),
				 "workload", c->workload, "reps", c->reps, "events",
				 (json_int_t)c->events, "ns_per_event", num(c->ns),
				 "ci95", ci(c->lo, c->hi),
				 "consumer_ns_per_event", c->consumer_ns > 0 ? num(c->consumer_ns) :
				 json_null(), "tool", c->tool);
	else
		cost = json_pack("{s:n, s:s}", "source", "reason", c->reason);
	if (c->source[0]) {
		json_t *pc = json_array();

		for (int k = 0; k < c->ncpu; k++)
			json_array_append_new(pc, json_pack("{s:i, s:o, s:o}", "cpu", c->cpu[k].cpu,
							    "ns_per_event", num(c->cpu[k].ns),
							    "ci95", ci(c->cpu[k].lo, c->cpu[k].hi)));
		json_object_set_new(cost, "per_cpu", pc);
	}
	json_t *o = json_pack("{s:s, s:s, s:o, s:o, s:b, s:o, s:o, s:o, s:o, s:o}", "tracer", t->name,
			 "verdict", t->verdict, "cost", cost,
			 "ns_per_event_weighted", num(t->ns_weighted),
			 "per_cpu_weighted", t->per_cpu_weighted,
			 "share_pct", num(t->share), "share_ci95", ci(t->share_lo, t->share_hi),
			 "per_cpu", cpus, "per_process", procs,
			 "consumer_share_pct", num(t->consumer_share));

	if (t->audit)
		json_object_set_new(o, "audit", audit_json(t->audit));
	json_object_set_new(o, "collateral", coll_json(b, t));
	return o;
}

static json_t *check_json(const struct budget_check *k)
{
	json_t *o = json_pack("{s:s, s:s, s:s, s:o, s:o, s:o, s:{s:o, s:o, s:o, s:o}, "
			 "s:{s:o, s:o, s:o, s:o}, s:o, s:b}",
			 "tracer", k->tracer, "command", k->command, "status", k->status,
			 "reason", k->reason[0] ? json_string(k->reason) : json_null(),
			 "events_per_run", k->events_per_run >= 0 ?
			 json_integer(k->events_per_run) : json_null(), "base_ms", num(k->base_ms),
			 "predicted", "ns_per_event", num(k->pred_ns), "ci95", ci(k->pred_lo, k->pred_hi),
			 "slowdown_pct", num(k->pred_pct), "slowdown_ci95",
			 ci(k->pred_pct_lo, k->pred_pct_hi),
			 "measured", "ns_per_event", num(k->meas_ns), "ci95", ci(k->meas_lo, k->meas_hi),
			 "slowdown_pct", num(k->meas_pct), "slowdown_ci95",
			 ci(k->meas_pct_lo, k->meas_pct_hi),
			 "error_pct", num(k->error_pct), "cis_overlap", k->within);

	if (k->audit)
		json_object_set_new(o, "audit", json_pack(
			"{s:o, s:o, s:o, s:o}", "named_per_run", k->named_per_run >= 0 ?
			json_integer(k->named_per_run) : json_null(), "records_per_run",
			k->records_per_run[0] >= 0 ? records_json(k->records_per_run) : json_null(),
			"lower_ns_per_event", num(k->lower_ns), "upper_ns_per_event", num(k->upper_ns)));
	return o;
}

char *doc_budget_json(const struct budget *b)
{
	json_t *tracers = json_array(), *checks = json_array(), *doc;
	char *s;

	for (int i = 0; i < b->ntracers; i++)
		json_array_append_new(tracers, tracer_json(b, &b->tracers[i]));
	for (int i = 0; i < b->nchecks; i++)
		json_array_append_new(checks, check_json(&b->checks[i]));
	doc = json_pack("{s:s, s:i, s:{s:s, s:s, s:s, s:s, s:i, s:s}, s:i, s:o, s:o, s:o}",
			"kind", "budget", "schema_version", BUDGET_SCHEMA_VERSION,
			"environment", "hostname", b->env.hostname, "kernel", b->env.kernel,
			"tracetax_version", b->env.tracetax_version, "started", b->env.started,
			"cpus", b->env.cpus, "cpu_model", b->env.cpu_model,
			"max_age_h", b->max_age_h, "rates", rates_json(&b->rates),
			"tracers", tracers, "checks", checks);
	if (!doc)
		die("cannot build the budget document");
	s = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(doc);
	if (!s)
		die("out of memory");
	return s;
}

int doc_budget_write(const struct budget *b, const char *path)
{
	char *s = doc_budget_json(b), *text;
	int ret;

	if (asprintf(&text, "%s\n", s) < 0)
		die("out of memory");
	ret = atomic_file_text(path, text);
	free(text);
	free(s);
	return ret;
}

/* A string field into @dst: 0, or -1 when it is missing or not a string. */
static int get_str(json_t *o, const char *key, char *dst, size_t len)
{
	json_t *v = json_object_get(o, key);

	if (!json_is_string(v))
		return -1;
	snprintf(dst, len, "%s", json_string_value(v));
	return 0;
}

/* A number or null (NaN): 0, or -1 when it is something else. */
static int get_num(json_t *o, const char *key, double *out)
{
	json_t *v = json_object_get(o, key);

	if (json_is_null(v)) {
		*out = NAN;
		return 0;
	}
	if (!json_is_number(v))
		return -1;
	*out = json_number_value(v);
	return 0;
}

/* An array's number or null (NaN), as get_num */
static int num_at(json_t *a, size_t i, double *out)
{
	json_t *v = json_array_get(a, i);

	if (json_is_null(v)) {
		*out = NAN;
		return 0;
	}
	if (!json_is_number(v))
		return -1;
	*out = json_number_value(v);
	return 0;
}

/*
 * A stored `budget --attached` document (budget_attached.c records it
 * beside the budgets): the report's section takes it as a budget whose
 * lines are its owners', then its total beside bpftop's method.
 */
/* An owner's own CPU, appended to its line (none in a document from before it); -1: malformed */
static int own_str(json_t *o, char *buf, size_t len)
{
	json_t *added = json_object_get(o, "own_cpu_added");
	double own;

	if (!json_object_get(o, "own_cpu_pct"))
		return 0;
	if (get_num(o, "own_cpu_pct", &own) || !json_is_boolean(added))
		return -1;
	if (isfinite(own))
		snprintf(buf, len, "; its own CPU %.3g%%%s", own, json_is_true(added) ? "" :
			 " (in its consumers' cost already)");
	return 0;
}

static int read_attached(json_t *d, json_t *env, struct budget_brief *b, char *err, size_t errlen)
{
	json_t *owners = json_object_get(d, "owners"), *total = json_object_get(d, "total"), *v;
	json_t *ci = json_object_get(total, "share_ci95");
	double share, bt, lo, hi, own;
	size_t i;

	if (!json_is_object(env) || !json_is_array(owners) || !json_is_object(total) ||
	    get_str(env, "started", b->started, sizeof(b->started)) ||
	    get_str(env, "hostname", b->host, sizeof(b->host)) ||
	    get_num(d, "seconds", &b->seconds) || get_num(total, "share_pct", &share) ||
	    get_num(total, "bpftop_share_pct", &bt) || json_array_size(ci) != 2 ||
	    num_at(ci, 0, &lo) || num_at(ci, 1, &hi)) {
		snprintf(err, errlen, "an attached document without its environment, owners or total");
		return -1;
	}
	b->per_s = 0;
	b->t = calloc(json_array_size(owners) + 1, sizeof(*b->t));
	b->k = calloc(1, sizeof(*b->k));
	if (!b->t || !b->k)
		die("out of memory");
	json_array_foreach(owners, i, v) {
		char comm[64], line[256];
		double per_s, sh, obt;
		json_t *pid = json_object_get(v, "pid");

		if (!json_is_object(v) || get_str(v, "comm", comm, sizeof(comm)) ||
		    get_num(v, "per_s", &per_s) || get_num(v, "share_pct", &sh) ||
		    get_num(v, "bpftop_share_pct", &obt) || !(json_is_integer(pid) || json_is_null(pid))) {
			snprintf(err, errlen, "/owners/%zu: not an owner", i);
			return -1;
		}
		b->per_s += isfinite(per_s) ? per_s : 0;
		snprintf(b->t[b->ntracers].tracer, sizeof(b->t[0].tracer), "%s", comm);
		if (isfinite(sh))
			snprintf(line, sizeof(line), "%s %lld: %.0f events/s, %.3g%% of the box's CPU "
				 "(bpftop's method: %.3g%%)", comm, (long long)json_integer_value(pid),
				 per_s, sh, obt);
		else
			snprintf(line, sizeof(line), "%s %lld: %.0f events/s, no cost known",
				 comm, (long long)json_integer_value(pid), per_s);
		if (own_str(v, line + strlen(line), sizeof(line) - strlen(line))) {
			snprintf(err, errlen, "/owners/%zu: not an owner", i);
			return -1;
		}
		snprintf(b->t[b->ntracers++].verdict, sizeof(b->t[0].verdict), "%s", line);
	}
	snprintf(b->scope, sizeof(b->scope), "what is attached (budget --attached): %.3g%% of the "
		 "box's CPU [%.3g, %.3g], bpftop's method %.3g%%", share, lo, hi, bt);
	/* the collateral, of the total: documents from before it have none */
	if (json_object_get(total, "collateral_share_pct")) {
		double coll;

		if (get_num(total, "collateral_share_pct", &coll)) {
			snprintf(err, errlen, "/total/collateral_share_pct: not a number");
			return -1;
		}
		if (isfinite(coll))
			snprintf(b->scope + strlen(b->scope), sizeof(b->scope) - strlen(b->scope),
				 ", of which %.3g%% the syscalls their hooks do not see (collateral)", coll);
	}
	/* the owners' own CPU: documents from before it have none */
	if (json_object_get(total, "own_cpu_pct")) {
		if (get_num(total, "own_cpu_pct", &own)) {
			snprintf(err, errlen, "/total/own_cpu_pct: not a number");
			return -1;
		}
		if (isfinite(own))
			snprintf(b->scope + strlen(b->scope), sizeof(b->scope) - strlen(b->scope),
				 "; the owners' own CPU %.3g%% more", own);
	}
	return 0;
}

int doc_read_budget(const char *text, size_t len, struct budget_brief *b, char *err,
		    size_t errlen)
{
	json_error_t je;
	json_t *d = json_loadb(text, len, 0, &je), *env, *rates, *tracers, *checks, *v;
	size_t i;
	int ret = -1;

	memset(b, 0, sizeof(*b));
	if (!d) {
		snprintf(err, errlen, "not JSON: %s", je.text);
		return -1;
	}
	env = json_object_get(d, "environment");
	if (json_is_string(json_object_get(d, "kind")) &&
	    !strcmp(json_string_value(json_object_get(d, "kind")), "attached")) {
		ret = read_attached(d, env, b, err, errlen);
		goto out;
	}
	rates = json_object_get(d, "rates");
	tracers = json_object_get(d, "tracers");
	checks = json_object_get(d, "checks");
	if (!json_is_string(json_object_get(d, "kind")) ||
	    strcmp(json_string_value(json_object_get(d, "kind")), "budget")) {
		snprintf(err, errlen, "not a budget document (kind)");
		goto out;
	}
	if (!json_is_object(env) || !json_is_object(rates) || !json_is_array(tracers) ||
	    !json_is_array(checks) || get_str(env, "started", b->started, sizeof(b->started)) ||
	    get_str(env, "hostname", b->host, sizeof(b->host)) ||
	    get_str(rates, "scope", b->scope, sizeof(b->scope)) ||
	    get_num(rates, "seconds", &b->seconds) || get_num(rates, "per_s", &b->per_s)) {
		snprintf(err, errlen, "a budget document without its environment or rates");
		goto out;
	}
	b->t = calloc(json_array_size(tracers) + 1, sizeof(*b->t));
	b->k = calloc(json_array_size(checks) + 1, sizeof(*b->k));
	if (!b->t || !b->k)
		die("out of memory");
	json_array_foreach(tracers, i, v) {
		if (!json_is_object(v) ||
		    get_str(v, "tracer", b->t[b->ntracers].tracer, sizeof(b->t[0].tracer)) ||
		    get_str(v, "verdict", b->t[b->ntracers].verdict, sizeof(b->t[0].verdict))) {
			snprintf(err, errlen, "/tracers/%zu: want tracer and verdict strings", i);
			goto out;
		}
		b->ntracers++;
	}
	json_array_foreach(checks, i, v) {
		json_t *p = json_object_get(v, "predicted"), *m = json_object_get(v, "measured");
		json_t *ov = json_object_get(v, "cis_overlap");

		if (!json_is_object(v) || !json_is_object(p) || !json_is_object(m) ||
		    !json_is_boolean(ov) ||
		    get_str(v, "tracer", b->k[b->nchecks].tracer, sizeof(b->k[0].tracer)) ||
		    get_str(v, "command", b->k[b->nchecks].command, sizeof(b->k[0].command)) ||
		    get_str(v, "status", b->k[b->nchecks].status, sizeof(b->k[0].status)) ||
		    get_num(p, "slowdown_pct", &b->k[b->nchecks].pred_pct) ||
		    get_num(m, "slowdown_pct", &b->k[b->nchecks].meas_pct) ||
		    get_num(v, "error_pct", &b->k[b->nchecks].error_pct)) {
			snprintf(err, errlen, "/checks/%zu: not a check", i);
			goto out;
		}
		b->k[b->nchecks++].overlap = json_is_true(ov);
	}
	ret = 0;
out:
	json_decref(d);
	if (ret)	/* what was read before the fault: the caller has nothing to free */
		doc_budget_brief_release(b);
	return ret;
}

void doc_budget_brief_release(struct budget_brief *b)
{
	free(b->t);
	free(b->k);
	b->t = NULL;
	b->k = NULL;
	b->ntracers = b->nchecks = 0;
}
