/*
 * The results document's fields are written by hand in four places: the
 * writer (doc/write*.c), the reader (doc/read*.c), the store rows
 * (store/rows.c) and docs/schema.json; the CSV columns (output/csv.c) are
 * a fifth. This test fails when they disagree. From the documents of real
 * runs in tests/fixtures/docs (between them every part: tools, threads,
 * --latency, tcp), read back and written again by this tracetax:
 *   - every key written is a property in the schema (a field added to the
 *     writer alone fails here), and every property in the schema is
 *     written (one added to the schema alone, or the writer's dropped);
 *   - written again, each document is the one read (test_doc checks it
 *     value by value: a field the reader drops fails there);
 *   - every column of the store's cells and reps tables, every environment
 *     name it keeps, and every CSV column is a key the writer writes.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <jansson.h>
#include <sqlite3.h>

#include "slurp.h"
#include "doc/read.h"
#include "doc/write.h"
#include "cli/claims.h"
#include "cli/planfile.h"
#include "output/export.h"
#include "store/store.h"

static const char *const fixtures[] = {
	"tests/fixtures/docs/default.json", "tests/fixtures/docs/latency.json",
	"tests/fixtures/docs/tcp.json", "tests/fixtures/docs/small.json",
};

/*
 * Schema properties none of the fixtures' runs (nor the cmd: cell and the
 * claims setup adds) writes, each with why. A property missing here and
 * from every document fails: add a fixture that has it.
 */
static const char *const unwritten_ok[] = {
	NULL,
};

/* A set of key paths, "cells[].runs[].hits", kept small and simple. */
struct set { char **s; size_t n, cap; };

static bool set_has(const struct set *x, const char *p)
{
	for (size_t i = 0; i < x->n; i++)
		if (!strcmp(x->s[i], p))
			return true;
	return false;
}

static void set_add(struct set *x, const char *p)
{
	if (set_has(x, p))
		return;
	if (x->n == x->cap) {
		x->cap = x->cap ? 2 * x->cap : 256;
		x->s = realloc(x->s, x->cap * sizeof(*x->s));
		assert_non_null(x->s);
	}
	x->s[x->n++] = strdup(p);
}

static void set_free(struct set *x)
{
	for (size_t i = 0; i < x->n; i++)
		free(x->s[i]);
	free(x->s);
	memset(x, 0, sizeof(*x));
}

static void join(char *out, size_t len, const char *prefix, const char *key)
{
	snprintf(out, len, "%s%s%s", prefix, *prefix ? "." : "", key);
}

/* Every object key in document @v, as a path below @prefix. */
static void doc_paths(json_t *v, const char *prefix, struct set *out)
{
	char sub[512];
	const char *k;
	json_t *x;
	size_t i;

	if (json_is_object(v)) {
		json_object_foreach(v, k, x) {
			join(sub, sizeof(sub), prefix, k);
			set_add(out, sub);
			doc_paths(x, sub, out);
		}
	} else if (json_is_array(v)) {
		snprintf(sub, sizeof(sub), "%s[]", prefix);
		json_array_foreach(v, i, x)
			doc_paths(x, sub, out);
	}
}

/* Every property the schema allows, following $ref, items and the *Ofs. */
static void schema_paths(json_t *root, json_t *s, const char *prefix, struct set *out, int depth)
{
	static const char *const ofs[] = { "oneOf", "anyOf", "allOf", "prefixItems" };
	const char *ref = json_string_value(json_object_get(s, "$ref")), *k;
	char sub[512];
	json_t *x;
	size_t i;

	assert_true(depth < 32);
	if (ref) {
		assert_true(!strncmp(ref, "#/$defs/", 8));
		x = json_object_get(json_object_get(root, "$defs"), ref + 8);
		if (!x)
			fail_msg("schema: no definition '%s'", ref);
		schema_paths(root, x, prefix, out, depth + 1);
	}
	json_object_foreach(json_object_get(s, "properties"), k, x) {
		join(sub, sizeof(sub), prefix, k);
		set_add(out, sub);
		schema_paths(root, x, sub, out, depth + 1);
	}
	if ((x = json_object_get(s, "items")) && json_is_object(x)) {
		snprintf(sub, sizeof(sub), "%s[]", prefix);
		schema_paths(root, x, sub, out, depth + 1);
	}
	for (size_t o = 0; o < sizeof(ofs) / sizeof(ofs[0]); o++) {
		json_t *list = json_object_get(s, ofs[o]);

		snprintf(sub, sizeof(sub), "%s%s", prefix, !strcmp(ofs[o], "prefixItems") ? "[]" : "");
		json_array_foreach(list, i, x)
			schema_paths(root, x, sub, out, depth + 1);
	}
}

/* Every key this tracetax writes of the fixtures, read back. */
static struct set written;
static struct doc docs[sizeof(fixtures) / sizeof(fixtures[0])];

static void add_written(const struct results *r)
{
	char *text = output_json_string(r);
	json_t *j = json_loads(text, 0, NULL);

	assert_non_null(j);
	doc_paths(j, "", &written);
	json_decref(j);
	free(text);
}

/*
 * What no fixture run has: a cmd: workload's cell, a plan's claims (one
 * measured, one not), a run in a VM (--kernel) and overheads per CPU, on a copy of the first
 * fixture's results.
 */
static void add_cmd_and_claims(void)
{
	struct results r = docs[0].r;
	struct cell c = r.cells[0];
	struct planfile *pf = calloc(1, sizeof(*pf));
	struct pf_claim pc = { .was = 2.5 };
	struct claim_row rows[2] = {
		{ .c = &pc, .have = true, .value = 3, .ci95 = { 2, 4 }, .ratio = 1.2,
		  .cell = "none, getpid, 1 thr" },
		{ .c = &pc, .have = false, .value = NAN, .ci95 = { NAN, NAN }, .ratio = NAN,
		  .why = "skipped" },
	};

	assert_non_null(pf);
	rows[0].pf = rows[1].pf = pf;
	snprintf(pf->name, sizeof(pf->name), "x");
	snprintf(pc.text, sizeof(pc.text), "a claim");
	snprintf(pc.source, sizeof(pc.source), "a thread");
	snprintf(pc.unit, sizeof(pc.unit), "ns");
	snprintf(c.workload, sizeof(c.workload), "cmd:true");
	c.cmd.events_per_run = 10;
	c.cmd.main_events = 10;
	c.cmd.events_cv = 0.01;
	c.cmd.run_ms = 1;
	c.cmd.exit_status = 1;
	snprintf(c.cmd.output, sizeof(c.cmd.output), "out");
	r.cells = &c;
	r.ncells = 1;
	r.claims = rows;
	r.nclaims = 2;
	snprintf(r.env.vm, sizeof(r.env.vm), "tcg");
	snprintf(r.env.unit, sizeof(r.env.unit), "instructions");
	/* --placement rotate: overheads per CPU */
	c.nper_cpu = 2;
	c.per_cpu[0] = (struct cpu_overhead){ .cpu = 0, .n = 4, .mean = 200, .ci95 = { 180, 220 } };
	c.per_cpu[1] = (struct cpu_overhead){ .cpu = 1, .n = 4, .mean = 400, .ci95 = { 380, 420 } };
	c.cpus_differ = true;
	/* the repeat interval and the drift between runs it adds */
	r.drift = (struct repeat_drift){ .known = true, .tau = 0.02, .runs = 3, .cells = 2 };
	c.repeat95[0] = 150;
	c.repeat95[1] = 450;
	/* an audit cell's run: what audit left behind */
	r.audit_residue = (struct audit_residue){ .measured = true, .before_ns = 60,
						  .never_ns = 58, .after_ns = 90 };
	/* a box whose fresh tasks take the syscall slow path: audit's residue, a tracepoint */
	r.slow_path = (struct slow_path){ .probed = true, .known = true,
					  .causes = (1u << SLOW_AUDIT) | (1u << SLOW_TRACEPOINT),
					  .audit_enabled = 0, .tracepoints = "syscalls:sys_enter_getuid",
					  .getpid_ns = 230, .never_task_ns = 135 };
	/* an audit:rules cell: the rule set it loaded */
	c.audit_rules = (struct cell_rules){ .file = "a.rules", .digest = "0123456789abcdef",
					     .rules = 3 };
	add_written(&r);
	free(pf);
}

static int setup(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++) {
		char *text = slurp(fixtures[i]), err[512];

		snprintf(docs[i].name, sizeof(docs[i].name), "%s", fixtures[i]);
		if (doc_parse(&docs[i], text, strlen(text), err, sizeof(err))) {
			fprintf(stderr, "%s: %s\n", fixtures[i], err);
			return -1;
		}
		add_written(&docs[i].r);
	}
	add_cmd_and_claims();
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(docs) / sizeof(docs[0]); i++)
		doc_release(&docs[i]);
	set_free(&written);
	return 0;
}

static void test_schema_both_ways(void **state)
{
	json_error_t e;
	json_t *schema = json_load_file("docs/schema.json", 0, &e);
	struct set allowed = { 0 };
	int bad = 0;

	(void)state;
	if (!schema)
		fail_msg("docs/schema.json: %s", e.text);
	schema_paths(schema, schema, "", &allowed, 0);
	for (size_t i = 0; i < written.n; i++)
		if (!set_has(&allowed, written.s[i])) {
			print_error("written, not in docs/schema.json: %s\n", written.s[i]);
			bad++;
		}
	for (size_t i = 0; i < allowed.n; i++) {
		bool ok = set_has(&written, allowed.s[i]);

		for (size_t k = 0; !ok && unwritten_ok[k]; k++)
			ok = !strcmp(unwritten_ok[k], allowed.s[i]);
		if (!ok) {
			print_error("in docs/schema.json, never written: %s\n", allowed.s[i]);
			bad++;
		}
	}
	set_free(&allowed);
	json_decref(schema);
	assert_int_equal(bad, 0);
}

/* A column of the store or of the CSV, and the document's key it holds. */
struct column { const char *name, *key; };

static const struct column cells_columns[] = {
	{ "run_id", NULL }, { "idx", NULL },	/* the store's own keys */
	{ "workload", "cells[].workload" }, { "tracer", "cells[].tracer" },
	{ "threads", "cells[].threads" }, { "target", "cells[].target" },
	{ "status", "cells[].status" }, { "reason", "cells[].reason" }, { "reps", "cells[].reps" },
	{ "events", "cells[].events" }, { "hits", "cells[].hits" }, { "lost", "cells[].lost" },
	{ "baseline_ns", "cells[].baseline_ns_per_op.mean" },
	{ "traced_ns", "cells[].traced_ns_per_op.mean" },
	{ "overhead_ns", "cells[].overhead_ns_per_event.mean" },
	{ "overhead_lo", "cells[].overhead_ns_per_event.ci95" },
	{ "overhead_hi", "cells[].overhead_ns_per_event.ci95" },
	{ "overhead_median", "cells[].overhead_ns_per_event.median" },
	{ "slowdown", "cells[].slowdown" }, { "consumer_ns", "cells[].consumer_ns_per_event" },
	{ "below_noise_floor", "cells[].below_noise_floor" },
	{ "disturbed", "cells[].disturbed" }, { "note", "cells[].note" },
	{ "audit_rules_file", "cells[].audit_rules.file" },
	{ "audit_rules_digest", "cells[].audit_rules.digest" },
	{ "audit_rules_n", "cells[].audit_rules.rules" },
	{ NULL, NULL },
};

static const struct column reps_columns[] = {
	{ "run_id", NULL }, { "cell_idx", NULL }, { "idx", NULL },
	{ "baseline_ns", "cells[].runs[].baseline_ns_per_op" },
	{ "traced_ns", "cells[].runs[].traced_ns_per_op" },
	{ "events", "cells[].runs[].events" }, { "hits", "cells[].runs[].hits" },
	{ "lost", "cells[].runs[].lost" }, { "stops", "cells[].runs[].stops" },
	{ "consumer_ns", "cells[].runs[].consumer_ns" },
	{ "traced_first", "cells[].runs[].traced_first" }, { "outlier", "cells[].runs[].outlier" },
	{ "wall_ms", "cells[].runs[].wall_ms" }, { "steal_ms", "cells[].runs[].steal_ms" },
	{ NULL, NULL },
};

static const struct column csv_columns[] = {
	{ "workload", "cells[].workload" }, { "tracer", "cells[].tracer" },
	{ "threads", "cells[].threads" }, { "target", "cells[].target" },
	{ "status", "cells[].status" }, { "reason", "cells[].reason" }, { "reps", "cells[].reps" },
	{ "base_ns_per_op", "cells[].baseline_ns_per_op.mean" },
	{ "traced_ns_per_op", "cells[].traced_ns_per_op.mean" },
	{ "overhead_ns_per_event", "cells[].overhead_ns_per_event.mean" },
	{ "overhead_ci95_lo_ns", "cells[].overhead_ns_per_event.ci95" },
	{ "overhead_ci95_hi_ns", "cells[].overhead_ns_per_event.ci95" },
	{ "overhead_median_ns", "cells[].overhead_ns_per_event.median" },
	{ "slowdown", "cells[].slowdown" }, { "slowdown_ci95_lo", "cells[].slowdown_ci95" },
	{ "slowdown_ci95_hi", "cells[].slowdown_ci95" },
	{ "events", "cells[].events" }, { "hits", "cells[].hits" }, { "lost", "cells[].lost" },
	{ "consumer_ns_per_event", "cells[].consumer_ns_per_event" },
	{ "kernel_consumer_ns_per_event", "cells[].kernel_consumer_ns_per_event" },
	{ "below_noise_floor", "cells[].below_noise_floor" },
	{ "disturbed", "cells[].disturbed" }, { "note", "cells[].note" },
	/* a run under qemu's -icount (environment.unit): the same, in instructions */
	{ "base_instructions_per_op", "cells[].baseline_ns_per_op.mean" },
	{ "traced_instructions_per_op", "cells[].traced_ns_per_op.mean" },
	{ "overhead_instructions_per_event", "cells[].overhead_ns_per_event.mean" },
	{ "overhead_ci95_lo_instructions", "cells[].overhead_ns_per_event.ci95" },
	{ "overhead_ci95_hi_instructions", "cells[].overhead_ns_per_event.ci95" },
	{ "overhead_median_instructions", "cells[].overhead_ns_per_event.median" },
	{ "consumer_instructions_per_event", "cells[].consumer_ns_per_event" },
	{ "kernel_consumer_instructions_per_event", "cells[].kernel_consumer_ns_per_event" },
	{ NULL, NULL },
};

/* @name is a column this test knows, holding a key the writer writes. */
static int column_ok(const struct column *cols, const char *what, const char *name)
{
	for (const struct column *c = cols; c->name; c++) {
		if (strcmp(c->name, name))
			continue;
		if (c->key && !set_has(&written, c->key)) {
			print_error("%s column '%s' holds '%s', which the document no longer has\n",
				    what, name, c->key);
			return 1;
		}
		return 0;
	}
	print_error("%s column '%s': which field of the document is it? (tests/unit/test_fields.c)\n",
		    what, name);
	return 1;
}

static int table_ok(sqlite3 *db, const char *table, const struct column *cols)
{
	char sql[128];
	sqlite3_stmt *st;
	int bad = 0, n = 0;

	snprintf(sql, sizeof(sql), "PRAGMA table_info(%s)", table);
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW) {
		bad += column_ok(cols, table, (const char *)sqlite3_column_text(st, 1));
		n++;
	}
	sqlite3_finalize(st);
	assert_true(n > 3);
	return bad;
}

static void test_store_columns(void **state)
{
	char dir[] = "/tmp/tt-fields.XXXXXX", path[64], err[512], key[160];
	struct store *s;
	sqlite3 *db;
	sqlite3_stmt *st;
	int bad = 0, names = 0;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/r.db", dir);
	s = store_open(path, true, err, sizeof(err));
	if (!s)
		fail_msg("%s", err);
	for (size_t i = 0; i < sizeof(docs) / sizeof(docs[0]); i++) {
		int64_t id;

		if (store_record(s, &docs[i].r, docs[i].text, NULL, &id, err, sizeof(err)))
			fail_msg("%s: %s", fixtures[i], err);
	}
	store_close(s);
	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	bad += table_ok(db, "cells", cells_columns);
	bad += table_ok(db, "reps", reps_columns);
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT DISTINCT name FROM environment", -1, &st,
					    NULL), SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW) {
		char opt[160];

		join(key, sizeof(key), "environment", (const char *)sqlite3_column_text(st, 0));
		/* and the run's settings that change a cost (store_insert_settings): its options' */
		join(opt, sizeof(opt), "options", (const char *)sqlite3_column_text(st, 0));
		if (!set_has(&written, key) && !set_has(&written, opt)) {
			print_error("the store keeps '%s', which the document does not have\n", key);
			bad++;
		}
		names++;
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
	/* a read-only connection to a WAL database leaves its -wal and -shm: ours too */
	unlink(path);
	for (const char *x = "-wal"; x; x = strcmp(x, "-wal") ? NULL : "-shm") {
		char side[80];

		snprintf(side, sizeof(side), "%s%s", path, x);
		unlink(side);
	}
	rmdir(dir);
	assert_true(names > 3);
	assert_int_equal(bad, 0);
}

static void test_csv_columns(void **state)
{
	char *buf = NULL, *save = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int bad = 0, n = 0;

	(void)state;
	assert_int_equal(output_csv(&docs[0].r, f), 0);
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	for (char *c = strtok_r(buf, ",", &save); c; c = strtok_r(NULL, ",", &save), n++)
		bad += column_ok(csv_columns, "CSV", c);
	free(buf);
	assert_true(n > 10);
	assert_int_equal(bad, 0);

	/* a run in instructions (qemu's -icount): every ns column renamed, none left */
	struct results r = docs[0].r;
	int m = 0;

	snprintf(r.env.unit, sizeof(r.env.unit), "instructions");
	buf = NULL;
	f = open_memstream(&buf, &len);
	assert_int_equal(output_csv(&r, f), 0);
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	assert_null(strstr(buf, "_ns"));
	for (char *c = strtok_r(buf, ",", &save); c; c = strtok_r(NULL, ",", &save), m++)
		bad += column_ok(csv_columns, "CSV", c);
	free(buf);
	assert_int_equal(m, n);
	assert_int_equal(bad, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_schema_both_ways),
		cmocka_unit_test(test_store_columns),
		cmocka_unit_test(test_csv_columns),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
