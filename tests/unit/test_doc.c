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

#include "doc_read.h"
#include "fake_results.h"

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

/* @fn changes the fake document; the reader must refuse it at @where. */
static void refused(void (*fn)(json_t *d), const char *where, const char *what)
{
	json_t *j = json_loads(fake_doc, 0, NULL);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_refused_text),
		cmocka_unit_test(test_tolerant),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
