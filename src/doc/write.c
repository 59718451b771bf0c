/*
 * The results document (docs/schema.md): what tests, reports and the
 * results store read. Undefined figures are null, never NaN (not JSON) and
 * never 0 (which would read as "free").
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/atomic_file.h"
#include "base/json_num.h"
#include "base/utf8.h"
#include "cli/claims.h"
#include "doc/write.h"
#include "results/results.h"
#include "base/util.h"

#define SCHEMA_VERSION 3

/*
 * Every string of the document goes through here: JSON is UTF-8, and
 * jansson returns NULL for anything else (a tool's last words in Latin-1,
 * a command line, a host name), which would lose the whole document.
 */
static json_t *str(const char *s)
{
	char *v;
	json_t *o;

	if (utf8_valid(s))
		return json_string(s);
	v = utf8_scrubbed(s);
	o = json_string(v);
	free(v);
	return o;
}

static json_t *str_or_null(const char *s)
{
	return s[0] ? str(s) : json_null();
}

static json_t *count_or_null(int64_t v)
{
	return v < 0 ? json_null() : json_integer(v);
}

/* Seeds above 2^53 lose digits in JavaScript and in doubles: those go out
 * as a decimal string so a run can still be reproduced from the document. */
static json_t *seed_json(uint64_t seed)
{
	char buf[32];

	if (seed < (1ull << 53))
		return json_integer((json_int_t)seed);
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)seed);
	return json_string(buf);
}

static json_t *env_json(const struct environment *e)
{
	json_t *o = json_pack("{s:o, s:o, s:o, s:o, s:i, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
			 "kernel", str(e->kernel), "kernel_version", str(e->kernel_version),
			 "arch", str(e->arch), "cpu_model", str(e->cpu_model), "cpus", e->cpus,
			 "clocksource", str(e->clocksource), "virtualization", str(e->virtualization),
			 "mitigations", str(e->mitigations), "governor", str(e->governor),
			 "tracetax_version", str(e->tracetax_version), "hostname", str(e->hostname),
			 "started", str(e->started), "other_tracers", str(e->other_tracers),
			 "tools", str(e->tools));

	/*
	 * In a VM of --kernel: its accelerator (tcg: an emulated CPU, the ns are
	 * not costs). Absent otherwise, so that the documents of runs on the
	 * machine itself read and write back as they were.
	 */
	if (o && e->vm[0])
		json_object_set_new(o, "vm", str(e->vm));
	/* under qemu's -icount: every ns figure is an instruction; absent: ns */
	if (o && results_in_instructions(e))
		json_object_set_new(o, "unit", str("instructions"));
	return o;
}

static json_t *options_json(const struct run_options *o)
{
	return json_pack("{s:i, s:i, s:i, s:I, s:o, s:o, s:o, s:o, s:o, s:b, s:o, s:o, s:s}",
			 "reps", o->reps, "rounds", o->rounds > 0 ? o->rounds : 1, "run_ms", o->run_ms,
			 "iterations", (json_int_t)o->iterations,
			 "seed", seed_json(o->seed), "target", str_or_null(o->target),
			 "tracer_cpu", str(o->tracer_cpu[0] ? o->tracer_cpu : "same"),
			 "precision_pct", o->precision > 0 ? json_real(o->precision) : json_null(),
			 "max_time_s", o->max_time_s ? json_integer(o->max_time_s) : json_null(),
			 "latency", o->latency,
			 "msg_size", o->msg_size > 0 ? json_integer(o->msg_size) : json_null(),
			 "cpus", str_or_null(o->cpus), "placement", o->rotate ? "rotate" : "first");
}

static json_t *pair(double a, double b)
{
	return json_pack("[o, o]", json_num(a), json_num(b));
}

static json_t *summary_json(const struct summary *s)
{
	return json_pack("{s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
			 "n", (json_int_t)s->n, "mean", json_num(s->mean), "median", json_num(s->median),
			 "stddev", json_num(s->stddev), "min", json_num(s->min), "max", json_num(s->max),
			 "ci95", pair(s->ci95[0], s->ci95[1]),
			 "median_ci95", pair(s->median_ci95[0], s->median_ci95[1]));
}

static json_t *run_json(const struct rep *r, int threads)
{
	/* cycles are 0 when the TSC was not usable: null, not "free" */
	json_t *o = json_pack("{s:o, s:o, s:o, s:o, s:I, s:o, s:I, s:o, s:o, s:b, s:b}",
			 "baseline_ns_per_op", json_num(r->base_ns_per_op),
			 "traced_ns_per_op", json_num(r->traced_ns_per_op),
			 "baseline_cycles_per_op", json_num(r->base_cycles_per_op > 0 ? r->base_cycles_per_op : NAN),
			 "traced_cycles_per_op", json_num(r->traced_cycles_per_op > 0 ? r->traced_cycles_per_op : NAN),
			 "events", (json_int_t)r->events, "hits", count_or_null(r->hits),
			 "lost", (json_int_t)r->lost, "stops", count_or_null(r->stops),
			 "consumer_ns", json_num(r->consumer_ns),
			 "traced_first", r->traced_first, "outlier", r->outlier);

	if (!o)
		die("out of memory");
	json_object_set_new(o, "kernel_consumer_ns", json_num(r->kernel_consumer_ns));
	json_object_set_new(o, "startup_ms", json_num(r->startup_ms > 0 ? r->startup_ms : NAN));
	json_object_set_new(o, "shutdown_ms", json_num(r->shutdown_ms > 0 ? r->shutdown_ms : NAN));
	json_object_set_new(o, "round", json_integer(r->round));
	json_object_set_new(o, "wall_ms", json_num(r->wall_ms));
	json_object_set_new(o, "steal_ms", json_num(r->steal_ms));
	json_object_set_new(o, "cpu_mhz", pair(r->mhz_min, r->mhz_max));
	output_json_rep_dist(o, r, threads);
	return o;
}

/* Figures only for cells that measured: a failed cell's partial reps stay
 * in "runs" for diagnosis but get no summary a reader could mistake. */
static void cell_stats(json_t *o, const struct cell *c, bool repeat)
{
	bool ok = c->status == CELL_OK && c->nreps > 0;

	json_object_set_new(o, "baseline_ns_per_op", ok ? summary_json(&c->base) : json_null());
	json_object_set_new(o, "traced_ns_per_op", ok ? summary_json(&c->traced) : json_null());
	json_object_set_new(o, "overhead_ns_per_event", ok ? summary_json(&c->overhead) : json_null());
	json_object_set_new(o, "slowdown", ok ? json_num(c->slowdown) : json_null());
	json_object_set_new(o, "baseline_cv", ok ? json_num(c->base_cv) : json_null());
	json_object_set_new(o, "outliers", json_integer(ok ? c->outliers : 0));
	json_object_set_new(o, "consumer_ns_per_event", ok ? json_num(c->consumer_ns_per_event) : json_null());
	json_object_set_new(o, "kernel_consumer_ns_per_event",
			    ok ? json_num(c->kernel_consumer_ns_per_event) : json_null());
	json_object_set_new(o, "slowdown_ci95", ok ? pair(c->slowdown_ci95[0], c->slowdown_ci95[1])
						  : json_null());
	json_object_set_new(o, "below_noise_floor", json_boolean(ok && c->below_floor));
	json_object_set_new(o, "rounds", json_integer(ok ? c->rounds : 0));
	json_object_set_new(o, "between_round_share", ok ? json_num(c->between_share) : json_null());
	/* absent in a document read from before the repeat interval, as it was */
	if (repeat)
		json_object_set_new(o, "repeat95", ok ? pair(c->repeat95[0], c->repeat95[1]) : json_null());
	json_object_set_new(o, "precision", !ok ? json_null() :
		json_pack("{s:o, s:o, s:s}",
			  "target_pct", c->precision_pct > 0 ? json_real(c->precision_pct) : json_null(),
			  "reached_pct", json_num(c->reached_pct), "ended_by", cell_end_name(c->ended_by)));
	json_object_set_new(o, "startup_ms", ok && c->startup_ms > 0 ? json_num(c->startup_ms) : json_null());
	json_object_set_new(o, "shutdown_ms", ok && c->shutdown_ms > 0 ? json_num(c->shutdown_ms)
								: json_null());
	json_object_set_new(o, "steal_pct", ok ? json_num(c->steal_pct) : json_null());
	json_object_set_new(o, "cpu_mhz", ok ? pair(c->mhz_min, c->mhz_max) : json_null());
	json_object_set_new(o, "hits_per_event", ok ? json_num(c->hits_per_event) : json_null());
	if (ok && c->nper_cpu) {
		json_t *a = json_array();

		for (int k = 0; k < c->nper_cpu; k++)
			json_array_append_new(a, json_pack("{s:i, s:i, s:i, s:o, s:o}", "cpu",
							   c->per_cpu[k].cpu, "reps", c->per_cpu[k].n,
							   "rounds", c->per_cpu[k].rounds,
							   "mean", json_num(c->per_cpu[k].mean), "ci95",
							   pair(c->per_cpu[k].ci95[0],
								c->per_cpu[k].ci95[1])));
		json_object_set_new(o, "overhead_per_cpu", a);
		json_object_set_new(o, "cpus_differ", json_boolean(c->cpus_differ));
	}
	json_object_set_new(o, "overhead_ns_per_hit", ok ? json_num(c->ns_per_hit) : json_null());
	json_object_set_new(o, "throughput", !ok || c->bytes_per_event <= 0 ? json_null() :
		json_pack("{s:I, s:o, s:o, s:o, s:o}", "bytes_per_event", (json_int_t)c->bytes_per_event,
			  "baseline_mb_per_s", json_num(c->base_mbps), "traced_mb_per_s", json_num(c->traced_mbps),
			  "loss_pct", json_num(c->loss_pct), "loss_ci95", pair(c->loss_ci95[0], c->loss_ci95[1])));
}

/* BPF cells: the program's own time (BPF stats, after the reps); null for the others. */
static json_t *prog_json(const struct cell *c)
{
	const struct prog_time *p = &c->prog;
	bool m = p->measured;

	if (!p->bpf || c->status != CELL_OK)
		return json_null();
	return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
			 "ns_per_run", m ? json_num(p->ns_per_run) : json_null(),
			 "ns_per_run_range", m ? pair(p->range[0], p->range[1]) : json_null(),
			 "runs", m ? json_integer(p->runs) : json_null(),
			 "run_cnt", m ? json_integer(p->run_cnt) : json_null(),
			 "run_time_ns", m ? json_num(p->run_ns) : json_null(),
			 "hits", m ? count_or_null(p->hits) : json_null(),
			 "events", m ? json_integer(p->events) : json_null(),
			 "dispatch_ns_per_event", m ? json_num(p->dispatch_ns) : json_null(),
			 "reason", str_or_null(p->reason));
}

static json_t *cell_json(const struct cell *c, bool repeat)
{
	json_t *runs = json_array();
	json_t *o = json_pack("{s:o, s:o, s:o, s:i, s:o, s:o, s:s, s:o, s:b, s:b, s:I, s:I, s:I, s:I, "
			      "s:i, s:I, s:o, s:I, s:o}",
			      "workload", str(c->workload), "tracer", str(c->tracer),
			      "target", str_or_null(c->target), "threads", c->threads,
			      "id", str(c->id), "seed", seed_json(c->seed),
			      "status", cell_status_name(c->status), "reason", str_or_null(c->reason),
			      "aa", c->aa, "hits_upto", c->hits_upto,
			      "iterations", (json_int_t)c->iterations,
			      "warmup", (json_int_t)c->warmup,
			      "baseline_iterations", (json_int_t)c->base_iterations,
			      "baseline_warmup", (json_int_t)c->base_warmup, "reps", c->nreps,
			      "events", (json_int_t)c->events, "hits", count_or_null(c->hits),
			      "lost", (json_int_t)c->lost, "stops", count_or_null(c->stops));

	if (!o || !runs)
		die("out of memory");
	cell_stats(o, c, repeat);
	json_object_set_new(o, "program", prog_json(c));
	json_object_set_new(o, "verified_syscall", str_or_null(c->verified_syscall));
	json_object_set_new(o, "disturbed", json_boolean(c->disturbed));
	json_object_set_new(o, "disturbed_by", str_or_null(c->disturbed_by));
	json_object_set_new(o, "tracer_note", str_or_null(c->tracer_note));
	json_object_set_new(o, "note", str_or_null(c->note));
	output_json_cell_dist(o, c);
	if (!strncmp(c->workload, "cmd:", 4)) {
		bool n = c->cmd.events_per_run < 0;	/* failed before its counting pass ended */

		json_object_set_new(o, "command", json_pack("{s:o, s:o, s:o, s:o, s:o, s:o}",
			"events_per_run", count_or_null(c->cmd.events_per_run),
			"main_events_per_run", n ? json_null() : json_integer(c->cmd.main_events),
			"events_cv", n ? json_null() : json_num(c->cmd.events_cv),
			"run_ms", n ? json_null() : json_num(c->cmd.run_ms),
			"exit_status", count_or_null(c->cmd.exit_status),
			"output", str_or_null(c->cmd.output)));
	}
	/* audit:rules: the rule set its walk is of */
	if (c->audit_rules.file[0])
		json_object_set_new(o, "audit_rules", json_pack("{s:s, s:s, s:i}",
			"file", c->audit_rules.file, "digest", c->audit_rules.digest,
			"rules", c->audit_rules.rules));
	for (int i = 0; i < c->nreps; i++)
		json_array_append_new(runs, run_json(&c->reps[i], c->threads));
	json_object_set_new(o, "runs", runs);
	return o;
}

static json_t *floors_json(const struct results *r)
{
	json_t *a = json_array();

	for (int i = 0; i < r->nfloors; i++) {
		const struct noise_floor *f = &r->floors[i];

		json_array_append_new(a, json_pack("{s:o, s:i, s:o, s:o, s:b}", "workload", str(f->workload),
						   "threads", f->threads, "ns_per_event", json_num(f->ns),
						   "aa_ci95", pair(f->ci95[0], f->ci95[1]),
						   "aa_excludes_zero", f->excludes_zero));
	}
	return a;
}

static json_t *results_json(const struct results *r)
{
	json_t *cells = json_array();
	json_t *doc = json_pack("{s:o, s:i, s:o, s:o, s:o}",
				"tracetax_version", str(r->env.tracetax_version),
				"schema_version", SCHEMA_VERSION,
				"environment", env_json(&r->env),
				"options", options_json(&r->opts),
				"elapsed_s", json_num(r->elapsed_s));

	if (!doc || !cells)
		die("out of memory");
	for (int i = 0; i < r->ncells; i++)
		json_array_append_new(cells, cell_json(&r->cells[i], r->drift.known));
	json_object_set_new(doc, "timing", output_json_timing(&r->timing));
	json_object_set_new(doc, "noise_floors", floors_json(r));
	json_object_set_new(doc, "bpf_stats_cost", !r->stats_cost.measured ? json_null() :
		json_pack("{s:o, s:o, s:i, s:i, s:o, s:o}", "tracer", str(r->stats_cost.tracer),
			  "workload", str(r->stats_cost.workload), "threads", r->stats_cost.threads,
			  "pairs", r->stats_cost.pairs, "ns_per_event", json_num(r->stats_cost.mean),
			  "ci95", pair(r->stats_cost.ci95[0], r->stats_cost.ci95[1])));
	if (r->audit_residue.measured)
		json_object_set_new(doc, "audit_residue",
			json_pack("{s:b, s:o, s:o, s:o}", "was_on", r->audit_residue.was_on,
				  "before_ns", json_num(r->audit_residue.before_ns),
				  "never_task_ns", json_num(r->audit_residue.never_ns),
				  "after_ns", json_num(r->audit_residue.after_ns)));
	if (results_slow_path_said(&r->slow_path)) {
		const struct slow_path *s = &r->slow_path;
		json_t *causes = s->known ? json_array() : json_null();

		for (int i = 0; s->known && i < SLOW_NCAUSES; i++)
			if (s->causes & (1u << i))
				json_array_append_new(causes, json_string(slow_cause_names[i]));
		json_object_set_new(doc, "syscall_slow_path",
			json_pack("{s:o, s:o, s:o, s:o, s:o, s:o}", "causes", causes,
				  "unknown", str_or_null(s->unknown),
				  "audit_enabled", s->audit_enabled >= 0 ?
					json_integer(s->audit_enabled) : json_null(),
				  "tracepoints", str_or_null(s->tracepoints),
				  "getpid_ns", json_num(s->getpid_ns),
				  "never_task_getpid_ns", json_num(s->never_task_ns)));
	}
	if (r->drift.known)
		json_object_set_new(doc, "repeat_drift",
			json_pack("{s:o, s:o, s:i, s:i, s:o, s:o}",
				  "basis", repeat_basis_name(r->drift.basis) ?
				  str(repeat_basis_name(r->drift.basis)) : json_null(),
				  "tau", json_num(r->drift.tau), "runs", r->drift.runs, "cells", r->drift.cells,
				  "window_days", json_integer(REPEAT_WINDOW_DAYS),
				  "note", str_or_null(r->drift.note)));
	json_object_set_new(doc, "cells", cells);
	/* a plan's claims (claims.h); a plain run's document has none: absent reads as null */
	if (r->nclaims)
		json_object_set_new(doc, "claims", claims_json(r->claims, r->nclaims));
	return doc;
}

/*
 * The shortest decimal that reads back as the same double, as jansson
 * spells a real (no '+' or leading zeros in the exponent, ".0" when it
 * would read as an integer): 95.8, not 95.799999999999997, yet every bit
 * kept. 15 digits alone are not enough: 3.1449999999999996 would come back
 * as 3.145, and show would print 3.15 where run printed 3.14.
 */
static void put_real(FILE *f, double v)
{
	char buf[40], *e, *d;

	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	e = strchr(buf, 'e');
	if (e) {	/* 1e-09 -> 1e-9, 1.5e+16 -> 1.5e16 */
		bool neg = e[1] == '-';

		d = e + 1 + (e[1] == '+' || e[1] == '-');
		while (*d == '0' && d[1])
			d++;
		fwrite(buf, 1, (size_t)(e + 1 - buf), f);
		if (neg)
			fputc('-', f);
		fputs(d, f);
		return;
	}
	fputs(buf, f);
	if (!strchr(buf, '.'))	/* NaN and infinities never come: num() makes them null */
		fputs(".0", f);
}

/*
 * jansson prints every real at one precision; the document's are 17
 * digits (exact), rewritten here to their shortest exact spelling. Only
 * numbers outside strings that have a '.' or an exponent are reals.
 */
static char *shortest_reals(const char *s)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	bool in_str = false;

	if (!f)
		die("out of memory");
	while (*s) {
		if (in_str) {
			if (*s == '\\' && s[1]) {
				fputc(*s++, f);
			} else if (*s == '"') {
				in_str = false;
			}
			fputc(*s++, f);
		} else if (*s == '"') {
			in_str = true;
			fputc(*s++, f);
		} else if (*s == '-' || (*s >= '0' && *s <= '9')) {
			size_t n = strspn(s, "0123456789+-.eE");

			if (memchr(s, '.', n) || memchr(s, 'e', n) || memchr(s, 'E', n))
				put_real(f, strtod(s, NULL));
			else
				fwrite(s, 1, n, f);
			s += n;
		} else {
			fputc(*s++, f);
		}
	}
	if (fclose(f) || !out)
		die("out of memory");
	return out;
}

char *output_json_string(const struct results *r)
{
	json_t *doc = results_json(r);
	char *s = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
	char *out;

	json_decref(doc);
	if (!s)
		die("out of memory");
	out = shortest_reals(s);
	free(s);
	return out;
}

/* The document whole or not at all; "-" is stdout (base/atomic_file.h). */
int output_json_file(const struct results *r, const char *path)
{
	char *s = output_json_string(r), *text;
	int ret;

	if (asprintf(&text, "%s\n", s) < 0)
		die("out of memory");
	ret = atomic_file_text(path, text);
	free(text);
	free(s);
	return ret;
}
