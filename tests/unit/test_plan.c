/* The plan: built before anything runs, each cell with its own rep order. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "cli/cli.h"
#include "measure/plan.h"

static void build(struct plan *p, struct run_args *a, const char *tracers, const char *seed)
{
	char *argv[] = { "run", "-t", (char *)tracers, "-T", "1,2", "--seed", (char *)seed, NULL };
	char err[256];

	assert_int_equal(cli_parse_run(7, argv, a, err, sizeof(err)), 0);
	assert_int_equal(plan_build(&a->m, p), 0);
}

static const struct plan_cell *find(const struct plan *p, const char *id)
{
	for (int i = 0; i < p->n; i++)
		if (!strcmp(p->cells[i].id, id))
			return &p->cells[i];
	fail_msg("no cell '%s' in the plan", id);
	return NULL;
}

/* A cell's order does not depend on what else is in the plan, or where. */
static void test_order_stable(void **state)
{
	struct run_args a, b;
	struct plan p, q;
	const char *id = "getpid|bpf:tp/count|2|getpid";

	(void)state;
	build(&p, &a, "none,bpf:tp/count", "7");
	build(&q, &b, "ptrace:all,bpf:rawtp/count,bpf:tp/count,none", "7");
	assert_int_equal(p.n, 4);
	assert_int_equal(q.n, 8);
	assert_true(find(&p, id)->seed == find(&q, id)->seed);
	for (int r = 0; r < 64; r++)
		assert_int_equal(plan_traced_first(find(&p, id), r), plan_traced_first(find(&q, id), r));
	plan_release(&p);
	plan_release(&q);
	cli_release(&a);
	cli_release(&b);
}

/* Every pair of reps has one of each order; pairs differ; cells and seeds differ. */
static void test_order_balanced(void **state)
{
	struct run_args a, b;
	struct plan p, q;
	int first = 0, diff_cells = 0, diff_seed = 0;

	(void)state;
	build(&p, &a, "none,bpf:tp/count,ptrace:all", "1");
	build(&q, &b, "none,bpf:tp/count,ptrace:all", "2");
	assert_int_equal(p.n, 6);
	for (int i = 0; i < p.n; i++) {
		for (int r = 0; r < 200; r += 2) {
			bool t0 = plan_traced_first(&p.cells[i], r);

			assert_int_equal(t0, !plan_traced_first(&p.cells[i], r + 1));
			first += t0;
			diff_cells += t0 != plan_traced_first(&p.cells[(i + 1) % p.n], r);
			diff_seed += t0 != plan_traced_first(&q.cells[i], r);
		}
		assert_true(p.cells[i].seed != q.cells[i].seed);
	}
	/* 600 fair coins: 300 +- 3 sigma (37) */
	assert_in_range(first, 263, 337);
	assert_in_range(diff_cells, 263, 337);
	assert_in_range(diff_seed, 263, 337);
	plan_release(&p);
	plan_release(&q);
	cli_release(&a);
	cli_release(&b);
}

/* Run order: workloads, then thread counts, then tracers as given. */
static void test_cell_order(void **state)
{
	struct run_args a;
	struct plan p;

	(void)state;
	build(&p, &a, "ptrace:all,none", "1");
	assert_int_equal(p.n, 4);
	assert_string_equal(p.cells[0].id, "getpid|ptrace:all|1|getpid");
	assert_string_equal(p.cells[1].id, "getpid|none|1|getpid");
	assert_string_equal(p.cells[2].id, "getpid|ptrace:all|2|getpid");
	assert_string_equal(p.cells[3].id, "getpid|none|2|getpid");
	plan_release(&p);
	cli_release(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order_stable),
		cmocka_unit_test(test_order_balanced),
		cmocka_unit_test(test_cell_order),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
