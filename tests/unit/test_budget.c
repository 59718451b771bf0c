/*
 * tracetax budget's figures on inputs no test machine has (issue 26, item
 * 4): a 128-CPU box, more tracers and checks than the old fixed tables
 * held, a check of a skipped cell.
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

#include "assert_near.h"
#include <jansson.h>

#include "doc/budget.h"
#include "measure/rates.h"
#include "output/budget.h"
#include "results/budget.h"

#define EPS 1e-9

/* A tracer with a stored cost of @ns [ns - 10, ns + 10] per event. */
static struct budget_tracer *add_cost(struct budget *b, const char *name, double ns)
{
	struct budget_tracer *t = budget_add_tracer(b);

	snprintf(t->name, sizeof(t->name), "%s", name);
	snprintf(t->cost.source, sizeof(t->cost.source), "store");
	snprintf(t->cost.workload, sizeof(t->cost.workload), "getpid");
	t->cost.run_id = 1;
	t->cost.reps = 8;
	t->cost.ns = ns;
	t->cost.lo = ns - 10;
	t->cost.hi = ns + 10;
	return t;
}

/*
 * 128 CPUs, 1000 events each of one syscall, in 2 s: every CPU's events
 * are in the per-CPU sums the share is built from, so the share is all of
 * them at 100 ns, over 128 CPUs x 2 s (the old tables held 64 CPUs: half).
 */
/*
 * budget --attached's per-CPU weighting: each CPU's events at its own cost
 * where it has one, else the cell's; none of its own: the cell's, unweighted.
 */
static void test_cost_weighted(void **state)
{
	struct budget_cost c = { .ns = 100, .lo = 90, .hi = 110, .ncpu = 1,
				 .cpu = { { .cpu = 1, .ns = 400, .lo = 300, .hi = 500 } } };
	int64_t per_cpu[] = { 300, 100 };
	double ns, lo, hi;

	(void)state;
	assert_true(budget_cost_weighted(&c, per_cpu, 2, &ns, &lo, &hi));
	/* (300 x 100 + 100 x 400) / 400 */
	assert_true(fabs(ns - 175) < 1e-9);
	assert_true(fabs(lo - (300 * 90 + 100 * 300) / 400.0) < 1e-9);
	assert_true(fabs(hi - (300 * 110 + 100 * 500) / 400.0) < 1e-9);
	/* no event on the CPU with a cost of its own: the cell's figure, not weighted */
	per_cpu[1] = 0;
	assert_false(budget_cost_weighted(&c, per_cpu, 2, &ns, &lo, &hi));
	assert_true(ns == 100 && lo == 90 && hi == 110);
	assert_false(budget_cost_weighted(&c, NULL, 0, &ns, &lo, &hi));
	assert_true(ns == 100);
}

static void test_big_box(void **state)
{
	struct budget b = { 0 };
	uint64_t vals[128];
	int64_t sum = 0;
	double want = 100.0 * 128000 * 100e-9 / (2.0 * 128);

	(void)state;
	for (int c = 0; c < 128; c++)
		vals[c] = 1000;
	b.rates.seconds = 2;
	b.rates.cpus = 128;
	assert_int_equal(rates_add(&b.rates, vals, 128), 128000);
	assert_int_equal(b.rates.ncpu, 128);
	for (int c = 0; c < b.rates.ncpu; c++)
		sum += b.rates.per_cpu[c];
	assert_int_equal(sum, b.rates.events);
	add_cost(&b, "bpf:tp/count", 100);
	budget_finish(&b);
	assert_near(b.tracers[0].share, want, EPS);
	assert_near(b.tracers[0].share_lo, want * 0.9, EPS);
	assert_near(b.tracers[0].share_hi, want * 1.1, EPS);
	assert_near(b.tracers[0].ns_weighted, 100, EPS);
	/* CPU 127: its 1000 events at 100 ns in its own 2 s */
	assert_near(b.tracers[0].cpu_share[127], 100.0 * 1000 * 100e-9 / 2, EPS);
	/* a cost measured on CPU 100 alone weighs that CPU's events only */
	b.tracers[0].cost.ncpu = 1;
	b.tracers[0].cost.cpu[0] = (struct budget_cpu_cost){ .cpu = 100, .ns = 228, .lo = 218,
							     .hi = 238 };
	budget_finish(&b);
	assert_true(b.tracers[0].per_cpu_weighted);
	assert_near(b.tracers[0].ns_weighted, (127 * 100.0 + 228) / 128, EPS);
	assert_near(b.tracers[0].cpu_share[100], 100.0 * 1000 * 228e-9 / 2, EPS);
	budget_release(&b);
}

/* Every tracer and every check is in the document, the table and the report's reading. */
static void test_long_lists(void **state)
{
	struct budget b = { 0 };
	struct budget_brief brief;
	uint64_t vals[2] = { 500, 500 };
	char name[64], err[256], *doc, *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	json_t *d;

	(void)state;
	b.rates.seconds = 1;
	b.rates.cpus = 2;
	rates_add(&b.rates, vals, 2);
	for (int i = 0; i < 20; i++) {
		snprintf(name, sizeof(name), "cmd:'tracer-%d {cmd}'", i);
		add_cost(&b, name, 100 + i);
	}
	for (int i = 0; i < 70; i++) {
		struct budget_check *k = budget_add_check(&b);

		snprintf(k->tracer, sizeof(k->tracer), "cmd:'tracer-%d {cmd}'", i % 20);
		snprintf(k->command, sizeof(k->command), "cmd:'prog-%d'", i);
		snprintf(k->status, sizeof(k->status), "skipped");
		snprintf(k->reason, sizeof(k->reason), "reason %d", i);
		k->events_per_run = -1;
		k->pred_pct = k->meas_pct = k->error_pct = NAN;
	}
	budget_finish(&b);
	doc = doc_budget_json(&b);
	d = json_loads(doc, 0, NULL);
	assert_non_null(d);
	assert_int_equal(json_array_size(json_object_get(d, "tracers")), 20);
	assert_int_equal(json_array_size(json_object_get(d, "checks")), 70);
	/* a skipped cell made no counting pass: no events per run, not -1 */
	assert_true(json_is_null(json_object_get(json_array_get(json_object_get(d, "checks"), 69),
						 "events_per_run")));
	json_decref(d);
	assert_int_equal(doc_read_budget(doc, strlen(doc), &brief, err, sizeof(err)), 0);
	assert_int_equal(brief.ntracers, 20);
	assert_int_equal(brief.nchecks, 70);
	assert_string_equal(brief.k[69].status, "skipped");
	doc_budget_brief_release(&brief);
	free(doc);
	assert_non_null(f);
	output_budget(&b, f);
	fclose(f);
	assert_non_null(strstr(text, "cmd:'tracer-19 {cmd}'"));
	assert_non_null(strstr(text, "cmd:'prog-69'"));
	assert_non_null(strstr(text, "skipped: reason 69"));
	free(text);
	budget_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cost_weighted),
		cmocka_unit_test(test_big_box),
		cmocka_unit_test(test_long_lists),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
