/*
 * The attached document (docs/schema.md, "attached"): every consumer found,
 * what it took over the window, and its owners. What was not counted is
 * null, never 0.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/util.h"
#include "doc/attached.h"
#include "doc/budget.h"

static json_t *num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *count(int64_t v)
{
	return v >= 0 ? json_integer((json_int_t)v) : json_null();
}

static json_t *str_or_null(const char *s)
{
	return s[0] ? json_string(s) : json_null();
}

static json_t *proc_json(const struct att_proc *p)
{
	return json_pack("{s:i, s:s, s:s}", "pid", (int)p->pid, "comm", p->comm, "cmdline",
			 p->cmdline);
}

/* "getpid, stat" as ["getpid", "stat"] */
static json_t *workloads_json(const char *s)
{
	json_t *a = json_array();

	for (const char *p = s; *p;) {
		size_t n = strcspn(p, ",");

		json_array_append_new(a, json_stringn(p, n));
		p += n;
		p += strspn(p, ", ");
	}
	return a;
}

static json_t *cost_json(const struct att_cost *c)
{
	return json_pack("{s:o, s:o, s:o, s:o, s:o, s:b, s:o, s:o, s:o, s:o, s:o, s:b, s:o, s:o, s:o,"
			 " s:o}",
			 "tracer", str_or_null(c->tracer), "source", str_or_null(c->source),
			 "why", str_or_null(c->why),
			 "run_id", c->run_id ? json_integer(c->run_id) : json_null(),
			 "workloads", workloads_json(c->workloads),
			 "per_cpu_weighted", c->per_cpu_weighted,
			 "tracer_ns_per_event", num(c->cell_ns),
			 "tracer_ci95", json_pack("[o, o]", num(c->cell_lo), num(c->cell_hi)),
			 "program_ns", isfinite(c->ns) ? num(c->prog_ns) : json_null(),
			 "dispatch_ns", num(c->disp_ns),
			 "dispatch_ci95", json_pack("[o, o]", num(c->disp_lo), num(c->disp_hi)),
			 "floor", c->floor, "ns_per_event", num(c->ns),
			 "ci95", json_pack("[o, o]", num(c->lo), num(c->hi)),
			 "share_pct", num(c->share),
			 "share_ci95", json_pack("[o, o]", num(c->share_lo), num(c->share_hi)));
}

/* What it costs the syscalls it does not see (results/attached.h, att_collateral) */
static json_t *coll_json(const struct att_collateral *c)
{
	bool have = c->source[0] && !c->shared;

	return json_pack("{s:b, s:b, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
			 "box", c->box, "shared", c->shared, "why", str_or_null(c->why),
			 "events", count(c->events), "per_s", num(c->rate),
			 "tracer", have ? json_string(c->tracer) : json_null(),
			 "workload", have ? json_string(c->workload) : json_null(),
			 "target", have ? json_string(c->target) : json_null(),
			 "source", have ? json_string(c->source) : json_null(),
			 "run_id", have && c->run_id ? json_integer(c->run_id) : json_null(),
			 "ns_per_syscall", num(c->cell_ns),
			 "ci95", json_pack("[o, o]", num(c->cell_lo), num(c->cell_hi)),
			 "share_pct", num(c->share),
			 "share_ci95", json_pack("[o, o]", num(c->share_lo), num(c->share_hi)));
}

static json_t *row_json(const struct att_row *r)
{
	json_t *holders = json_array(), *o;

	for (int k = 0; k < r->c.nholders; k++)
		json_array_append_new(holders, proc_json(&r->c.holders[k]));
	o = json_pack("{s:s, s:s, s:s, s:s, s:o, s:o, s:o, s:o, s:o, s:s, s:o, s:o, s:o, s:o,"
			 " s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
			 "kind", att_kind_name(r->c.kind), "key", r->c.key, "mechanism", r->c.mech,
			 "attached_to", r->c.what, "name", str_or_null(r->c.name),
			 "prog_id", r->c.prog_id ? json_integer(r->c.prog_id) : json_null(),
			 "pin", str_or_null(r->c.pin), "holders", holders,
			 "target_pid", r->c.target ? json_integer(r->c.target) : json_null(),
			 "state", r->state, "why", str_or_null(r->why),
			 "source", str_or_null(r->source), "seconds", num(r->seconds),
			 "events", count(r->events), "per_s", num(r->rate), "lost", count(r->lost),
			 "run_cnt", count(r->run_cnt), "run_time_ns", num(r->run_ns),
			 "prog_ns_per_run", num(r->prog_ns), "cost", cost_json(&r->cost),
			 "collateral", coll_json(&r->coll),
			 "bpftop_share_pct", num(r->cost.bpftop_share));
	/* the rate is the count's over the window at this pace (measure/pace.h) */
	if (o)
		json_object_set_new(o, "pace", num(r->pace));
	return o;
}

static json_t *audit_cost_json(const struct budget_audit_cost *c)
{
	bool have = c->source[0];
	json_t *o;

	o = json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
			 "tracer", have ? json_string(c->tracer) : json_null(),
			 "source", str_or_null(c->source), "why", str_or_null(c->reason),
			 "run_id", have && c->run_id ? json_integer(c->run_id) : json_null(),
			 "workload", have ? json_string(c->workload) : json_null(),
			 "ns_per_call", have ? num(c->ns) : json_null(),
			 "ci95", json_pack("[o, o]", have ? num(c->lo) : json_null(),
					   have ? num(c->hi) : json_null()));
	json_object_update_new(o, doc_walk_rules_json(c));
	return o;
}

static json_t *levels_json(double lower, double point, double upper)
{
	return json_pack("{s:o, s:o, s:o}", "lower", num(lower), "point", num(point),
			 "upper", num(upper));
}

/* The live rule set (docs/schema.md, "attached"): null when no rule is loaded */
static json_t *audit_json(const struct attached *a)
{
	const struct budget_audit *au = a->audit_set;
	const struct budget_audit_est *e;
	double s = a->rates.seconds, owner = NAN;
	json_t *o;
	bool have, priced;

	if (!au)
		return a->audit_why[0] ? json_pack("{s:s}", "why", a->audit_why) : json_null();
	e = &au->box;
	have = e->events > 0 && s > 0;
	/* records priced at an auditd's cost where none consumes them: none (the consumer's floor) */
	priced = have && !attached_audit_no_auditd(a);
	if (have && isfinite(a->audit_owner_cpu_ns) && a->seconds > 0)
		owner = a->audit_owner_cpu_ns / (a->seconds * a->cpus * 1e9) * 100;
#define PER_S(v) (have ? (double)(v) / s : NAN)
	o = json_pack("{s:i, s:o, s:i, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
			 "rules", au->nrules, "digest", str_or_null(au->digest),
			 "exit_rules", au->exit_rules,
			 "calls_per_s", num(PER_S(e->events)),
			 "named_per_s", num(PER_S(e->named)),
			 "records_per_s", levels_json(PER_S(e->records[AUDIT_LOWER]),
						      PER_S(e->records[AUDIT_POINT]),
						      PER_S(e->records[AUDIT_UPPER])),
			 "walk_per_s", num(PER_S(e->events - e->no_ctx - e->records[AUDIT_POINT])),
			 "record", audit_cost_json(&au->record),
			 "walk", audit_cost_json(&au->walk),
			 "walk_path", audit_cost_json(&au->walk_path),
			 "walk_note", str_or_null(a->audit_walk_how),
			 "share_pct", levels_json(priced ? e->lo[AUDIT_LOWER] / s / (a->cpus * 1e9) * 100 : NAN,
						  priced ? e->ns[AUDIT_POINT] / s / (a->cpus * 1e9) * 100 : NAN,
						  priced ? e->hi[AUDIT_UPPER] / s / (a->cpus * 1e9) * 100 : NAN),
			 "owner_cpu_pct", num(owner));
	json_object_set_new(o, "record_path", audit_cost_json(&au->record_path));
	json_object_set_new(o, "no_context_per_s", num(PER_S(e->no_ctx)));
	json_object_set_new(o, "task_never", json_boolean(au->task_never));
	return o;
#undef PER_S
}

static json_t *owner_json(const struct att_owner *o)
{
	return json_pack("{s:o, s:s, s:s, s:i, s:i, s:i, s:f, s:f, s:o, s:[o, o], s:f, s:f, s:o, s:b,"
			 " s:o}",
			 "pid", o->p.pid ? json_integer(o->p.pid) : json_null(), "comm", o->p.comm,
			 "cmdline", o->p.cmdline, "consumers", o->nrows, "uncounted", o->nuncounted,
			 "floors", o->nfloor, "per_s", o->rate, "prog_ns_per_s", o->prog_ns_total,
			 "share_pct", num(o->share), "share_ci95", num(o->share_lo), num(o->share_hi),
			 "collateral_share_pct", o->coll_share,
			 "bpftop_share_pct", o->bpftop_share, "own_cpu_pct", num(o->own_share),
			 "own_cpu_added", o->own_added, "own_cpu_why", str_or_null(o->own_why));
}

char *attached_json_string(const struct attached *a, const struct environment *env)
{
	json_t *rows = json_array(), *owners = json_array(), *d;
	char *text;

	for (int i = 0; i < a->nrows; i++)
		json_array_append_new(rows, row_json(&a->rows[i]));
	for (int i = 0; i < a->nowners; i++)
		json_array_append_new(owners, owner_json(&a->owners[i]));
	d = json_pack("{s:s, s:i, s:{s:s, s:s, s:s, s:s, s:i}, s:f, s:i,"
		      " s:{s:b, s:o, s:i, s:i}, s:{s:b, s:b, s:b, s:s}, s:{s:f, s:I, s:o},"
		      " s:{s:o, s:[o, o], s:f, s:i, s:o, s:f, s:i}, s:o, s:o, s:o}",
		      "kind", "attached", "schema_version", ATTACHED_SCHEMA_VERSION,
		      "environment", "hostname", env->hostname, "kernel", env->kernel,
		      "tracetax_version", env->tracetax_version, "started", env->started,
		      "cpus", env->cpus,
		      "seconds", a->seconds, "cpus", a->cpus,
		      "bpf_stats", "on", a->stats_on, "reason", str_or_null(a->stats_why),
		      "sysctl_before", a->stats_sysctl_before, "sysctl_after", a->stats_sysctl_after,
		      "unknown", "bpf", a->bpf_unknown, "tracefs", a->tracefs_unknown,
		      "processes", a->proc_partial, "audit", a->audit,
		      "syscalls", "seconds", a->rates.seconds, "events", (json_int_t)a->rates.events,
		      "reason", str_or_null(a->rates_why),
		      "total", "share_pct", num(a->share), "share_ci95", num(a->share_lo),
		      num(a->share_hi),
		      "bpftop_share_pct", a->bpftop_share, "floors", a->nfloor,
		      "own_cpu_pct", num(a->own_share), "own_cpu_in_cost_pct", a->own_in_cost,
		      "own_cpu_unread", a->own_unread,
		      "consumers", rows, "owners", owners, "audit_rules", audit_json(a));
	if (d) {
		json_t *t = json_object_get(d, "total");

		json_object_set_new(t, "seen_share_pct", num(a->seen_share));
		json_object_set_new(t, "seen_ci95", json_pack("[o, o]", num(a->seen_lo), num(a->seen_hi)));
		json_object_set_new(t, "collateral_share_pct", num(a->coll_share));
		json_object_set_new(t, "collateral_ci95", json_pack("[o, o]", num(a->coll_lo),
								    num(a->coll_hi)));
		budget_json_pace(json_object_get(d, "syscalls"), &a->rates);
		json_object_set_new(d, "slow_path", json_pack("{s:o, s:s}", "audit_residue",
			a->residue < 0 ? json_null() : json_boolean(a->residue), "how", a->residue_how));
	}
	if (!d)
		die("cannot build the attached document");
	text = json_dumps(d, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
	json_decref(d);
	if (!text)
		die("out of memory");
	return text;
}
