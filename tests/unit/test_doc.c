/*
 * The document reader: what output_json.c writes reads back to the same
 * structs (the same document and the same table again), and every kind of
 * broken document is refused with one line naming the field.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <jansson.h>

#include "slurp.h"
#include "doc/read.h"
#include "doc/write.h"
#include "fake_results.h"
#include "output/table.h"

static struct results fake;
static char *fake_doc;

static int setup(void **state)
{
	(void)state;
	fake_results(&fake, 6, 0);
	fake_doc = output_json_string(&fake);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	results_release(&fake);
	free(fake_doc);
	return 0;
}

/* Parses a copy of @text; returns doc_parse's result, the message in @err. */
static int parse(struct doc *d, const char *text, char *err, size_t len)
{
	memset(d, 0, sizeof(*d));
	snprintf(d->name, sizeof(d->name), "t.json");
	err[0] = '\0';
	return doc_parse(d, strdup(text), strlen(text), err, len);
}

static char *table_of(const struct results *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	output_table(r, f, false);
	fclose(f);
	return buf;
}

static void test_round_trip(void **state)
{
	struct doc d;
	char err[512], *again, *t1, *t2;

	(void)state;
	assert_int_equal(parse(&d, fake_doc, err, sizeof(err)), 0);
	assert_int_equal(d.r.ncells, 3);
	assert_int_equal(d.r.cells[1].nreps, 6);
	assert_int_equal(d.r.cells[2].status, CELL_SKIPPED);
	assert_string_equal(d.r.cells[2].reason, FAKE_SKIP_REASON);
	assert_int_equal(d.r.cells[0].hits, -1);
	assert_float_equal(d.r.cells[1].reps[3].traced_ns_per_op, fake.cells[1].reps[3].traced_ns_per_op, 1e-9);
	/* the same document again, byte for byte, and the same table */
	again = output_json_string(&d.r);
	assert_string_equal(again, fake_doc);
	t1 = table_of(&fake);
	t2 = table_of(&d.r);
	assert_string_equal(t1, t2);
	free(again);
	free(t1);
	free(t2);
	doc_release(&d);
}

/*
 * Values at the edges of rounding: the document must give back every bit,
 * or show prints 3.15 where run printed 3.14 (issue 15, defect 3). 15
 * significant digits turn 3.1449999999999996 into 3.145, which the
 * table's %.3g then rounds up.
 */
static void test_round_trip_digits(void **state)
{
	static const double edges[] = { 3.145, 0.0005, 1e-9, 2.675, 1.005, 123456789.125,
					9007199254740993.0, 1e300, 0.1 + 0.2, 99.95, 4788.5 };
	struct results r;

	(void)state;
	for (size_t i = 0; i < sizeof(edges) / sizeof(edges[0]); i++) {
		for (int dir = -1; dir <= 1; dir++) {
			double v = dir ? nextafter(edges[i], dir * INFINITY) : edges[i];
			struct cell *c;
			struct doc d;
			char err[512], *text, *t1, *t2;

			fake_results(&r, 4, 0);
			c = &r.cells[1];
			c->overhead.mean = v;
			c->overhead.ci95[0] = v / 3;
			c->overhead.ci95[1] = v * 3;
			c->base.mean = v;
			c->traced.mean = 2 * v;
			c->slowdown = v;
			c->reps[0].traced_ns_per_op = v;
			text = output_json_string(&r);
			assert_int_equal(parse(&d, text, err, sizeof(err)), 0);
			/* every bit: a table, CSV or compare may print any digit of it */
			assert_memory_equal(&d.r.cells[1].overhead.mean, &v, sizeof(v));
			assert_memory_equal(&d.r.cells[1].overhead.ci95, &c->overhead.ci95,
					    sizeof(c->overhead.ci95));
			assert_memory_equal(&d.r.cells[1].traced.mean, &c->traced.mean, sizeof(v));
			assert_memory_equal(&d.r.cells[1].reps[0].traced_ns_per_op, &v, sizeof(v));
			t1 = table_of(&r);
			t2 = table_of(&d.r);
			assert_string_equal(t1, t2);
			free(t1);
			free(t2);
			free(text);
			doc_release(&d);
			results_release(&r);
		}
	}
}

/* A tool's last words that are not UTF-8 (\377\376): the document is still
 * written, the bytes replaced by U+FFFD, the rest readable (defect 5). */
static void test_not_utf8(void **state)
{
	struct results r;
	struct doc d;
	char err[512], *text;

	(void)state;
	fake_results(&r, 4, 0);
	snprintf(r.cells[2].reason, sizeof(r.cells[2].reason), "tool said: \377\376 bad");
	snprintf(r.env.hostname, sizeof(r.env.hostname), "box\xc3");
	text = output_json_string(&r);
	assert_non_null(text);
	assert_int_equal(parse(&d, text, err, sizeof(err)), 0);
	assert_string_equal(d.r.cells[2].reason, "tool said: \xef\xbf\xbd\xef\xbf\xbd bad");
	assert_string_equal(d.r.env.hostname, "box\xef\xbf\xbd");
	free(text);
	doc_release(&d);
	results_release(&r);
}

/* @fn changes @base; the reader must refuse it at @where. */
static void refused_in(const char *base, void (*fn)(json_t *d), const char *where, const char *what)
{
	json_t *j = json_loads(base, 0, NULL);
	char err[512], *text;
	struct doc d;

	fn(j);
	text = json_dumps(j, JSON_PRESERVE_ORDER);
	assert_int_equal(parse(&d, text, err, sizeof(err)), -1);
	if (!strstr(err, where) || !strstr(err, what))
		fail_msg("want '%s' and '%s' in: %s", where, what, err);
	assert_null(strchr(err, '\n'));
	assert_true(strncmp(err, "invalid results document 't.json': ", 35) == 0);
	doc_release(&d);
	free(text);
	json_decref(j);
}

static void refused(void (*fn)(json_t *d), const char *where, const char *what)
{
	refused_in(fake_doc, fn, where, what);
}

static json_t *cell(json_t *d, size_t i) { return json_array_get(json_object_get(d, "cells"), i); }
static json_t *run(json_t *d, size_t c, size_t i) { return json_array_get(json_object_get(cell(d, c), "runs"), i); }

static void version4(json_t *d) { json_object_set_new(d, "schema_version", json_integer(4)); }
static void version1(json_t *d) { json_object_set_new(d, "schema_version", json_integer(1)); }
static void no_version(json_t *d) { json_object_del(d, "schema_version"); }
static void threads_string(json_t *d) { json_object_set_new(cell(d, 1), "threads", json_string("1")); }
static void no_cells(json_t *d) { json_object_del(d, "cells"); }
static void mean_string(json_t *d)
{
	json_object_set_new(json_object_get(cell(d, 1), "overhead_ns_per_event"), "mean", json_string("25"));
}
static void fewer_runs(json_t *d) { json_array_remove(json_object_get(cell(d, 1), "runs"), 0); }
static void negative_lost(json_t *d) { json_object_set_new(run(d, 1, 2), "lost", json_integer(-1)); }
static void bad_status(json_t *d) { json_object_set_new(cell(d, 0), "status", json_string("disturbed")); }
static void long_note(json_t *d)
{
	char s[2000];

	memset(s, 'x', sizeof(s) - 1);
	s[sizeof(s) - 1] = '\0';
	json_object_set_new(cell(d, 1), "note", json_string(s));
}
static void skipped_with_figures(json_t *d) { json_object_set_new(cell(d, 1), "status", json_string("skipped")); }
static void ok_without_reason(json_t *d)
{
	json_object_set_new(cell(d, 2), "reason", json_null());
}
static void summary_n(json_t *d)
{
	json_object_set_new(json_object_get(cell(d, 1), "traced_ns_per_op"), "n", json_integer(5));
}
static void env_number(json_t *d) { json_object_set_new(json_object_get(d, "environment"), "kernel", json_integer(6)); }
static void seed_letters(json_t *d) { json_object_set_new(json_object_get(d, "options"), "seed", json_string("12ab")); }
static void pair_of_three(json_t *d)
{
	json_object_set_new(json_object_get(cell(d, 1), "overhead_ns_per_event"), "ci95",
			    json_pack("[f, f, f]", 1.0, 2.0, 3.0));
}
static void not_object(json_t *d) { json_object_set_new(d, "environment", json_array()); }
static void drift_negative(json_t *d)
{
	json_object_set_new(json_object_get(d, "repeat_drift"), "tau", json_real(-0.1));
}
static void drift_array(json_t *d) { json_object_set_new(d, "repeat_drift", json_array()); }
static void repeat_of_three(json_t *d)
{
	json_object_set_new(cell(d, 1), "repeat95", json_pack("[f, f, f]", 1.0, 2.0, 3.0));
}

static void test_refused(void **state)
{
	(void)state;
	refused(version4, "/schema_version", "version 4, this tracetax reads versions 2 to 3");
	refused(version1, "/schema_version", "version 1, this tracetax reads versions 2 to 3");
	refused(no_version, "/schema_version", "not a tracetax results document");
	refused(threads_string, "/cells/1/threads", "want an integer, not a string");
	refused(no_cells, "/cells", "missing");
	refused(mean_string, "/cells/1/overhead_ns_per_event/mean", "want a number, not a string");
	refused(fewer_runs, "/cells/1/runs", "5 runs, but reps is 6");
	refused(negative_lost, "/cells/1/runs/2/lost", "out of range");
	refused(bad_status, "/cells/0/status", "want one of ok, skipped, failed");
	refused(long_note, "/cells/1/note", "longer than 511 bytes");
	refused(skipped_with_figures, "/cells/1", "");
	refused(ok_without_reason, "/cells/2/reason", "without its reason");
	refused(summary_n, "/cells/1/traced_ns_per_op", "n 5, but the cell has 6 reps");
	refused(env_number, "/environment/kernel", "want a string, not an integer");
	refused(seed_letters, "/options/seed", "digits");
	refused(pair_of_three, "/cells/1/overhead_ns_per_event/ci95", "want [lo, hi]");
	refused(not_object, "/environment", "want an object, not an array");
	refused(drift_negative, "/repeat_drift/tau", "below 0");
	refused(drift_array, "/repeat_drift", "want an object or null");
	refused(repeat_of_three, "/cells/1/repeat95", "want [lo, hi]");
}

/*
 * The repeat interval: read back as written; a document from before it
 * (no repeat95, no repeat_drift) reads with none and is written back
 * without them, and its table has no line about it.
 */
static void test_repeat_fields(void **state)
{
	json_t *j = json_loads(fake_doc, 0, NULL);
	char err[512], *text, *again, *t;
	struct doc d;

	(void)state;
	assert_int_equal(parse(&d, fake_doc, err, sizeof(err)), 0);
	assert_true(d.r.drift.known);
	assert_float_equal(d.r.drift.tau, 0, 0);
	assert_int_equal(d.r.drift.basis, REPEAT_NONE);
	assert_string_equal(d.r.drift.note, "earlier runs not looked up");
	assert_true(isnan(d.r.cells[1].repeat95[1]));	/* not looked up: none */
	assert_true(isnan(d.r.cells[2].repeat95[0]));	/* skipped: null */
	doc_release(&d);
	/* an assumed tau: read back as written, and the table says it is assumed */
	results_set_repeat(&fake, REPEAT_ASSUMED, REPEAT_PRIOR_TAU, 0, 0, "a first run");
	again = output_json_string(&fake);
	assert_non_null(strstr(again, "\"basis\": \"assumed\""));
	assert_int_equal(parse(&d, again, err, sizeof(err)), 0);
	assert_int_equal(d.r.drift.basis, REPEAT_ASSUMED);
	assert_float_equal(d.r.drift.tau, REPEAT_PRIOR_TAU, 0);
	assert_float_equal(d.r.cells[1].repeat95[1], fake.cells[1].repeat95[1], 1e-9);
	assert_true(fake.cells[1].repeat95[1] > fake.cells[1].overhead.ci95[1]);
	t = table_of(&fake);
	assert_non_null(strstr(t, "ASSUMED, not measured on this host (a first run;\n"));
	free(t);
	free(again);
	doc_release(&d);
	results_drop_repeat(&fake, "earlier runs not looked up");
	json_object_del(j, "repeat_drift");
	for (size_t i = 0; i < 3; i++)
		json_object_del(cell(j, i), "repeat95");
	text = json_dumps(j, JSON_PRESERVE_ORDER | JSON_INDENT(2) | JSON_REAL_PRECISION(17));
	assert_int_equal(parse(&d, text, err, sizeof(err)), 0);
	assert_false(d.r.drift.known);
	assert_true(isnan(d.r.cells[1].repeat95[0]));
	again = output_json_string(&d.r);
	assert_null(strstr(again, "repeat"));
	t = table_of(&d.r);
	assert_null(strstr(t, "repeat95"));
	free(t);
	t = table_of(&fake);
	assert_non_null(strstr(t, "repeat95 (in the JSON): where a rerun's mean should land: none,\n"
				  "earlier runs not looked up\n"));
	free(t);
	free(again);
	doc_release(&d);
	free(text);
	json_decref(j);
}

static void refused_text(const char *text, const char *what)
{
	char err[512];
	struct doc d;

	assert_int_equal(parse(&d, text, err, sizeof(err)), -1);
	if (!strstr(err, what))
		fail_msg("want '%s' in: %s", what, err);
	assert_null(strchr(err, '\n'));
	doc_release(&d);
}

static void test_refused_text(void **state)
{
	size_t n = DOC_MAX_VALUES + 10;
	char *big = malloc(2 * n + 3), *deep = malloc(2 * 100 + 1), *half;

	(void)state;
	refused_text("", "not JSON");
	refused_text("[]", "/: want an object, not an array");
	refused_text("{\"schema_version\": 2, \"x\": NaN}", "not JSON");
	refused_text("{\"schema_version\": 2, \"schema_version\": 2}", "duplicate");
	refused_text("{\"schema_version\": 99999999999999999999999}", "not JSON");
	refused_text("{\"schema_version\": 2, \"elapsed_s\": 1e999}", "not JSON");
	half = strndup(fake_doc, strlen(fake_doc) / 2);
	refused_text(half, "not JSON");
	/* a value count and a depth no document of ours has, refused before parsing */
	big[0] = '[';
	for (size_t i = 0; i < n; i++)
		memcpy(big + 1 + 2 * i, "0,", 2);
	big[2 * n] = ']';
	big[2 * n + 1] = '\0';
	refused_text(big, "more than 2000000 values");
	for (int i = 0; i < 100; i++) {
		deep[i] = '[';
		deep[199 - i] = ']';
	}
	deep[200] = '\0';
	refused_text(deep, "nested deeper than 32");
	free(half);
	free(big);
	free(deep);
}

/* Fields the reader does not know (added by a later part of tracetax) are
 * kept and ignored; control characters in strings never reach a terminal. */
static void test_tolerant(void **state)
{
	json_t *j = json_loads(fake_doc, 0, NULL);
	char err[512], *text;
	struct doc d;

	(void)state;
	json_object_set_new(cell(j, 1), "histogram", json_pack("{s:[i,i]}", "buckets", 1, 2));
	json_object_set_new(json_object_get(j, "environment"), "tool_startup_ms", json_real(3.5));
	json_object_set_new(cell(j, 1), "note", json_string("a\033[2Jb\nc"));
	text = json_dumps(j, 0);
	assert_int_equal(parse(&d, text, err, sizeof(err)), 0);
	assert_string_equal(d.r.cells[1].note, "a?[2Jb?c");
	assert_non_null(json_object_get(cell(d.json, 1), "histogram"));
	doc_release(&d);
	free(text);
	json_decref(j);
}

/* The same JSON, numbers within 1e-9: a distribution's variance comes back
 * from its mean and count through a subtraction, the rest exactly. */
static void assert_json_close(json_t *a, json_t *b, const char *path)
{
	char sub[512];

	if (json_typeof(a) != json_typeof(b))
		fail_msg("%s: %s for %s", path, json_dumps(b, JSON_ENCODE_ANY),
			 json_dumps(a, JSON_ENCODE_ANY));
	if (json_is_object(a)) {
		const char *k;
		json_t *v;

		/* a document from before rounds comes back with their fields: every rep in
		 * round 0, the plan of 1 round, the cell's rounds and share as read; one from
		 * before kauditd's CPU with its fields null; one from before hits_upto with its
		 * tracer's */
		size_t added = 0;
		static const char *const since_rounds[] = { "round", "rounds", "between_round_share",
							    "kernel_consumer_ns",
							    "kernel_consumer_ns_per_event", "hits_upto" };

		for (size_t i = 0; i < sizeof(since_rounds) / sizeof(since_rounds[0]); i++)
			added += !json_object_get(a, since_rounds[i]) &&
				 json_object_get(b, since_rounds[i]);
		if (json_object_size(a) + added != json_object_size(b))
			fail_msg("%s: %zu fields for %zu", path, json_object_size(b), json_object_size(a));
		json_object_foreach(a, k, v) {
			snprintf(sub, sizeof(sub), "%s/%s", path, k);
			if (!json_object_get(b, k))
				fail_msg("%s: missing", sub);
			assert_json_close(v, json_object_get(b, k), sub);
		}
	} else if (json_is_array(a)) {
		if (json_array_size(a) != json_array_size(b))
			fail_msg("%s: %zu elements for %zu", path, json_array_size(b), json_array_size(a));
		for (size_t i = 0; i < json_array_size(a); i++) {
			snprintf(sub, sizeof(sub), "%s/%zu", path, i);
			assert_json_close(json_array_get(a, i), json_array_get(b, i), sub);
		}
	} else if (json_is_real(a)) {
		double x = json_real_value(a), y = json_real_value(b);

		if (fabs(x - y) > 1e-9 * fmax(fabs(x), fabs(y)))
			fail_msg("%s: %.17g for %.17g", path, y, x);
	} else if (!json_equal(a, b)) {
		fail_msg("%s: %s for %s", path, json_dumps(b, JSON_ENCODE_ANY),
			 json_dumps(a, JSON_ENCODE_ANY));
	}
}

/*
 * Documents of real runs with every version 3 field (a tool's start-up,
 * program time, two thread counts, --latency; a tcp run's throughput and
 * hits per tracepoint) read back into the structs they were written from:
 * written again, they are the same document, and the table has each part.
 */
static void test_v3_fields(void **state)
{
	static const struct { const char *path, *want[6]; } docs[] = {
		{ "tests/fixtures/docs/latency.json", { "timed with CLOCK_MONOTONIC around each hot loop",
		  "\nstrace          1     1096      40698  39602 [-48985, 128189]     x37.1    4400/4400"
		  "     0        -     23.2/0.461", "\nscaling: per tracer", "  costs the loop 87.6 ns a call",
		  "\nstrace                 baseline      4000   947.5", "bpf stats: -52.3 ns/event" } },
		{ "tests/fixtures/docs/tcp.json", { "timed with CLOCK_MONOTONIC",
		  "\nbpf:tp/count tcp        1    0.07     -7635   -107670     118.8     317.8  -167.6 [-, -]",
		  "(1448 bytes an event)", "prog ns", "    109.0", ", target tcp:tcp_probe\n" } },
		{ "tests/fixtures/docs/default.json", { "timed with", "prog ns", "", "", "", "" } },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(docs) / sizeof(docs[0]); i++) {
		char *text = slurp(docs[i].path), err[512], *again, *table;
		json_t *a = json_loads(text, 0, NULL), *b;
		struct doc d;

		if (parse(&d, text, err, sizeof(err)))
			fail_msg("%s: %s", docs[i].path, err);
		again = output_json_string(&d.r);
		b = json_loads(again, 0, NULL);
		assert_json_close(a, b, docs[i].path);
		table = table_of(&d.r);
		for (int k = 0; k < 6; k++)
			if (!strstr(table, docs[i].want[k]))
				fail_msg("%s: no '%s' in:\n%s", docs[i].path, docs[i].want[k], table);
		json_decref(a);
		json_decref(b);
		free(again);
		free(table);
		free(text);
		doc_release(&d);
	}
}

/* A version 2 document has none of version 3's fields: all unknown. */
static void test_v2(void **state)
{
	char *text = slurp("tests/fixtures/docs/small-v2.json"), err[512], *table;
	struct doc d;

	(void)state;
	if (parse(&d, text, err, sizeof(err)))
		fail_msg("%s", err);
	assert_string_equal(d.r.timing.clock, "");
	assert_int_equal(d.r.timing.clock_vdso, -1);
	assert_false(d.r.stats_cost.measured);
	assert_false(d.r.opts.latency);
	assert_int_equal(d.r.opts.msg_size, 0);
	for (int i = 0; i < d.r.ncells; i++) {
		const struct cell *c = &d.r.cells[i];

		assert_null(c->lat);
		assert_null(c->per_thread);
		assert_false(c->prog.bpf);
		assert_true(isnan(c->startup_ms) && isnan(c->hits_per_event) && isnan(c->base_mops));
		assert_int_equal(c->bytes_per_event, 0);
		assert_int_equal(c->cpus_used, 0);
		for (int r = 0; r < c->nreps; r++)
			assert_null(c->reps[r].threads);
	}
	table = table_of(&d.r);
	assert_null(strstr(table, "timed with"));
	assert_null(strstr(table, "prog ns"));
	free(table);
	free(text);
	doc_release(&d);
}

static json_t *dist(json_t *d, size_t c, const char *side)
{
	return json_object_get(json_object_get(cell(d, c), "latency"), side);
}
static json_t *bucket(json_t *d, size_t c, size_t i)
{
	return json_array_get(json_object_get(dist(d, c, "traced"), "buckets"), i);
}
static void bucket_lo(json_t *d) { json_array_set_new(bucket(d, 1, 0), 0, json_integer(1073)); }
static void bucket_hi(json_t *d) { json_array_set_new(bucket(d, 1, 0), 1, json_integer(1090)); }
static void bucket_empty(json_t *d) { json_array_set_new(bucket(d, 1, 3), 2, json_integer(0)); }
static void bucket_negative(json_t *d) { json_array_set_new(bucket(d, 1, 3), 2, json_integer(-1)); }
static void bucket_pair(json_t *d) { json_array_remove(bucket(d, 1, 2), 2); }
static void buckets_swapped(json_t *d)
{
	json_t *b = json_object_get(dist(d, 1, "traced"), "buckets"), *first = json_incref(bucket(d, 1, 0));

	json_array_remove(b, 0);
	json_array_insert_new(b, 1, first);
}
static void count_more(json_t *d) { json_object_set_new(dist(d, 0, "baseline"), "count", json_integer(4001)); }
static void max_low(json_t *d) { json_object_set_new(dist(d, 2, "traced"), "max", json_integer(29952)); }
static void mean_high(json_t *d) { json_object_set_new(dist(d, 0, "traced"), "mean", json_real(1e9)); }
static void dist_null(json_t *d) { json_object_set_new(json_object_get(cell(d, 0), "latency"), "traced", json_null()); }
static void latency_pairs(json_t *d) { json_object_set_new(json_object_get(cell(d, 0), "latency"), "pairs", json_integer(0)); }
static void startup_negative(json_t *d) { json_object_set_new(cell(d, 2), "startup_ms", json_real(-1)); }
static void shutdown_string(json_t *d) { json_object_set_new(cell(d, 2), "shutdown_ms", json_string("1")); }
static void per_thread_short(json_t *d) { json_array_remove(json_object_get(cell(d, 3), "per_thread"), 1); }
static void thread_cpu(json_t *d)
{
	json_object_set_new(json_array_get(json_object_get(cell(d, 3), "per_thread"), 1), "cpu", json_integer(-2));
}
static void run_threads(json_t *d) { json_array_remove(json_object_get(run(d, 4, 1), "threads"), 0); }
static void run_mops(json_t *d) { json_object_set_new(run(d, 4, 1), "throughput_mops", json_integer(3)); }
static void cpus_used(json_t *d) { json_object_set_new(cell(d, 0), "cpus_used", json_integer(2)); }
static void spread(json_t *d)
{
	json_object_set_new(json_object_get(cell(d, 3), "thread_spread_pct"), "traced", json_real(-5));
}
static void vdso_string(json_t *d) { json_object_set_new(json_object_get(d, "timing"), "clock_vdso", json_string("yes")); }
static void no_timing(json_t *d) { json_object_del(d, "timing"); }
static void long_clock(json_t *d)
{
	json_object_set_new(json_object_get(d, "timing"), "clock", json_string("CLOCK_MONOTONIC_RAW_AND_THEN_SOME"));
}
static void stats_threads(json_t *d) { json_object_set_new(json_object_get(d, "bpf_stats_cost"), "threads", json_integer(0)); }
static void program_runs(json_t *d) { json_object_set_new(json_object_get(cell(d, 1), "program"), "runs", json_string("3")); }
static void program_array(json_t *d) { json_object_set_new(cell(d, 1), "program", json_array()); }
static void verified_number(json_t *d) { json_object_set_new(cell(d, 1), "verified_syscall", json_integer(39)); }
static void msg_size_zero(json_t *d) { json_object_set_new(json_object_get(d, "options"), "msg_size", json_integer(0)); }
static void latency_string(json_t *d) { json_object_set_new(json_object_get(d, "options"), "latency", json_string("yes")); }
static void bytes_zero(json_t *d)
{
	json_object_set_new(json_object_get(cell(d, 1), "throughput"), "bytes_per_event", json_integer(0));
}
static void hits_per_event(json_t *d) { json_object_set_new(cell(d, 1), "hits_per_event", json_real(-0.5)); }
static void skipped_latency(json_t *d) { json_object_set_new(cell(d, 2), "latency", json_pack("{s:i}", "pairs", 2)); }
static void v3_missing(json_t *d) { json_object_del(cell(d, 1), "per_thread"); }

/* Version 3's fields are untrusted as the others: each refused where it is wrong. */
static void test_refused_v3(void **state)
{
	char *lat = slurp("tests/fixtures/docs/latency.json"), *tcp = slurp("tests/fixtures/docs/tcp.json");
	const char *b = "/cells/1/latency/traced/buckets";

	(void)state;
	refused_in(lat, bucket_lo, "/cells/1/latency/traced/buckets/0", "1073 is not where a bucket starts");
	refused_in(lat, bucket_hi, "/cells/1/latency/traced/buckets/0", "ends at 1088, not 1090");
	refused_in(lat, bucket_empty, "/cells/1/latency/traced/buckets/3", "an empty bucket");
	refused_in(lat, bucket_negative, "/cells/1/latency/traced/buckets/3", "non-negative integers");
	refused_in(lat, bucket_pair, "/cells/1/latency/traced/buckets/2", "want [lo, hi, count], not another array");
	refused_in(lat, buckets_swapped, b, "not in ascending order");
	refused_in(lat, count_more, "/cells/0/latency/baseline/buckets", "4000 calls, but count is 4001");
	refused_in(lat, max_low, "/cells/2/latency/traced/max", "not in the last bucket");
	refused_in(lat, mean_high, "/cells/0/latency/traced/mean", "not between min and max");
	refused_in(lat, dist_null, "/cells/0/latency/traced", "want a distribution object, not null");
	refused_in(lat, latency_pairs, "/cells/0/latency/pairs", "out of range");
	refused_in(lat, startup_negative, "/cells/2/startup_ms", "-1 is below 0");
	refused_in(lat, shutdown_string, "/cells/2/shutdown_ms", "want a number or null, not a string");
	refused_in(lat, per_thread_short, "/cells/3/per_thread", "1 threads, but the cell has 2");
	refused_in(lat, thread_cpu, "/cells/3/per_thread/1/cpu", "out of range");
	refused_in(lat, run_threads, "/cells/4/runs/1/threads", "1 threads, but the cell has 2");
	refused_in(lat, run_mops, "/cells/4/runs/1/throughput_mops", "want an object or null, not an integer");
	refused_in(lat, cpus_used, "/cells/0/cpus_used", "2 is out of range (1 to 1)");
	refused_in(lat, spread, "/cells/3/thread_spread_pct/traced", "below 0");
	refused_in(lat, vdso_string, "/timing/clock_vdso", "want a boolean, not a string");
	refused_in(lat, no_timing, "/timing", "missing");
	refused_in(lat, long_clock, "/timing/clock", "longer than 31 bytes");
	refused_in(lat, stats_threads, "/bpf_stats_cost/threads", "out of range");
	refused_in(lat, program_runs, "/cells/1/program/runs", "want an integer or null, not a string");
	refused_in(lat, program_array, "/cells/1/program", "want an object or null, not an array");
	refused_in(lat, verified_number, "/cells/1/verified_syscall", "want a string or null");
	refused_in(lat, latency_string, "/options/latency", "want a boolean");
	refused_in(lat, v3_missing, "/cells/1/per_thread", "missing");
	refused_in(tcp, msg_size_zero, "/options/msg_size", "out of range");
	refused_in(tcp, bytes_zero, "/cells/1/throughput/bytes_per_event", "out of range");
	refused_in(tcp, hits_per_event, "/cells/1/hits_per_event", "below 0");
	refused(skipped_latency, "/cells/2/latency", "figures of a cell that is not ok");
	free(lat);
	free(tcp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_round_trip_digits),
		cmocka_unit_test(test_not_utf8),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_refused_text),
		cmocka_unit_test(test_tolerant),
		cmocka_unit_test(test_repeat_fields),
		cmocka_unit_test(test_v3_fields),
		cmocka_unit_test(test_v2),
		cmocka_unit_test(test_refused_v3),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
