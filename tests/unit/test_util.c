/*
 * The small rules of base/ that several outputs share, checked once where
 * they are written: counts for people (format_count), a double in JSON
 * (json_num), /proc/cpuinfo's lines (cpuinfo_parse).
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

#include "base/cpuinfo.h"
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

struct seen { char keys[512]; double mhz[4]; };

static int note(int cpu, const char *key, const char *value, void *arg)
{
	struct seen *s = arg;

	snprintf(s->keys + strlen(s->keys), sizeof(s->keys) - strlen(s->keys), "%d:%s=%s|",
		 cpu, key, strcmp(key, "flags") ? value : "F");
	if (!strcmp(key, "cpu MHz") && cpu >= 0 && cpu < 4)
		s->mhz[cpu] = strtod(value, NULL);
	return 0;
}

static void test_cpuinfo(void **state)
{
	/* x86's layout: tabs before the colon, a flags line longer than 8 KiB */
	char flags[10000], text[12000];
	struct seen s = { "", { 0 } };
	FILE *f;

	(void)state;
	memset(flags, 'x', sizeof(flags));
	flags[sizeof(flags) - 1] = '\0';
	snprintf(text, sizeof(text), "processor\t: 0\nmodel name\t: Xeon\ncpu MHz\t\t: 2100.5\n"
		 "flags\t\t: %s hypervisor\n\nprocessor\t: 1\ncpu MHz\t\t: 1900\nbogus line\n", flags);
	f = fmemopen(text, strlen(text), "r");
	assert_non_null(f);
	assert_int_equal(cpuinfo_parse(f, note, &s), 0);
	fclose(f);
	assert_string_equal(s.keys, "0:processor=0|0:model name=Xeon|0:cpu MHz=2100.5|0:flags=F|"
			    "1:processor=1|1:cpu MHz=1900|");
	assert_true(s.mhz[0] == 2100.5 && s.mhz[1] == 1900);
}

/* The one ISO 8601 writer and reader: UTC to the second, the whole string or nothing. */
static void test_utc_iso(void **state)
{
	char buf[UTC_ISO_LEN];
	time_t t;

	(void)state;
	utc_iso(1735787045, buf, sizeof(buf));
	assert_string_equal(buf, "2025-01-02T03:04:05Z");
	assert_int_equal(utc_parse(buf, &t), 0);
	assert_int_equal(t, 1735787045);
	assert_int_equal(utc_parse("2025-01-02T03:04:05Z junk", &t), -1);
	assert_int_equal(utc_parse("2025-01-02 03:04:05", &t), -1);
	assert_int_equal(utc_parse("", &t), -1);
	/* the store's windows (drift.c, budget's --max-age) count back across
	 * a year's end and a leap day */
	assert_int_equal(utc_parse("2025-01-01T00:30:00Z", &t), 0);
	utc_iso(t - 86400, buf, sizeof(buf));
	assert_string_equal(buf, "2024-12-31T00:30:00Z");
	assert_int_equal(utc_parse("2024-03-01T12:00:00Z", &t), 0);
	utc_iso(t - 86400, buf, sizeof(buf));
	assert_string_equal(buf, "2024-02-29T12:00:00Z");
	assert_int_equal(utc_parse("2024-02-30T12:00:00Z", &t), -1);
}

/* The one slurp: all of a pipe, or up to its cap, NUL-terminated. */
static void test_slurp_fd(void **state)
{
	int fd[2];
	size_t len;
	char *s;

	(void)state;
	assert_int_equal(pipe(fd), 0);
	assert_int_equal(write(fd[1], "0123456789", 10), 10);
	close(fd[1]);
	s = slurp_fd(fd[0], 4, &len);
	assert_int_equal(len, 4);
	assert_string_equal(s, "0123");
	free(s);
	s = slurp_fd(fd[0], 100, &len);
	assert_int_equal(len, 6);
	assert_string_equal(s, "456789");
	free(s);
	close(fd[0]);
	assert_null(slurp_fd(-1, 10, &len));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format_count),
		cmocka_unit_test(test_utc_iso),
		cmocka_unit_test(test_slurp_fd),
		cmocka_unit_test(test_json_num),
		cmocka_unit_test(test_cpuinfo),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
