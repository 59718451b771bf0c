/*
 * Option values run, the results commands and pair share (cli/values.c):
 * one parser each, so that -T and --color mean the same everywhere; a list
 * longer than the caller holds is refused, not cut without a word.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "cli/values.h"

static void test_colour(void **state)
{
	char err[128] = "";
	int c = 7;

	(void)state;
	assert_int_equal(cli_parse_colour("auto", &c, err, sizeof(err)), 0);
	assert_int_equal(c, -1);
	assert_int_equal(cli_parse_colour("always", &c, err, sizeof(err)), 0);
	assert_int_equal(c, 1);
	assert_int_equal(cli_parse_colour("never", &c, err, sizeof(err)), 0);
	assert_int_equal(c, 0);
	assert_int_equal(cli_parse_colour("yes", &c, err, sizeof(err)), -1);
	assert_string_equal(err, "invalid --color 'yes' (auto, always, never)");
	assert_int_equal(c, 0);
}

static void test_threads(void **state)
{
	char err[128] = "";
	int t[3] = { 0 }, n = 0;

	(void)state;
	assert_int_equal(cli_parse_threads("1,2", t, 3, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 2);
	/* appended: a repeated -T adds to the list */
	assert_int_equal(cli_parse_threads("256", t, 3, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 3);
	assert_int_equal(t[0], 1);
	assert_int_equal(t[2], 256);
	n = 0;
	assert_int_equal(cli_parse_threads("1,2,4,8", t, 3, &n, err, sizeof(err)), -1);
	assert_string_equal(err, "too many thread counts (at most 3)");
	n = 0;
	assert_int_equal(cli_parse_threads("1,0", t, 3, &n, err, sizeof(err)), -1);
	assert_string_equal(err, "invalid thread count '0' (1 to 256)");
	assert_int_equal(cli_parse_threads("257", t, 3, &n, err, sizeof(err)), -1);
	n = 0;
	assert_int_equal(cli_parse_threads(",", t, 3, &n, err, sizeof(err)), -1);
	assert_string_equal(err, "empty thread list");
}

static void test_pct(void **state)
{
	double v = 0;

	(void)state;
	assert_int_equal(cli_parse_pct("2.5%", 0.1, 100, &v), 0);
	assert_true(v == 2.5);
	assert_int_equal(cli_parse_pct("0", 0, 1000, &v), 0);
	assert_int_equal(cli_parse_pct("0", 0.1, 100, &v), -1);
	assert_int_equal(cli_parse_pct("101", 0.1, 100, &v), -1);
	assert_int_equal(cli_parse_pct("5%%", 0, 1000, &v), -1);
	assert_int_equal(cli_parse_pct("", 0, 1000, &v), -1);
	assert_int_equal(cli_parse_pct("nan", 0, 1000, &v), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_colour),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_pct),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
