/*
 * The output formats on a synthetic results struct: the JSON document read
 * back with jansson (and checked against docs/schema.json when python3
 * jsonschema is there), the table searched for what a reader must see.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <jansson.h>

#include "doc/read.h"
#include "doc/write.h"
#include "output/export.h"
#include "output/table.h"
#include "results/results.h"
#include "tracers/tracer.h"

#define SKIP_REASON "kernel built without CONFIG_KPROBES"

static struct rep reps_bpf[3], reps_ptrace[1];
static struct cell cells[4];
static struct results res;

static void set(char *dst, size_t len, const char *s)
{
	snprintf(dst, len, "%s", s);
}

static void fill_env(struct environment *e)
{
	set(e->kernel, sizeof(e->kernel), "6.18.0");
	set(e->kernel_version, sizeof(e->kernel_version), "#1 SMP");
	set(e->arch, sizeof(e->arch), "x86_64");
	set(e->cpu_model, sizeof(e->cpu_model), "Intel(R) Xeon(R) Processor");
	e->cpus = 2;
	set(e->clocksource, sizeof(e->clocksource), "tsc");
	set(e->virtualization, sizeof(e->virtualization), "kvm");
	set(e->mitigations, sizeof(e->mitigations), "meltdown: Not affected; ");
	set(e->governor, sizeof(e->governor), "n/a");
	set(e->tracetax_version, sizeof(e->tracetax_version), "test");
	set(e->hostname, sizeof(e->hostname), "box");
	set(e->started, sizeof(e->started), "2025-01-02T03:04:05Z");
	set(e->other_tracers, sizeof(e->other_tracers), "none");
	set(e->tools, sizeof(e->tools), "strace 6.1");
}

static void fill_cell(struct cell *c, const char *tracer, enum cell_status st, const char *reason)
{
	set(c->workload, sizeof(c->workload), "getpid");
	set(c->tracer, sizeof(c->tracer), tracer);
	set(c->target, sizeof(c->target), "getpid");
	set(c->reason, sizeof(c->reason), reason);
	c->threads = 1;
	c->status = st;
	c->iterations = 1000;
	c->warmup = 100;
	c->base_iterations = 4000;
	c->base_warmup = 400;
	snprintf(c->id, sizeof(c->id), "getpid|%s|1|getpid", tracer);
	c->seed = 7;
}

/* bpf:tp/count: 3 reps, ~25 ns per event; ptrace:all: one rep, cannot count;
 * bpf:kprobe skipped; strace failed. */
static int setup(void **state)
{
	const double base[] = { 100, 102, 98 }, traced[] = { 125, 126, 124 };

	(void)state;
	memset(&res, 0, sizeof(res));
	fill_env(&res.env);
	res.opts = (struct run_options){ .reps = 3, .run_ms = 100, .seed = 42 };
	res.elapsed_s = 12.5;
	fill_cell(&cells[0], "bpf:tp/count", CELL_OK, "");
	for (int i = 0; i < 3; i++)
		reps_bpf[i] = (struct rep){ .base_ns_per_op = base[i], .traced_ns_per_op = traced[i],
					    .base_cycles_per_op = 250, .traced_cycles_per_op = 310,
					    .events = 1100, .hits = 1100, .stops = -1,
					    .traced_first = i == 1 };
	cells[0].reps = reps_bpf;
	cells[0].nreps = 3;
	fill_cell(&cells[1], "ptrace:all", CELL_OK, "");
	reps_ptrace[0] = (struct rep){ .base_ns_per_op = 100, .traced_ns_per_op = 5100,
				       .events = 1100, .hits = -1, .stops = 2200,
				       .consumer_ns = 1100 * 900.0 };
	cells[1].reps = reps_ptrace;
	cells[1].nreps = 1;
	fill_cell(&cells[2], "bpf:kprobe", CELL_SKIPPED, SKIP_REASON);
	fill_cell(&cells[3], "strace", CELL_FAILED, "strace exited with status 1");
	for (int i = 0; i < 4; i++)
		results_finish_cell(&cells[i], res.opts.seed);
	res.cells = cells;
	res.ncells = 4;
	return 0;
}

static json_t *render(void)
{
	char *s = output_json_string(&res);
	json_error_t err;
	json_t *doc = json_loads(s, 0, &err);

	if (!doc)
		fail_msg("output is not JSON: %s at line %d", err.text, err.line);
	free(s);
	return doc;
}

static double real_at(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	assert_true(json_is_number(v));
	return json_number_value(v);
}

static void test_json_document(void **state)
{
	json_t *doc = render(), *opts, *env;

	(void)state;
	assert_string_equal(json_string_value(json_object_get(doc, "tracetax_version")), "test");
	assert_int_equal(json_integer_value(json_object_get(doc, "schema_version")), 3);
	env = json_object_get(doc, "environment");
	assert_string_equal(json_string_value(json_object_get(env, "clocksource")), "tsc");
	assert_int_equal(json_integer_value(json_object_get(env, "cpus")), 2);
	opts = json_object_get(doc, "options");
	assert_int_equal(json_integer_value(json_object_get(opts, "seed")), 42);
	assert_true(json_is_null(json_object_get(opts, "target")));
	assert_true(real_at(doc, "elapsed_s") == 12.5);
	assert_int_equal(json_array_size(json_object_get(doc, "cells")), 4);
	json_decref(doc);
}

static void test_json_ok_cell(void **state)
{
	json_t *doc = render(), *c, *ov, *ci, *runs;

	(void)state;
	c = json_array_get(json_object_get(doc, "cells"), 0);
	assert_string_equal(json_string_value(json_object_get(c, "tracer")), "bpf:tp/count");
	assert_string_equal(json_string_value(json_object_get(c, "status")), "ok");
	assert_true(json_is_null(json_object_get(c, "reason")));
	assert_int_equal(json_integer_value(json_object_get(c, "hits")), 3300);
	assert_int_equal(json_integer_value(json_object_get(c, "events")), 3300);
	assert_true(json_is_null(json_object_get(c, "stops")));
	/* overheads 25 24 26: mean 25 */
	ov = json_object_get(c, "overhead_ns_per_event");
	assert_true(fabs(real_at(ov, "mean") - 25) < 1e-9);
	ci = json_object_get(ov, "ci95");
	assert_int_equal(json_array_size(ci), 2);
	assert_true(json_real_value(json_array_get(ci, 0)) <= 25);
	assert_true(json_real_value(json_array_get(ci, 1)) >= 25);
	/* 125/100 */
	assert_true(fabs(real_at(c, "slowdown") - 1.25) < 1e-9);
	runs = json_object_get(c, "runs");
	assert_int_equal(json_array_size(runs), 3);
	assert_true(json_is_true(json_object_get(json_array_get(runs, 1), "traced_first")));
	assert_true(real_at(json_array_get(runs, 0), "traced_cycles_per_op") == 310);
	json_decref(doc);
}

static void test_json_unknowns_are_null(void **state)
{
	json_t *doc = render(), *cs = NULL, *p, *s;

	(void)state;
	cs = json_object_get(doc, "cells");
	/* ptrace: hits unknown, one rep has no stddev, no TSC figures */
	p = json_array_get(cs, 1);
	assert_true(json_is_null(json_object_get(p, "hits")));
	assert_int_equal(json_integer_value(json_object_get(p, "stops")), 2200);
	assert_true(json_is_null(json_object_get(json_object_get(p, "baseline_ns_per_op"), "stddev")));
	assert_true(json_is_null(json_object_get(json_array_get(json_object_get(p, "runs"), 0),
						 "baseline_cycles_per_op")));
	/* 990000 ns of supervisor CPU / 1100 events */
	assert_true(fabs(real_at(p, "consumer_ns_per_event") - 900) < 1e-9);
	/* skipped: reason, and no numbers at all */
	s = json_array_get(cs, 2);
	assert_string_equal(json_string_value(json_object_get(s, "status")), "skipped");
	assert_string_equal(json_string_value(json_object_get(s, "reason")), SKIP_REASON);
	assert_true(json_is_null(json_object_get(s, "baseline_ns_per_op")));
	assert_true(json_is_null(json_object_get(s, "overhead_ns_per_event")));
	assert_true(json_is_null(json_object_get(s, "slowdown")));
	assert_true(json_is_null(json_object_get(s, "hits")));
	assert_int_equal(json_array_size(json_object_get(s, "runs")), 0);
	assert_string_equal(json_string_value(json_object_get(json_array_get(cs, 3), "status")),
			    "failed");
	json_decref(doc);
}

static char *table(bool colour)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	output_table(&res, f, colour);
	fclose(f);
	return buf;
}

static void test_table(void **state)
{
	char *t = table(false), *line, *save;

	(void)state;
	assert_non_null(strstr(t, "bpf:tp/count"));
	assert_non_null(strstr(t, "ptrace:all"));
	assert_non_null(strstr(t, "skipped  bpf:kprobe: " SKIP_REASON));
	assert_non_null(strstr(t, "failed   strace: strace exited with status 1"));
	/* overheads 25 24 26: 25 -+ t_{0.975,2} 4.303 * 1/sqrt(3) = [22.5, 27.5] */
	assert_non_null(strstr(t, "25.0 [22.5, 27.5]"));
	assert_non_null(strstr(t, "x1.25"));
	assert_non_null(strstr(t, "3300/3300"));
	assert_non_null(strstr(t, "n/a"));
	assert_non_null(strstr(t, "kernel 6.18.0"));
	/* one workload, one thread count: no such columns */
	assert_non_null(strstr(t, "\ntracer "));
	assert_null(strstr(t, "\ntracer  workload"));
	assert_null(strstr(t, " thr "));
	assert_null(strchr(t, '\033'));
	for (line = strtok_r(t, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		assert_in_range(strlen(line), 0, 100);
	free(t);
	t = table(true);
	assert_non_null(strstr(t, "\033["));
	free(t);
}

/*
 * The header gives the reps the cells ran, not --reps: --placement rotate
 * runs a pair on every CPU in every round (2 asked, 4 run on 2 CPUs), and
 * cells that ran different counts (here 3 and 1) show both ends.
 */
static void test_table_reps_ran(void **state)
{
	struct run_options saved = res.opts;
	char *t, *md = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	res.opts.reps = 2;
	res.opts.rounds = 1;
	t = table(false);
	assert_non_null(strstr(t, ", 1-3 reps in 1 round, seed 42"));
	free(t);
	f = open_memstream(&md, &len);
	assert_non_null(f);
	assert_int_equal(output_markdown(&res, f), 0);
	fclose(f);
	assert_non_null(strstr(md, ", 1-3 reps, started "));
	free(md);
	res.opts = saved;
}

static void test_json_file(void **state)
{
	char dir[] = "/tmp/tt-test-XXXXXX", path[64], tmp[80], cmd[256];
	json_error_t err;
	json_t *doc;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/r.json", dir);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	assert_int_equal(output_json_file(&res, path), 0);
	assert_int_equal(access(tmp, F_OK), -1);    /* renamed away */
	doc = json_load_file(path, 0, &err);
	assert_non_null(doc);
	json_decref(doc);
	/* the schema, when python3 can check it (run from the top of the tree) */
	if (access("tests/validate_json.py", R_OK) == 0 &&
	    system("python3 -c 'import jsonschema' 2>/dev/null") == 0) {
		snprintf(cmd, sizeof(cmd), "python3 tests/validate_json.py %s", path);
		assert_int_equal(system(cmd), 0);
	}
	assert_int_equal(output_json_file(&res, "/nonexistent-dir/r.json"), -1);
	unlink(path);
	rmdir(dir);
}

/*
 * The A/A cell (a tracer that attaches nothing) gives its workload's noise
 * floor: the far end of its overhead CI. An overhead under it is marked, a
 * larger one is not, and an A/A interval that misses 0 is flagged.
 */
static void test_noise_floor(void **state)
{
	static struct cell c[3];
	static struct rep aa[4], small[4], big[4];
	struct results r = { .cells = c, .ncells = 3 };
	const struct noise_floor *f;

	(void)state;
	memset(c, 0, sizeof(c));
	fill_cell(&c[0], "none", CELL_OK, "");
	fill_cell(&c[1], "seccomp:filter", CELL_OK, "");
	fill_cell(&c[2], "bpf:tp/count", CELL_OK, "");
	c[0].aa = true;
	for (int i = 0; i < 4; i++) {
		/* A/A differences -3, +1, -2, +2: mean -0.5 */
		aa[i] = (struct rep){ .base_ns_per_op = 100, .traced_ns_per_op = 100 + (i == 0 ? -3 : i == 1 ? 1 : i == 2 ? -2 : 2),
				      .hits = -1, .stops = -1 };
		small[i] = (struct rep){ .base_ns_per_op = 100, .traced_ns_per_op = 101 + 0.1 * i, .hits = -1, .stops = -1 };
		big[i] = (struct rep){ .base_ns_per_op = 100, .traced_ns_per_op = 140 + i, .hits = -1, .stops = -1 };
	}
	c[0].reps = aa;
	c[1].reps = small;
	c[2].reps = big;
	for (int i = 0; i < 3; i++) {
		c[i].nreps = 4;
		results_finish_cell(&c[i], 1);
	}
	results_finish(&r);
	assert_int_equal(r.nfloors, 1);
	f = results_floor(&r, &c[2]);
	assert_non_null(f);
	assert_true(f->ns == fmax(fabs(c[0].overhead.ci95[0]), fabs(c[0].overhead.ci95[1])));
	assert_true(f->ns > 1.2 && f->ns < 40);
	assert_false(f->excludes_zero);
	assert_true(c[1].below_floor);
	assert_non_null(strstr(c[1].note, "below the noise floor"));
	assert_false(c[2].below_floor);
	assert_false(c[0].below_floor);
	free(r.floors);
}

static int count_of(const char *s, const char *what)
{
	int n = 0;

	for (const char *p = strstr(s, what); p; p = strstr(p + 1, what))
		n++;
	return n;
}

/*
 * A noisy machine: every cell's baseline has a cv of ~15%, one cell's of
 * ~46%. The machine's noise is said once, in the header; only the cell
 * that stands out carries "noisy baseline" on its row.
 */
static void test_noise_once(void **state)
{
	static const char *const name[] = { "none", "inline", "perf:count", "bpf:tp/count",
					     "bpf:tp/empty", "ftrace:raw" };
	static struct cell c[6];
	static struct rep reps[6][4];
	struct results r = { .cells = c, .ncells = 6 };
	struct results keep = res;
	char *t;

	(void)state;
	memset(c, 0, sizeof(c));
	for (int k = 0; k < 6; k++) {
		/* base 100 -+ d: cv d * sqrt(4/3) / 100; d 13.5 -> 15.6%, 40 -> 46.2% */
		double d = k == 4 ? 40 : 13.5;

		fill_cell(&c[k], name[k], CELL_OK, "");
		c[k].aa = k == 0;
		for (int i = 0; i < 4; i++) {
			double b = i % 2 ? 100 + d : 100 - d;

			reps[k][i] = (struct rep){ .base_ns_per_op = b,
						   .traced_ns_per_op = b + (k ? 300 + k + i % 2 : i % 2),
						   .events = 1000, .hits = -1, .stops = -1 };
		}
		c[k].reps = reps[k];
		c[k].nreps = 4;
		results_finish_cell(&c[k], 1);
	}
	results_finish(&r);
	assert_true(fabs(results_noise_cv(&r, "getpid", 1, NULL) - 0.135 * sqrt(4.0 / 3)) < 1e-9);
	for (int k = 0; k < 6; k++)
		if (k == 4)
			assert_non_null(strstr(c[k].note, "noisy baseline (cv 46.2%, 3.0x the run's 15.6%)"));
		else
			assert_null(strstr(c[k].note, "noisy baseline"));
	res = r;
	t = table(false);
	res = keep;
	assert_int_equal(count_of(t, "baseline noise: cv 15.6% (noisy), the median of 6 cells"), 1);
	assert_int_equal(count_of(t, "noisy baseline"), 1);
	free(t);
	free(r.floors);
}

/*
 * The machine's notes on a box whose every cell had steal (5%) and an
 * outlier rep: each is the run's, said once in the header, and a row keeps
 * it only where it stands out: cell 5's steal is 3x the run's, cell 6's
 * four outliers pull its mean's interval away from its median. Two rows of
 * eight carry a note, not eight. With steal on two cells only, it is theirs.
 */
static void steal_outlier_cells(struct cell *c, struct rep (*reps)[16], int steal_cells)
{
	static const char *const name[] = { "none", "inline", "perf:count", "bpf:tp/count",
					     "bpf:tp/empty", "ftrace:raw", "ptrace:all", "seccomp:filter" };

	memset(c, 0, 8 * sizeof(*c));
	for (int k = 0; k < 8; k++) {
		int hit = k == 6 ? 4 : 1;	/* outlier reps: the last @hit */

		fill_cell(&c[k], name[k], CELL_OK, "");
		c[k].aa = k == 0;
		for (int i = 0; i < 16; i++) {
			double b = 100 + (i % 2 ? 0.5 : -0.5), over = k ? 300 + (i % 3) * 0.5 : 0;
			double steal = k >= steal_cells ? 0 : k == 5 ? 1.5 : 0.5;

			if (i >= 16 - hit)
				over += 100;
			reps[k][i] = (struct rep){ .base_ns_per_op = b, .traced_ns_per_op = b + over,
						   .events = 1000, .hits = -1, .stops = -1, .wall_ms = 10,
						   .steal_ms = steal, .mhz_min = NAN, .mhz_max = NAN };
		}
		c[k].reps = reps[k];
		c[k].nreps = 16;
		results_finish_cell(&c[k], 1);
	}
}

static void test_machine_notes_once(void **state)
{
	static struct cell c[8];
	static struct rep reps[8][16];
	struct results r = { .cells = c, .ncells = 8 };
	struct results keep = res;
	int noted = 0;
	char *t;

	(void)state;
	steal_outlier_cells(c, reps, 8);
	/* alone, before the run is whole, every cell says both */
	for (int k = 1; k < 8; k++) {
		assert_non_null(strstr(c[k].note, "steal "));
		assert_non_null(strstr(c[k].note, "outlier rep"));
	}
	results_finish(&r);
	for (int k = 0; k < 8; k++) {
		noted += c[k].note[0] != '\0';
		if (k == 5)
			assert_string_equal(c[k].note, "steal 15.0% of the time, 3.0x the run's 5.0%");
		else if (k == 6)
			assert_non_null(strstr(c[k].note, "4 outlier reps: median "));
		else
			assert_string_equal(c[k].note, "");
	}
	assert_int_equal(noted, 2);
	res = r;
	t = table(false);
	res = keep;
	assert_int_equal(count_of(t, "steal: over 1% of the time in 8 of 8 cells; a row notes one over 10.0%"), 1);
	assert_int_equal(count_of(t, "outlier reps (MAD): 10 in 7 of 8 cells"), 1);
	assert_int_equal(count_of(t, "steal "), 1);
	assert_int_equal(count_of(t, "outlier rep"), 2);	/* the header's, cell 6's */
	free(t);
	free(r.floors);
	r.floors = NULL;

	/* steal on 1 cell of 8: the cell's own */
	steal_outlier_cells(c, reps, 1);
	results_finish(&r);
	assert_non_null(strstr(c[0].note, "steal 5.0% of the time"));
	assert_null(strstr(c[0].note, "the run's"));
	assert_null(strstr(c[1].note, "steal"));
	res = r;
	t = table(false);
	res = keep;
	assert_int_equal(count_of(t, "steal: "), 0);
	free(t);
	free(r.floors);
}

/*
 * Audit cells: the residue is the run's, said once in the header and in the
 * JSON, never on a row; a rule set's records are at most the events, and a
 * row that has fewer says the rules' filters decide rather than "!=".
 */
/* @doc of test_audit_once read back: cell 2 (audit:rules, 0 hits of 4000 events)
 * by the rule "at most the events" when @upto, cell 3 (audit:rule/async) not. */
static void assert_rules_read_back(json_t *doc, bool upto)
{
	char *text = json_dumps(doc, 0), err[512];
	struct doc d;

	memset(&d, 0, sizeof(d));
	assert_non_null(text);
	assert_int_equal(doc_parse(&d, text, strlen(text), err, sizeof(err)), 0);
	assert_int_equal(d.r.ncells, 4);
	assert_string_equal(d.r.cells[2].tracer, "audit:rules");
	assert_int_equal(d.r.cells[2].hits, 0);
	assert_int_equal(d.r.cells[2].hits_upto, upto);
	assert_int_equal(results_hits_rule(&d.r.cells[2]), upto ? HITS_UPTO : HITS_EVENTS);
	assert_int_equal(results_hits_ok(&d.r.cells[2], d.r.cells[2].hits, d.r.cells[2].events),
			 upto);
	assert_false(d.r.cells[3].hits_upto);
	assert_int_equal(results_hits_rule(&d.r.cells[3]), HITS_EVENTS);
	doc_release(&d);
}

static void test_audit_once(void **state)
{
	static const char *const name[] = { "none", "audit:enabled", "audit:rules", "audit:rule/async" };
	static const int64_t hits[] = { -1, -1, 0, 1000 };
	static struct cell c[4];
	static struct rep reps[4][4];
	struct results r = { .cells = c, .ncells = 4, .env = res.env, .opts = res.opts };
	struct results keep = res;
	json_t *doc, *a;
	char *t;

	(void)state;
	memset(c, 0, sizeof(c));
	for (int k = 0; k < 4; k++) {
		const char *variant;
		const struct tracer_ops *ops = tracer_ops_find(name[k], &variant, NULL, 0);

		fill_cell(&c[k], name[k], CELL_OK, "");
		/* as the runner makes a cell: its tracer's flags */
		assert_non_null(ops);
		c[k].aa = ops->flags & TT_F_AA;
		c[k].hits_upto = ops->flags & TT_F_HITS_UPTO;
		for (int i = 0; i < 4; i++)
			reps[k][i] = (struct rep){ .base_ns_per_op = 100 + i % 2,
						   .traced_ns_per_op = 100 + 50 * k + i % 2,
						   .events = 1000, .hits = hits[k], .stops = -1 };
		c[k].reps = reps[k];
		c[k].nreps = 4;
		results_finish_cell(&c[k], 1);
	}
	r.audit_residue = (struct audit_residue){ .measured = true, .before_ns = 61,
						  .never_ns = 59, .after_ns = 93 };
	results_finish(&r);
	assert_null(strstr(c[2].note, "!="));
	assert_non_null(strstr(c[2].note, "the rules made records for 0 of 4000 events"));
	assert_null(strstr(c[3].note, "!="));
	res = r;
	t = table(false);
	{
		char *js = output_json_string(&res);

		doc = json_loads(js, 0, NULL);
		free(js);
	}
	res = keep;
	assert_int_equal(count_of(t, "audit residue: a fresh process's getpid 61.0 ns before "
				  "tracetax first enabled audit, 59.0 ns with -a never,task, 93.0 ns "
				  "after it put audit back"), 1);
	assert_int_equal(count_of(t, "residue"), 1);
	a = json_object_get(doc, "audit_residue");
	assert_non_null(a);
	assert_true(json_real_value(json_object_get(a, "after_ns")) == 93);
	assert_true(json_is_false(json_object_get(a, "was_on")));
	/* read back, audit:rules' cell still knows its rule (compare judges hits by it) */
	assert_rules_read_back(doc, true);
	/* a document from before the field: the tracer's own, from the registry */
	for (int k = 0; k < 4; k++)
		json_object_del(json_array_get(json_object_get(doc, "cells"), (size_t)k), "hits_upto");
	assert_rules_read_back(doc, true);
	/* the document's word stands over the registry's */
	json_object_set_new(json_array_get(json_object_get(doc, "cells"), 2), "hits_upto",
			    json_false());
	assert_rules_read_back(doc, false);
	json_decref(doc);
	free(t);
	free(r.floors);
}

/* The table, the document and its reading back of @s: the header's text in *@t. */
static json_t *slow_path_round(const struct slow_path *s, char **t, struct slow_path *back)
{
	struct slow_path keep = res.slow_path;
	char *js, err[512];
	struct doc d;
	json_t *doc;

	res.slow_path = *s;
	*t = table(false);
	js = output_json_string(&res);
	doc = json_loads(js, 0, NULL);
	memset(&d, 0, sizeof(d));
	assert_int_equal(doc_parse(&d, js, strlen(js), err, sizeof(err)), 0);
	*back = d.r.slow_path;
	doc_release(&d);	/* and js, which the document took */
	res.slow_path = keep;
	return doc;
}

/* Said once in the header when there is something, and nothing when there is not. */
static void test_slow_path(void **state)
{
	struct slow_path s = { .probed = true, .known = true,
			       .causes = (1u << SLOW_AUDIT) | (1u << SLOW_TRACEPOINT),
			       .audit_enabled = 0,
			       .tracepoints = "syscalls:sys_enter_getuid in instance foo",
			       .getpid_ns = 236, .never_task_ns = 138 }, back;
	json_t *doc, *o, *c;
	char *t;

	(void)state;
	doc = slow_path_round(&s, &t, &back);
	assert_int_equal(count_of(t, "syscall slow path: every new task takes it (audit: this boot "
				  "has enabled audit, off now; a syscall tracepoint is enabled: "
				  "syscalls:sys_enter_getuid in instance foo); a fresh process's "
				  "getpid 236.0 ns, 138.0 ns with -a never,task; a syscall hook's cost "
				  "below is marginal to it\n"), 1);
	assert_int_equal(count_of(t, "slow path"), 1);
	o = json_object_get(doc, "syscall_slow_path");
	assert_non_null(o);
	c = json_object_get(o, "causes");
	assert_int_equal(json_array_size(c), 2);
	assert_string_equal(json_string_value(json_array_get(c, 0)), "audit");
	assert_string_equal(json_string_value(json_array_get(c, 1)), "syscall_tracepoint");
	assert_true(json_is_null(json_object_get(o, "unknown")));
	assert_int_equal(json_integer_value(json_object_get(o, "audit_enabled")), 0);
	assert_true(back.probed && back.known);
	assert_int_equal(back.causes, s.causes);
	assert_int_equal(back.audit_enabled, 0);
	assert_string_equal(back.tracepoints, s.tracepoints);
	assert_true(back.getpid_ns == 236 && back.never_task_ns == 138);
	json_decref(doc);
	free(t);

	/* seccomp alone: tracetax's tasks, not every task; no never,task figure */
	s = (struct slow_path){ .probed = true, .known = true, .causes = 1u << SLOW_SECCOMP,
				.audit_enabled = -1, .getpid_ns = 180, .never_task_ns = NAN };
	doc = slow_path_round(&s, &t, &back);
	assert_int_equal(count_of(t, "syscall slow path: the tasks tracetax starts take it (seccomp: "
				  "tracetax runs under a filter, and so does every task it starts); a "
				  "fresh process's getpid 180.0 ns; a syscall hook's"), 1);
	assert_true(json_is_null(json_object_get(json_object_get(doc, "syscall_slow_path"),
						 "audit_enabled")));
	assert_int_equal(back.audit_enabled, -1);
	assert_true(isnan(back.never_task_ns));
	json_decref(doc);
	free(t);

	/* nothing there: nothing said, nothing written, nothing read back */
	s = (struct slow_path){ .probed = true, .known = true, .audit_enabled = 0,
				.getpid_ns = NAN, .never_task_ns = NAN };
	doc = slow_path_round(&s, &t, &back);
	assert_int_equal(count_of(t, "slow path"), 0);
	assert_null(json_object_get(doc, "syscall_slow_path"));
	assert_false(back.probed);
	json_decref(doc);
	free(t);

	/* not known: said, with why; causes null */
	s = (struct slow_path){ .probed = true, .unknown = "no kernel BTF", .audit_enabled = -1,
				.getpid_ns = NAN, .never_task_ns = NAN };
	doc = slow_path_round(&s, &t, &back);
	assert_int_equal(count_of(t, "syscall slow path: unknown (no kernel BTF)\n"), 1);
	o = json_object_get(doc, "syscall_slow_path");
	assert_true(json_is_null(json_object_get(o, "causes")));
	assert_true(back.probed && !back.known);
	assert_string_equal(back.unknown, "no kernel BTF");
	json_decref(doc);
	free(t);
}

/* Prometheus: seconds, not ns; escaped labels; no figures for a cell not ok. */
static void test_prometheus(void **state)
{
	char *buf = NULL, *p;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	char saved[256];

	(void)state;
	memcpy(saved, res.cells[0].workload, sizeof(saved));
	snprintf(res.cells[0].workload, sizeof(res.cells[0].workload), "cmd:'a \"b\" \\c'");
	assert_non_null(f);
	assert_int_equal(output_prometheus(&res, f), 0);
	fclose(f);
	memcpy(res.cells[0].workload, saved, sizeof(saved));
	/* 2025-01-02T03:04:05Z */
	assert_non_null(strstr(buf, "tracetax_run_start_timestamp_seconds{kernel=\"6.18.0\",host=\"box\","));
	assert_non_null(strstr(buf, "} 1735787045\n"));
	assert_non_null(strstr(buf, "workload=\"cmd:'a \\\"b\\\" \\\\c'\""));
	/* bpf:tp/count's overheads 25 24 26 ns: 2.5e-08 s, CI [22.5, 27.5] ns */
	p = strstr(buf, "tracetax_overhead_per_event_seconds{tracer=\"bpf:tp/count\"");
	assert_non_null(p);
	assert_float_equal(strtod(strchr(p, '}') + 1, NULL), 25e-9, 1e-20);
	p = strstr(buf, "tracetax_overhead_per_event_ci95_lower_seconds{tracer=\"bpf:tp/count\"");
	assert_non_null(p);
	assert_float_equal(strtod(strchr(p, '}') + 1, NULL), 22.516e-9, 0.01e-9);
	p = strstr(buf, "tracetax_hits{tracer=\"bpf:tp/count\"");
	assert_non_null(p);
	assert_int_equal(strtoll(strchr(p, '}') + 1, NULL, 10), 3300);
	assert_non_null(strstr(buf, "tracetax_cell_info{tracer=\"bpf:kprobe\""));
	assert_non_null(strstr(buf, "status=\"skipped\"} 1\n"));
	assert_null(strstr(buf, "tracetax_overhead_per_event_seconds{tracer=\"bpf:kprobe\""));
	assert_null(strstr(buf, "_total"));
	/* the overhead is the mean of round means, its interval over them (method.md §5c) */
	assert_non_null(strstr(buf, "# HELP tracetax_overhead_per_event_seconds What the tracer adds to "
			       "each event: traced - baseline time per op, paired per rep, mean of the "
			       "cell's round means.\n"));
	assert_non_null(strstr(buf, "per event (Student's t over the round means).\n"));
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_document),
		cmocka_unit_test(test_noise_floor),
		cmocka_unit_test(test_noise_once),
		cmocka_unit_test(test_machine_notes_once),
		cmocka_unit_test(test_audit_once),
		cmocka_unit_test(test_slow_path),
		cmocka_unit_test(test_json_ok_cell),
		cmocka_unit_test(test_json_unknowns_are_null),
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_table_reps_ran),
		cmocka_unit_test(test_json_file),
		cmocka_unit_test(test_prometheus),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
