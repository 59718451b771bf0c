/*
 * The small rules of base/ that several outputs share, checked once where
 * they are written: counts for people (format_count), a double in JSON
 * (json_num).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "base/json_num.h"
#include "base/util.h"

static void count_is(int64_t v, const char *want)
{
	char buf[32];

	format_count(buf, sizeof(buf), v);
	assert_string_equal(buf, want);
}

static void test_format_count(void **state)
{
	(void)state;
	count_is(0, "0");
	count_is(-1, "-1");
	count_is(9999, "9999");
	count_is(10000, "10k");
	count_is(12345, "12.3k");
	count_is(999499, "999k");
	count_is(999500, "1M");	/* rounds up into the next unit, not "1e+03k" */
	count_is(1234567, "1.23M");
	count_is(6024000000LL, "6.02G");
}

static void test_json_num(void **state)
{
	json_t *j;

	(void)state;
	j = json_num(2.5);
	assert_true(json_is_real(j));
	assert_true(json_real_value(j) == 2.5);
	json_decref(j);
	assert_true(json_is_null(json_num(NAN)));
	assert_true(json_is_null(json_num(INFINITY)));
	assert_true(json_is_null(json_num(-INFINITY)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format_count),
		cmocka_unit_test(test_json_num),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
