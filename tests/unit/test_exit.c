/*
 * Which exit code wins when several apply (run, pair, an experiment's
 * sections): a signal's 128+N over disturbed (3) over failed (1) over ok,
 * and a code that is not an outcome of ours (compare's 4) kept.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "results/results.h"

static void test_order(void **state)
{
	(void)state;
	assert_int_equal(exit_worst(EXIT_OK, EXIT_OK), EXIT_OK);
	assert_int_equal(exit_worst(EXIT_OK, EXIT_FAILED), EXIT_FAILED);
	assert_int_equal(exit_worst(EXIT_FAILED, EXIT_OK), EXIT_FAILED);
	/* another tracer can itself be why a cell failed: disturbed is said first */
	assert_int_equal(exit_worst(EXIT_FAILED, EXIT_DISTURBED), EXIT_DISTURBED);
	assert_int_equal(exit_worst(EXIT_DISTURBED, EXIT_FAILED), EXIT_DISTURBED);
	assert_int_equal(exit_worst(EXIT_OK, EXIT_DISTURBED), EXIT_DISTURBED);
	/* usage errors stop everything before a measurement: they outrank both */
	assert_int_equal(exit_worst(EXIT_DISTURBED, EXIT_USAGE), EXIT_USAGE);
	assert_int_equal(exit_worst(EXIT_USAGE, EXIT_FAILED), EXIT_USAGE);
	/* interrupted (128+SIGINT) wins over everything */
	assert_int_equal(exit_worst(EXIT_DISTURBED, 130), 130);
	assert_int_equal(exit_worst(143, EXIT_FAILED), 143);
	assert_int_equal(exit_worst(EXIT_USAGE, 130), 130);
	/* not ours (compare's 4): kept as it is */
	assert_int_equal(exit_worst(4, EXIT_OK), 4);
	assert_int_equal(exit_worst(EXIT_OK, 4), 4);
}

/* Folding a list in any order gives the same answer. */
static void test_fold(void **state)
{
	static const int codes[] = { EXIT_OK, EXIT_FAILED, EXIT_DISTURBED, EXIT_FAILED, EXIT_OK };
	const int n = sizeof(codes) / sizeof(codes[0]);

	(void)state;
	for (int start = 0; start < n; start++) {
		int r = EXIT_OK;

		for (int i = 0; i < n; i++)
			r = exit_worst(r, codes[(start + i) % n]);
		assert_int_equal(r, EXIT_DISTURBED);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order),
		cmocka_unit_test(test_fold),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
