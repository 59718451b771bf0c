/*
 * compare's statistics against hand-computed values: the exact and the
 * normal Mann-Whitney p, Holm's adjustment, the bootstrap interval of a
 * known shift, and the verdict rules.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "compare/compare.h"
#include "compare_rejected.h"
#include "compare/out.h"
#include "doc/write.h"
#include "fake_results.h"

#define N(x) (sizeof(x) / sizeof((x)[0]))

static void test_mann_whitney_exact(void **state)
{
	const double a3[] = { 1, 2, 3 }, b3[] = { 4, 5, 6 };
	const double a5[] = { 1, 2, 3, 4, 5 }, b5[] = { 6, 7, 8, 9, 10 };
	const double odd[] = { 1, 3, 5 }, even[] = { 2, 4, 6 };
	double u;

	(void)state;
	/* all of b above all of a: 1 ordering of C(6,3) = 20 each way */
	assert_float_equal(rejected_mann_whitney(a3, 3, b3, 3, &u), 2.0 / 20, 1e-12);
	assert_float_equal(u, 9, 0);
	assert_float_equal(rejected_mann_whitney(b3, 3, a3, 3, &u), 2.0 / 20, 1e-12);
	assert_float_equal(u, 0, 0);
	/* 2 / C(10,5): the smallest p five reps a side can give */
	assert_float_equal(rejected_mann_whitney(a5, 5, b5, 5, NULL), 2.0 / 252, 1e-12);
	/* U = 6 of 9; P(U <= 3) = (1 + 1 + 2 + 3) / 20 ([6 choose 3]_q: 1 1 2 3 3 3 3 2 1 1) */
	assert_float_equal(rejected_mann_whitney(odd, 3, even, 3, &u), 0.7, 1e-12);
	assert_float_equal(u, 6, 0);
	assert_true(isnan(rejected_mann_whitney(a3, 0, b3, 3, NULL)));
}

/* Ties: mid-ranks 1.5 1.5 3.5 | 3.5 5.5 5.5, U_b = 8.5, var = 9/12 (7 - 18/30) = 4.8,
 * z = (|8.5 - 4.5| - 0.5) / sqrt(4.8), p = erfc(z / sqrt 2) = 0.110149 */
static void test_mann_whitney_ties(void **state)
{
	const double a[] = { 1, 1, 2 }, b[] = { 2, 3, 3 };
	const double same[] = { 4, 4, 4 };
	double u;

	(void)state;
	assert_float_equal(rejected_mann_whitney(a, 3, b, 3, &u), 0.110148924, 1e-8);
	assert_float_equal(u, 8.5, 0);
	/* nothing but ties: no evidence at all */
	assert_float_equal(rejected_mann_whitney(same, 3, same, 3, NULL), 1, 0);
}

static void test_holm(void **state)
{
	const double p[] = { 0.01, 0.04, 0.03, 0.005 };
	double adj[4];
	const double one[] = { 0.2 };

	(void)state;
	/* sorted 0.005 0.01 0.03 0.04, times 4 3 2 1, kept monotone: 0.02 0.03 0.06 0.06 */
	compare_holm(p, 4, adj);
	assert_float_equal(adj[0], 0.03, 1e-15);
	assert_float_equal(adj[1], 0.06, 1e-15);
	assert_float_equal(adj[2], 0.06, 1e-15);
	assert_float_equal(adj[3], 0.02, 1e-15);
	compare_holm(one, 1, adj);
	assert_float_equal(adj[0], 0.2, 0);
	/* capped at 1 */
	compare_holm((double[]){ 0.5, 0.6 }, 2, adj);
	assert_float_equal(adj[0], 1, 0);
	assert_float_equal(adj[1], 1, 0);
}

static void test_bootstrap_shift(void **state)
{
	const double a[] = { 24.1, 25.3, 26.0, 24.8, 25.5, 25.9 };
	double b[N(a)], ci[2], ci2[2], p, p2;

	(void)state;
	for (size_t i = 0; i < N(a); i++)
		b[i] = a[(i + 2) % N(a)] + 10;
	rejected_bootstrap_diff(a, N(a), b, N(b), 20000, 42, 0.95, ci, &p);
	assert_true(ci[0] < 10 && ci[1] > 10);
	assert_true(ci[0] > 8 && ci[1] < 12);
	/* no resample crosses 0: the smallest p there is, 2 / (B + 1) */
	assert_float_equal(p, 2.0 / 20001, 1e-12);
	/* the same seed, the same interval */
	rejected_bootstrap_diff(a, N(a), b, N(b), 20000, 42, 0.95, ci2, &p2);
	assert_float_equal(ci[0], ci2[0], 0);
	assert_float_equal(ci[1], ci2[1], 0);
	/* a run against itself: centred on 0 */
	rejected_bootstrap_diff(a, N(a), a, N(a), 20000, 42, 0.95, ci, &p);
	assert_true(ci[0] < 0 && ci[1] > 0);
	assert_true(fabs(ci[0] + ci[1]) < 0.1);
	assert_true(p > 0.9);
}

static void test_bootstrap_constant(void **state)
{
	const double a[] = { 5, 5, 5, 5, 5 }, b[] = { 7, 7, 7, 7, 7 };
	double ci[2], p;

	(void)state;
	rejected_bootstrap_diff(a, 5, b, 5, 1000, 1, 0.95, ci, &p);
	assert_float_equal(ci[0], 2, 0);
	assert_float_equal(ci[1], 2, 0);
	rejected_bootstrap_diff(a, 0, b, 5, 1000, 1, 0.95, ci, &p);
	assert_true(isnan(ci[0]) && isnan(p));
}

/* The stretch by sqrt(n / (n - 1)): at n = 2 the resampled means of {0, 2}
 * are 0, 1, 2 around 1; stretched by sqrt 2, the extremes sit at 1 +- sqrt 2. */
static void test_bootstrap_stretch(void **state)
{
	const double a[] = { 0 }, b[] = { 0, 2 };
	double ci[2], p;

	(void)state;
	rejected_bootstrap_diff(a, 1, b, 2, 4000, 3, 0.95, ci, &p);
	assert_float_equal(ci[0], 1 - M_SQRT2, 1e-12);
	assert_float_equal(ci[1], 1 + M_SQRT2, 1e-12);
}

static void test_verdict(void **state)
{
	const double up[2] = { 8, 12 }, down[2] = { -12, -8 }, zero[2] = { -1, 12 };

	(void)state;
	assert_int_equal(compare_verdict(5, 5, 0.01, 10, up, 0.001, 1, NAN), VERDICT_WORSE);
	assert_int_equal(compare_verdict(5, 5, 0.01, -10, down, 0.001, 1, NAN), VERDICT_BETTER);
	/* each condition on its own keeps it the same */
	assert_int_equal(compare_verdict(5, 5, 0.01, 10, up, 0.06, 1, NAN), VERDICT_SAME);
	assert_int_equal(compare_verdict(5, 5, 0.01, 10, zero, 0.001, 1, NAN), VERDICT_SAME);
	assert_int_equal(compare_verdict(5, 5, 0.01, 10, up, 0.001, 10.5, NAN), VERDICT_SAME);
	assert_int_equal(compare_verdict(5, 5, 0.01, 10, up, 0.001, 1, 11), VERDICT_SAME);
	assert_int_equal(compare_verdict(5, 5, 0.01, 10, up, NAN, 1, NAN), VERDICT_SAME);
	/* below the minimum (3 units: round means, or reps of a one-round run) on either
	 * side: no verdict at all */
	assert_int_equal(compare_verdict(2, 50, 0.01, 10, up, 0.001, 1, NAN), VERDICT_TOO_FEW);
	assert_int_equal(compare_verdict(50, 2, 0.01, 10, up, 0.001, 1, NAN), VERDICT_TOO_FEW);
	assert_int_equal(compare_verdict(3, 3, 0.01, 10, up, 0.001, 1, NAN), VERDICT_WORSE);
	assert_string_equal(compare_verdict_name(VERDICT_TOO_FEW), "too few reps");
	/* a side's baseline above 5% cv: no verdict either; NaN (one rep) is not noisy */
	assert_int_equal(compare_verdict(5, 5, 0.051, 10, up, 0.001, 1, NAN), VERDICT_NOISY);
	assert_int_equal(compare_verdict(5, 5, NAN, 10, up, 0.001, 1, NAN), VERDICT_WORSE);
	assert_string_equal(compare_verdict_name(VERDICT_NOISY), "noisy");
}

/* Runs of the fake cells: bpf:tp/count ~25 ns, B shifted by @shift; the verdicts. */
static void compare_fake(int na, int nb, double shift, double pct, struct cmp *c,
			 struct results *a, struct results *b)
{
	fake_results(a, na, 0);
	fake_results(b, nb, shift);
	compare_runs(a, b, pct, c);
	assert_int_equal(c->nrows, 3);
	assert_true(c->rows[0].compared && c->rows[1].compared);
	assert_false(c->rows[2].compared);	/* skipped on both sides */
}

static void test_runs(void **state)
{
	struct results a, b;
	struct cmp c;

	(void)state;
	/* a shift of 5 ns (20%): worse, the interval holding the shift; none the same */
	compare_fake(10, 10, 5, 5, &c, &a, &b);
	assert_int_equal(c.rows[1].verdict, VERDICT_WORSE);
	assert_true(c.rows[1].ci[0] < 5 && c.rows[1].ci[1] > 5);
	assert_float_equal(c.rows[1].diff, 5, 1e-9);
	/* the wiggle of 10 reps: 0 1.5 -1 -0.5 0 1.5 -1 -0.5 0 1.5, mean 0.15 */
	assert_float_equal(c.rows[1].ma, 25.15, 1e-9);
	assert_float_equal(c.rows[1].ratio, 30.15 / 25.15, 1e-9);
	assert_int_equal(c.rows[0].verdict, VERDICT_SAME);
	assert_int_equal(c.family, 2);
	assert_int_equal(c.worse, 1);
	compare_release(&c);
	results_release(&a);
	results_release(&b);
	/* -5 ns: better */
	compare_fake(10, 10, -5, 5, &c, &a, &b);
	assert_int_equal(c.rows[1].verdict, VERDICT_BETTER);
	compare_release(&c);
	results_release(&a);
	results_release(&b);
	/* 1 ns is 4% of 25: below the 5% threshold, the same; above a 3% one, worse */
	compare_fake(10, 10, 1, 5, &c, &a, &b);
	assert_int_equal(c.rows[1].verdict, VERDICT_SAME);
	assert_true(c.rows[1].ci[0] > 0);	/* real, and called the same all the same */
	compare_release(&c);
	results_release(&a);
	results_release(&b);
	/* a run against itself */
	compare_fake(6, 6, 0, 5, &c, &a, &b);
	assert_int_equal(c.same, 2);
	assert_int_equal(c.worse + c.better + c.too_few, 0);
	compare_release(&c);
	results_release(&a);
	results_release(&b);
	/* two reps on a side: no verdict, whatever the shift */
	compare_fake(2, 10, 50, 5, &c, &a, &b);
	assert_int_equal(c.rows[1].verdict, VERDICT_TOO_FEW);
	assert_int_equal(c.too_few, 2);
	assert_int_equal(c.family, 0);
	compare_release(&c);
	results_release(&a);
	results_release(&b);
}

/* Cells on one side only are rows of their own, A's first. */
static void test_runs_unmatched(void **state)
{
	struct results a, b;
	struct cmp c;

	(void)state;
	fake_results(&a, 5, 0);
	fake_results(&b, 5, 0);
	snprintf(b.cells[0].tracer, sizeof(b.cells[0].tracer), "inline");
	compare_runs(&a, &b, 5, &c);
	assert_int_equal(c.nrows, 4);
	assert_non_null(c.rows[0].a);
	assert_null(c.rows[0].b);		/* none: only in A */
	assert_null(c.rows[3].a);
	assert_string_equal(c.rows[3].b->tracer, "inline");
	compare_release(&c);
	results_release(&a);
	results_release(&b);
}

/*
 * audit:rules cells of two rule sets measured two walks: rows of their own;
 * of one set, or one side from before the set was recorded, one row.
 */
static void test_runs_rule_sets(void **state)
{
	struct results a, b;
	struct cmp c;

	(void)state;
	fake_results(&a, 5, 0);
	fake_results(&b, 5, 0);
	for (struct results *r = &a; r; r = r == &a ? &b : NULL)
		snprintf(r->cells[1].tracer, sizeof(r->cells[1].tracer), "audit:rules");
	a.cells[1].audit_rules = (struct cell_rules){ "a.rules", "00000000000000aa", 1 };
	b.cells[1].audit_rules = (struct cell_rules){ "b.rules", "00000000000000bb", 20 };
	compare_runs(&a, &b, 5, &c);
	assert_int_equal(c.nrows, 4);
	assert_null(c.rows[1].b);
	assert_string_equal(c.rows[3].b->audit_rules.file, "b.rules");
	compare_release(&c);
	b.cells[1].audit_rules = (struct cell_rules){ "elsewhere/a.rules", "00000000000000aa", 1 };
	compare_runs(&a, &b, 5, &c);
	assert_int_equal(c.nrows, 3);
	compare_release(&c);
	memset(&b.cells[1].audit_rules, 0, sizeof(b.cells[1].audit_rules));
	compare_runs(&a, &b, 5, &c);
	assert_int_equal(c.nrows, 3);
	compare_release(&c);
	results_release(&a);
	results_release(&b);
}

/*
 * A TCG guest's run against the host's, or a KVM guest's: no verdicts, the
 * figures shown without a p; two TCG guests' runs compare as any two.
 */
static void test_runs_tcg(void **state)
{
	struct results a, b;
	struct cmp c;

	(void)state;
	fake_results(&a, 10, 0);
	fake_results(&b, 10, 5);
	fake_set(b.env.vm, sizeof(b.env.vm), "tcg");
	compare_runs(&a, &b, 5, &c);
	assert_int_equal(c.rows[1].verdict, VERDICT_NOT_COMPARABLE);
	assert_int_equal(c.rows[0].verdict, VERDICT_NOT_COMPARABLE);
	assert_float_equal(c.rows[1].diff, 5, 1e-9);
	assert_true(isnan(c.rows[1].p) && isnan(c.rows[1].ci[0]));
	assert_int_equal(c.worse + c.better + c.same + c.too_few + c.noisy, 0);
	assert_int_equal(c.not_comparable, 2);
	assert_string_equal(c.incomparable, "A ran on the host, B in a VM of --kernel under tcg");
	assert_string_equal(compare_verdict_name(VERDICT_NOT_COMPARABLE), "not comparable");
	compare_release(&c);
	/* against a KVM guest: not comparable either */
	fake_set(a.env.vm, sizeof(a.env.vm), "kvm");
	compare_runs(&a, &b, 5, &c);
	assert_int_equal(c.not_comparable, 2);
	compare_release(&c);
	/* two TCG guests: the verdicts as ever */
	fake_set(a.env.vm, sizeof(a.env.vm), "tcg");
	compare_runs(&a, &b, 5, &c);
	assert_int_equal(c.rows[1].verdict, VERDICT_WORSE);
	assert_int_equal(c.not_comparable, 0);
	assert_string_equal(c.incomparable, "");
	compare_release(&c);
	results_release(&a);
	results_release(&b);
}

/* @a and @b as compare reads them: written, then read back (the docs own their text). */
static void docs_of(struct results *a, struct results *b, struct doc *da, struct doc *db)
{
	char err[512], *ta = output_json_string(a), *tb = output_json_string(b);

	assert_int_equal(doc_parse(da, ta, strlen(ta), err, sizeof(err)), 0);
	assert_int_equal(doc_parse(db, tb, strlen(tb), err, sizeof(err)), 0);
}

/* What compare says of @a's and @b's environments, without colours; the caller frees it. */
static char *env_said(const struct doc *a, const struct doc *b)
{
	static const struct cmp_style plain = { "", "", "", "", "", "" };
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	assert_non_null(f);
	compare_print_env(f, a, b, &plain);
	fclose(f);
	return out;
}

/*
 * A run in a VM of --kernel against one on the host: the store's rule
 * (store/stand.h) says their cells do not stand for the same host's
 * costs, and compare says so, whatever the kernel release they share.
 */
static void test_env_vm(void **state)
{
	struct results a, b;
	struct doc da = { 0 }, db = { 0 };
	char *out;

	(void)state;
	fake_results(&a, 5, 0);
	fake_results(&b, 5, 225);
	fake_set(b.env.vm, sizeof(b.env.vm), "tcg");
	docs_of(&a, &b, &da, &db);
	out = env_said(&da, &db);
	if (!strstr(out, "no verdicts: A ran on the host, B in a VM of --kernel under tcg: an "
		    "emulated CPU's ns are not costs"))
		fail_msg("no warning in: %s", out);
	free(out);
	/* two runs on the host: no such line */
	out = env_said(&da, &da);
	assert_null(strstr(out, "stand for"));
	free(out);
	doc_release(&da);
	doc_release(&db);
	results_release(&a);
	results_release(&b);
}

/* A on a box with the audit residue, B on one without: said, with each side's causes. */
static void test_env_slow_path(void **state)
{
	struct results a, b;
	struct doc da = { 0 }, db = { 0 };
	char *out;

	(void)state;
	fake_results(&a, 5, 0);
	fake_results(&b, 5, 225);
	a.slow_path = (struct slow_path){ .probed = true, .known = true, .causes = 1u << SLOW_AUDIT,
					  .audit_enabled = 0, .getpid_ns = 230, .never_task_ns = 135 };
	docs_of(&a, &b, &da, &db);
	out = env_said(&da, &db);
	if (!strstr(out, "warning: a fresh task's syscall slow path: A audit, B none said: a syscall "
		    "hook's cost is marginal to that path where it is taken\n"))
		fail_msg("no warning in: %s", out);
	free(out);
	/* the same on both sides: nothing */
	out = env_said(&da, &da);
	assert_null(strstr(out, "slow path"));
	free(out);
	doc_release(&da);
	doc_release(&db);
	results_release(&a);
	results_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mann_whitney_exact),
		cmocka_unit_test(test_mann_whitney_ties),
		cmocka_unit_test(test_holm),
		cmocka_unit_test(test_bootstrap_shift),
		cmocka_unit_test(test_bootstrap_constant),
		cmocka_unit_test(test_bootstrap_stretch),
		cmocka_unit_test(test_verdict),
		cmocka_unit_test(test_runs),
		cmocka_unit_test(test_runs_unmatched),
		cmocka_unit_test(test_runs_rule_sets),
		cmocka_unit_test(test_runs_tcg),
		cmocka_unit_test(test_env_vm),
		cmocka_unit_test(test_env_slow_path),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
