/*
 * The results document (docs/schema.md): what tests, reports and the
 * results store read. Undefined figures are null, never NaN (not JSON) and
 * never 0 (which would read as "free").
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "doc/write.h"
#include "doc/write.h"
#include "cli/claims.h"
#include "results/results.h"
#include "base/util.h"

#define SCHEMA_VERSION 3

static json_t *num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *str_or_null(const char *s)
{
	return s[0] ? json_string(s) : json_null();
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

static const char *status_name(enum cell_status s)
{
	switch (s) {
	case CELL_OK:      return "ok";
	case CELL_SKIPPED: return "skipped";
	case CELL_FAILED:  return "failed";
	}
	return "failed";
}

static json_t *env_json(const struct environment *e)
{
	return json_pack("{s:s, s:s, s:s, s:s, s:i, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s}",
			 "kernel", e->kernel, "kernel_version", e->kernel_version,
			 "arch", e->arch, "cpu_model", e->cpu_model, "cpus", e->cpus,
			 "clocksource", e->clocksource, "virtualization", e->virtualization,
			 "mitigations", e->mitigations, "governor", e->governor,
			 "tracetax_version", e->tracetax_version, "hostname", e->hostname,
			 "started", e->started, "other_tracers", e->other_tracers,
			 "tools", e->tools);
}

static json_t *options_json(const struct run_options *o)
{
	return json_pack("{s:i, s:i, s:I, s:o, s:o, s:s, s:o, s:o, s:b, s:o, s:o, s:s}",
			 "reps", o->reps, "run_ms", o->run_ms,
			 "iterations", (json_int_t)o->iterations,
			 "seed", seed_json(o->seed), "target", str_or_null(o->target),
			 "tracer_cpu", o->tracer_cpu[0] ? o->tracer_cpu : "same",
			 "precision_pct", o->precision > 0 ? json_real(o->precision) : json_null(),
			 "max_time_s", o->max_time_s ? json_integer(o->max_time_s) : json_null(),
			 "latency", o->latency,
			 "msg_size", o->msg_size > 0 ? json_integer(o->msg_size) : json_null(),
			 "cpus", str_or_null(o->cpus), "placement", o->rotate ? "rotate" : "first");
}

static json_t *pair(double a, double b)
{
	return json_pack("[o, o]", num(a), num(b));
}

static json_t *summary_json(const struct summary *s)
{
	return json_pack("{s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
			 "n", (json_int_t)s->n, "mean", num(s->mean), "median", num(s->median),
			 "stddev", num(s->stddev), "min", num(s->min), "max", num(s->max),
			 "ci95", pair(s->ci95[0], s->ci95[1]),
			 "median_ci95", pair(s->median_ci95[0], s->median_ci95[1]));
}

static const char *end_name(enum cell_end e)
{
	switch (e) {
	case END_REPS:      return "reps";
	case END_PRECISION: return "precision";
	case END_MAX_TIME:  return "max_time";
	case END_MAX_REPS:  return "max_reps";
	case END_STOPPED:   return "stopped";
	}
	return "stopped";
}

static json_t *run_json(const struct rep *r, int threads)
{
	/* cycles are 0 when the TSC was not usable: null, not "free" */
	json_t *o = json_pack("{s:o, s:o, s:o, s:o, s:I, s:o, s:I, s:o, s:o, s:b, s:b}",
			 "baseline_ns_per_op", num(r->base_ns_per_op),
			 "traced_ns_per_op", num(r->traced_ns_per_op),
			 "baseline_cycles_per_op", num(r->base_cycles_per_op > 0 ? r->base_cycles_per_op : NAN),
			 "traced_cycles_per_op", num(r->traced_cycles_per_op > 0 ? r->traced_cycles_per_op : NAN),
			 "events", (json_int_t)r->events, "hits", count_or_null(r->hits),
			 "lost", (json_int_t)r->lost, "stops", count_or_null(r->stops),
			 "consumer_ns", num(r->consumer_ns),
			 "traced_first", r->traced_first, "outlier", r->outlier);

	if (!o)
		die("out of memory");
	json_object_set_new(o, "startup_ms", num(r->startup_ms > 0 ? r->startup_ms : NAN));
	json_object_set_new(o, "shutdown_ms", num(r->shutdown_ms > 0 ? r->shutdown_ms : NAN));
	json_object_set_new(o, "wall_ms", num(r->wall_ms));
	json_object_set_new(o, "steal_ms", num(r->steal_ms));
	json_object_set_new(o, "cpu_mhz", pair(r->mhz_min, r->mhz_max));
	output_json_rep_dist(o, r, threads);
	return o;
}

/* Figures only for cells that measured: a failed cell's partial reps stay
 * in "runs" for diagnosis but get no summary a reader could mistake. */
static void cell_stats(json_t *o, const struct cell *c)
{
	bool ok = c->status == CELL_OK && c->nreps > 0;

	json_object_set_new(o, "baseline_ns_per_op", ok ? summary_json(&c->base) : json_null());
	json_object_set_new(o, "traced_ns_per_op", ok ? summary_json(&c->traced) : json_null());
	json_object_set_new(o, "overhead_ns_per_event", ok ? summary_json(&c->overhead) : json_null());
	json_object_set_new(o, "slowdown", ok ? num(c->slowdown) : json_null());
	json_object_set_new(o, "baseline_cv", ok ? num(c->base_cv) : json_null());
	json_object_set_new(o, "outliers", json_integer(ok ? c->outliers : 0));
	json_object_set_new(o, "consumer_ns_per_event", ok ? num(c->consumer_ns_per_event) : json_null());
	json_object_set_new(o, "slowdown_ci95", ok ? pair(c->slowdown_ci95[0], c->slowdown_ci95[1])
						  : json_null());
	json_object_set_new(o, "below_noise_floor", json_boolean(ok && c->below_floor));
	json_object_set_new(o, "precision", !ok ? json_null() :
		json_pack("{s:o, s:o, s:s}",
			  "target_pct", c->precision_pct > 0 ? json_real(c->precision_pct) : json_null(),
			  "reached_pct", num(c->reached_pct), "ended_by", end_name(c->ended_by)));
	json_object_set_new(o, "startup_ms", ok && c->startup_ms > 0 ? num(c->startup_ms) : json_null());
	json_object_set_new(o, "shutdown_ms", ok && c->shutdown_ms > 0 ? num(c->shutdown_ms)
								: json_null());
	json_object_set_new(o, "steal_pct", ok ? num(c->steal_pct) : json_null());
	json_object_set_new(o, "cpu_mhz", ok ? pair(c->mhz_min, c->mhz_max) : json_null());
	json_object_set_new(o, "hits_per_event", ok ? num(c->hits_per_event) : json_null());
	if (ok && c->nper_cpu) {
		json_t *a = json_array();

		for (int k = 0; k < c->nper_cpu; k++)
			json_array_append_new(a, json_pack("{s:i, s:i, s:o, s:o}", "cpu",
							   c->per_cpu[k].cpu, "reps", c->per_cpu[k].n,
							   "mean", num(c->per_cpu[k].mean), "ci95",
							   pair(c->per_cpu[k].ci95[0],
								c->per_cpu[k].ci95[1])));
		json_object_set_new(o, "overhead_per_cpu", a);
		json_object_set_new(o, "cpus_differ", json_boolean(c->cpus_differ));
	}
	json_object_set_new(o, "overhead_ns_per_hit", ok ? num(c->ns_per_hit) : json_null());
	json_object_set_new(o, "throughput", !ok || c->bytes_per_event <= 0 ? json_null() :
		json_pack("{s:I, s:o, s:o, s:o, s:o}", "bytes_per_event", (json_int_t)c->bytes_per_event,
			  "baseline_mb_per_s", num(c->base_mbps), "traced_mb_per_s", num(c->traced_mbps),
			  "loss_pct", num(c->loss_pct), "loss_ci95", pair(c->loss_ci95[0], c->loss_ci95[1])));
}

/* BPF cells: the program's own time (BPF stats, after the reps); null for the others. */
static json_t *prog_json(const struct cell *c)
{
	const struct prog_time *p = &c->prog;
	bool m = p->measured;

	if (!p->bpf || c->status != CELL_OK)
		return json_null();
	return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
			 "ns_per_run", m ? num(p->ns_per_run) : json_null(),
			 "ns_per_run_range", m ? pair(p->range[0], p->range[1]) : json_null(),
			 "runs", m ? json_integer(p->runs) : json_null(),
			 "run_cnt", m ? json_integer(p->run_cnt) : json_null(),
			 "run_time_ns", m ? num(p->run_ns) : json_null(),
			 "hits", m ? count_or_null(p->hits) : json_null(),
			 "events", m ? json_integer(p->events) : json_null(),
			 "dispatch_ns_per_event", m ? num(p->dispatch_ns) : json_null(),
			 "reason", str_or_null(p->reason));
}

static json_t *cell_json(const struct cell *c)
{
	json_t *runs = json_array();
	json_t *o = json_pack("{s:s, s:s, s:o, s:i, s:s, s:o, s:s, s:o, s:b, s:I, s:I, s:I, s:I, s:i, "
			      "s:I, s:o, s:I, s:o}",
			      "workload", c->workload, "tracer", c->tracer,
			      "target", str_or_null(c->target), "threads", c->threads,
			      "id", c->id, "seed", seed_json(c->seed),
			      "status", status_name(c->status), "reason", str_or_null(c->reason),
			      "aa", c->aa,
			      "iterations", (json_int_t)c->iterations,
			      "warmup", (json_int_t)c->warmup,
			      "baseline_iterations", (json_int_t)c->base_iterations,
			      "baseline_warmup", (json_int_t)c->base_warmup, "reps", c->nreps,
			      "events", (json_int_t)c->events, "hits", count_or_null(c->hits),
			      "lost", (json_int_t)c->lost, "stops", count_or_null(c->stops));

	if (!o || !runs)
		die("out of memory");
	cell_stats(o, c);
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
			"events_cv", n ? json_null() : num(c->cmd.events_cv),
			"run_ms", n ? json_null() : num(c->cmd.run_ms),
			"exit_status", count_or_null(c->cmd.exit_status),
			"output", str_or_null(c->cmd.output)));
	}
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

		json_array_append_new(a, json_pack("{s:s, s:i, s:o, s:o, s:b}", "workload", f->workload,
						   "threads", f->threads, "ns_per_event", num(f->ns),
						   "aa_ci95", pair(f->ci95[0], f->ci95[1]),
						   "aa_excludes_zero", f->excludes_zero));
	}
	return a;
}

static json_t *results_json(const struct results *r)
{
	json_t *cells = json_array();
	json_t *doc = json_pack("{s:s, s:i, s:o, s:o, s:o}",
				"tracetax_version", r->env.tracetax_version,
				"schema_version", SCHEMA_VERSION,
				"environment", env_json(&r->env),
				"options", options_json(&r->opts),
				"elapsed_s", num(r->elapsed_s));

	if (!doc || !cells)
		die("out of memory");
	for (int i = 0; i < r->ncells; i++)
		json_array_append_new(cells, cell_json(&r->cells[i]));
	json_object_set_new(doc, "timing", output_json_timing(&r->timing));
	json_object_set_new(doc, "noise_floors", floors_json(r));
	json_object_set_new(doc, "bpf_stats_cost", !r->stats_cost.measured ? json_null() :
		json_pack("{s:s, s:s, s:i, s:i, s:o, s:o}", "tracer", r->stats_cost.tracer,
			  "workload", r->stats_cost.workload, "threads", r->stats_cost.threads,
			  "pairs", r->stats_cost.pairs, "ns_per_event", num(r->stats_cost.mean),
			  "ci95", pair(r->stats_cost.ci95[0], r->stats_cost.ci95[1])));
	json_object_set_new(doc, "cells", cells);
	/* a plan's claims (claims.h); a plain run's document has none: absent reads as null */
	if (r->nclaims)
		json_object_set_new(doc, "claims", claims_json(r->claims, r->nclaims));
	return doc;
}

char *output_json_string(const struct results *r)
{
	json_t *doc = results_json(r);
	/* 15 significant digits: 95.8, not 95.799999999999997; far finer than
	 * any timing we make, and readable by a human checking a figure */
	char *s = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15));

	json_decref(doc);
	if (!s)
		die("out of memory");
	return s;
}

static int write_all(int fd, const char *s, size_t len)
{
	while (len) {
		ssize_t n = write(fd, s, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		s += n;
		len -= (size_t)n;
	}
	return 0;
}

/* The rename is durable only once the directory entry is on disk too. */
static void fsync_dir(const char *path)
{
	char *copy = strdup(path);
	int fd;

	if (!copy)
		return;
	fd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
	free(copy);
}

/*
 * Before the first cell: a results file that cannot be written must stop
 * the run at once, not after minutes of measuring. Creating path.tmp (the
 * file the write goes through) and removing it again asks the kernel
 * itself: permissions, a read-only or missing directory, a full inode table.
 */
int output_json_check(const char *path, char *err, size_t len)
{
	struct stat st;
	char *tmp;
	int fd, e;

	if (!strcmp(path, "-"))
		return 0;
	if (!stat(path, &st) && S_ISDIR(st.st_mode)) {
		snprintf(err, len, "cannot write results to '%s': %s", path, strerror(EISDIR));
		return -1;
	}
	if (asprintf(&tmp, "%s.tmp", path) < 0)
		die("out of memory");
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	e = errno;
	if (fd >= 0) {
		close(fd);
		unlink(tmp);
	}
	free(tmp);
	if (fd < 0 && e != EEXIST) {	/* EEXIST: a crashed run's; the write replaces it */
		snprintf(err, len, "cannot write results to '%s': %s", path, strerror(e));
		return -1;
	}
	return 0;
}

/*
 * Write to path.tmp, fsync, rename: a reader (or a crash) sees the old
 * document or the new one, never half of one. "-" is stdout.
 */
int output_json_file(const struct results *r, const char *path)
{
	char *s = output_json_string(r), *tmp = NULL;
	int fd = -1, ret = -1;

	if (!strcmp(path, "-")) {
		ret = (write_all(STDOUT_FILENO, s, strlen(s)) < 0 || write_all(STDOUT_FILENO, "\n", 1) < 0)
			? error("cannot write results to stdout: %s", strerror(errno)) : 0;
		free(s);
		return ret;
	}
	if (asprintf(&tmp, "%s.tmp", path) < 0)
		die("out of memory");
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		error("cannot create '%s': %s", tmp, strerror(errno));
		goto out;
	}
	if (write_all(fd, s, strlen(s)) < 0 || write_all(fd, "\n", 1) < 0 || fsync(fd) < 0) {
		error("cannot write '%s': %s", tmp, strerror(errno));
		goto out;
	}
	if (close(fd) < 0) {
		fd = -1;
		error("cannot write '%s': %s", tmp, strerror(errno));
		goto out;
	}
	fd = -1;
	if (rename(tmp, path) < 0) {
		error("cannot rename '%s' to '%s': %s", tmp, path, strerror(errno));
		goto out;
	}
	fsync_dir(path);
	ret = 0;
out:
	if (fd >= 0)
		close(fd);
	if (ret < 0)
		unlink(tmp);
	free(tmp);
	free(s);
	return ret;
}
