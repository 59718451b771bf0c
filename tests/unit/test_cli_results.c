/* Arguments of the results commands, and run's store and export options. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "cli/cli.h"
#include "cli/cli_results.h"

static int parse(struct results_args *a, char *err, const char *first, ...)
{
	char *argv[32];
	int argc = 0;
	va_list ap;

	va_start(ap, first);
	for (const char *s = first; s; s = va_arg(ap, const char *))
		argv[argc++] = (char *)s;
	va_end(ap);
	argv[argc] = NULL;
	err[0] = '\0';
	return cli_parse_results(argc, argv, a, err, 256);
}

#define BAD(want, ...) do { \
	assert_int_equal(parse(&a, err, __VA_ARGS__, NULL), -1); \
	if (!strstr(err, want)) \
		fail_msg("want '%s', got '%s'", want, err); \
} while (0)

static void test_good(void **state)
{
	struct results_args a;
	char err[256];

	(void)state;
	assert_int_equal(parse(&a, err, "history", NULL), 0);
	assert_int_equal(a.limit, CLI_DEFAULT_LIMIT);
	assert_null(a.tracer);
	assert_int_equal(parse(&a, err, "history", "-w", "getpid", "-t", "bpf:*", "--kernel", "6.1*",
			       "--limit", "3", "--store", "/x.db", NULL), 0);
	assert_string_equal(a.workload, "getpid");
	assert_string_equal(a.tracer, "bpf:*");
	assert_string_equal(a.kernel, "6.1*");
	assert_int_equal(a.limit, 3);
	assert_string_equal(a.store, "/x.db");
	assert_int_equal(parse(&a, err, "compare", "last~1", "last", NULL), 0);
	assert_int_equal(a.nruns, 2);
	assert_float_equal(a.threshold, -1, 0);	/* compare's default */
	assert_string_equal(a.runs[0], "last~1");
	assert_int_equal(parse(&a, err, "compare", "1", "b.json", "--threshold", "2.5%", NULL), 0);
	assert_float_equal(a.threshold, 2.5, 0);
	assert_int_equal(parse(&a, err, "export", "3", "--format", "markdown", "-o", "t.md", NULL), 0);
	assert_int_equal(a.format, FORMAT_MARKDOWN);
	assert_string_equal(a.out, "t.md");
	assert_int_equal(parse(&a, err, "history", "-t", "bpf:tp/count", "--by", "kernel", NULL), 0);
	assert_int_equal(a.by, BY_KERNEL);
	assert_int_equal(parse(&a, err, "export", "3", "--format", "prometheus", NULL), 0);
	assert_int_equal(a.format, FORMAT_PROMETHEUS);
	assert_int_equal(parse(&a, err, "import", "a.json", "b.json", "c.json", NULL), 0);
	assert_int_equal(a.nruns, 3);
	assert_int_equal(parse(&a, err, "show", "--help", NULL), 0);
	assert_true(a.help);
}

static void test_bad(void **state)
{
	struct results_args a;
	char err[256];

	(void)state;
	BAD("is not a tracetax command", "frob");
	BAD("show needs a run", "show");
	BAD("compare needs two runs", "compare", "1");
	BAD("unexpected argument '3'", "compare", "1", "2", "3");
	BAD("unexpected argument 'x'", "history", "x");
	BAD("history takes no --threshold", "history", "--threshold", "5");
	BAD("show takes no --format", "show", "1", "--format", "csv");
	BAD("invalid --limit '0'", "history", "--limit", "0");
	BAD("invalid --threshold 'x'", "compare", "1", "2", "--threshold", "x");
	BAD("invalid --threshold '-1'", "compare", "1", "2", "--threshold", "-1");
	BAD("invalid --format 'xml'", "export", "1", "--format", "xml");
	BAD("--by needs a tracer (-t TRACER)", "history", "--by", "host");
	BAD("invalid --by 'cpu'", "history", "-t", "x", "--by", "cpu");
	BAD("show takes no --by", "show", "1", "--by", "host");
	BAD("needs a value", "export", "1", "--format");
	BAD("unknown option '--frob'", "history", "--frob");
	BAD("unknown option '-z'", "history", "-z");
	BAD("empty --store path", "history", "--store", "");
	BAD("import needs a results document", "import");
}

static int parse_run(struct run_args *a, char *err, const char *first, ...)
{
	char *argv[32];
	int argc = 0;
	va_list ap;

	argv[argc++] = "run";
	va_start(ap, first);
	for (const char *s = first; s; s = va_arg(ap, const char *))
		argv[argc++] = (char *)s;
	va_end(ap);
	argv[argc] = NULL;
	return cli_parse_run(argc, argv, a, err, 256);
}

static void test_run_options(void **state)
{
	struct run_args a;
	char err[256];

	(void)state;
	assert_int_equal(parse_run(&a, err, "-t", "none", NULL), 0);
	assert_null(a.store);
	assert_false(a.no_store);
	cli_release(&a);
	assert_int_equal(parse_run(&a, err, "-t", "none", "--store", "/s.db", "--csv", "r.csv",
				   "--markdown", "r.md", NULL), 0);
	assert_string_equal(a.store, "/s.db");
	assert_string_equal(a.csv_path, "r.csv");
	assert_string_equal(a.markdown_path, "r.md");
	cli_release(&a);
	assert_int_equal(parse_run(&a, err, "-t", "none", "--no-store", NULL), 0);
	assert_true(a.no_store);
	cli_release(&a);
	assert_int_equal(parse_run(&a, err, "--no-store", "--store", "x", NULL), -1);
	assert_string_equal(err, "--store and --no-store: give one");
	cli_release(&a);
	assert_int_equal(parse_run(&a, err, "--csv", "", NULL), -1);
	assert_string_equal(err, "empty --csv path");
	cli_release(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_bad),
		cmocka_unit_test(test_run_options),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
