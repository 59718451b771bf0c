/* Argument parsing of `tracetax run`: every option, good and bad. */
#include <setjmp.h>
#include <stdio.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "base/cmdline.h"
#include "base/lock.h"
#include "cli/cli.h"
#include "measure/plan.h"

static int parse(struct run_args *a, char *err, const char *first, ...)
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
	err[0] = '\0';
	return cli_parse_run(argc, argv, a, err, 256);
}

static void test_defaults(void **state)
{
	struct run_args a;
	char err[256];

	(void)state;
	assert_int_equal(parse(&a, err, NULL), 0);
	assert_int_equal(a.m.nworkloads, 1);
	assert_string_equal(a.m.workloads[0], "getpid");
	assert_int_equal(a.m.nthreads, 1);
	assert_int_equal(a.m.threads[0], 1);
	/* 8 rounds of 2 reps of 25 ms runs (docs/method.md §5c) */
	assert_int_equal(a.m.reps, 16);
	assert_int_equal(a.m.rounds, 8);
	assert_int_equal(a.m.run_ms, 25);
	assert_int_equal(a.m.iterations, 0);
	assert_null(a.m.target);
	assert_null(a.json_path);
	assert_false(a.m.latency);
	/* default plan: every tracer, variants spelt out, none first */
	assert_true(a.m.ntracers > 10);
	assert_string_equal(a.m.tracers[0], "none");
	cli_release(&a);
}

static void test_full_line(void **state)
{
	struct run_args a;
	char err[256];

	(void)state;
	assert_int_equal(parse(&a, err, "-w", "getpid,close", "-t", "none,ptrace:all",
			       "--threads", "1,2", "--reps", "10", "--run-ms", "200",
			       "--json", "out.json", "--target", "close", "--seed", "42",
			       "-n", "5000", "-q", "--color", "never", "--latency", NULL), 0);
	assert_int_equal(a.m.nworkloads, 2);
	assert_string_equal(a.m.workloads[1], "close");
	assert_int_equal(a.m.ntracers, 2);
	assert_string_equal(a.m.tracers[1], "ptrace:all");
	assert_int_equal(a.m.nthreads, 2);
	assert_int_equal(a.m.threads[1], 2);
	assert_int_equal(a.m.reps, 10);
	assert_int_equal(a.m.run_ms, 200);
	assert_string_equal(a.json_path, "out.json");
	assert_string_equal(a.m.target, "close");
	assert_int_equal(a.m.seed, 42);
	assert_int_equal(a.m.iterations, 5000);
	assert_true(a.quiet);
	assert_int_equal(a.colour, 0);
	assert_string_equal(a.m.tracer_cpu, "same");
	assert_true(a.m.latency);
	cli_release(&a);
}

static void test_variants(void **state)
{
	struct run_args a;
	char err[256];

	(void)state;
	/* a family alone takes its default variant; duplicates collapse */
	assert_int_equal(parse(&a, err, "-t", "bpf:tp,bpf:tp/count,bpf:rawtp/hash", NULL), 0);
	assert_int_equal(a.m.ntracers, 2);
	assert_string_equal(a.m.tracers[0], "bpf:tp/count");
	assert_string_equal(a.m.tracers[1], "bpf:rawtp/hash");
	cli_release(&a);
	/* patterns expand to every variant */
	assert_int_equal(parse(&a, err, "-t", "bpf:tp/*", NULL), 0);
	assert_int_equal(a.m.ntracers, 6);
	cli_release(&a);
}

static void expect_error(const char *want, const char *o1, const char *o2)
{
	struct run_args a;
	char err[256];

	assert_int_equal(parse(&a, err, o1, o2, NULL), -1);
	if (!strstr(err, want))
		fail_msg("'%s %s': got '%s', want '%s'", o1, o2 ? o2 : "", err, want);
	assert_null(strchr(err, '\n'));
	cli_release(&a);
}

static void test_bad(void **state)
{
	(void)state;
	expect_error("unknown workload 'nope'", "-w", "nope");
	expect_error("empty workload list", "-w", "");
	expect_error("unknown tracer 'nope'", "-t", "nope");
	expect_error("unknown variant 'zzz' of tracer 'bpf:tp'", "-t", "bpf:tp/zzz");
	expect_error("takes no variant", "-t", "ptrace:all/x");
	expect_error("no tracer matches 'xyz*'", "-t", "xyz*");
	expect_error("invalid thread count '0'", "--threads", "0");
	expect_error("invalid thread count 'two'", "--threads", "1,two");
	expect_error("invalid --reps '0'", "--reps", "0");
	expect_error("invalid --reps '3x'", "--reps", "3x");
	expect_error("invalid --run-ms '-5'", "--run-ms", "-5");
	expect_error("invalid --iterations '0'", "-n", "0");
	expect_error("invalid --seed 'abc'", "--seed", "abc");
	expect_error("unknown target syscall 'open'", "--target", "open");
	expect_error("empty --json path", "--json", "");
	expect_error("invalid --color 'blue'", "--color", "blue");
	expect_error("invalid --tracer-cpu 'near'", "--tracer-cpu", "near");
	expect_error("needs a value", "--reps", NULL);
	expect_error("unknown option '--frobnicate'", "--frobnicate", NULL);
	expect_error("unexpected argument 'extra'", "extra", NULL);
}

/*
 * Every round asked for is run: --rounds alone raises --reps to two a
 * round (it had silently kept 16 reps, so --rounds 40 ran 8 rounds), and
 * with too few reps given it is an error, not a quiet cut.
 */
static void test_rounds(void **state)
{
	struct run_args a;
	char err[256];

	(void)state;
	assert_int_equal(parse(&a, err, "--rounds", "40", NULL), 0);
	assert_int_equal(a.m.rounds, 40);
	assert_int_equal(a.m.reps, 80);
	assert_int_equal(plan_rounds(&a.m), 40);
	cli_release(&a);
	/* fewer rounds than the default reps allow: reps stay 16 */
	assert_int_equal(parse(&a, err, "--rounds", "4", NULL), 0);
	assert_int_equal(a.m.reps, 16);
	assert_int_equal(plan_rounds(&a.m), 4);
	cli_release(&a);
	assert_int_equal(parse(&a, err, "--rounds", "5", "--reps", "9", NULL), 0);
	assert_int_equal(plan_rounds(&a.m), 5);
	cli_release(&a);
	assert_int_equal(parse(&a, err, "--reps", "10", "--rounds", "6", NULL), -1);
	assert_string_equal(err, "--rounds 6 needs --reps 11 or more (a pair of reps a round)");
	cli_release(&a);
}

/* -w, -t and -T add up when repeated; the first replaces the default. */
static void test_repeated_lists(void **state)
{
	struct run_args a;
	char err[256];

	(void)state;
	assert_int_equal(parse(&a, err, "-w", "close", "-w", "getpid,close", "-t", "none",
			       "-t", "ptrace:all", "-T", "2", "-T", "1,4", NULL), 0);
	assert_int_equal(a.m.nworkloads, 2);
	assert_string_equal(a.m.workloads[0], "close");
	assert_string_equal(a.m.workloads[1], "getpid");
	assert_int_equal(a.m.ntracers, 2);
	assert_int_equal(a.m.nthreads, 3);
	assert_int_equal(a.m.threads[0], 2);
	assert_int_equal(a.m.threads[2], 4);
	cli_release(&a);
	assert_int_equal(parse(&a, err, "-T", "1", "-T", "", NULL), -1);
	assert_string_equal(err, "empty thread list");
	cli_release(&a);
}

/* No list drops an item without a word; a command of thousands of characters fits. */
static void test_long_lists(void **state)
{
	struct run_args a;
	char err[256], list[4096] = "", *cmd = malloc(CMDLINE_MAX + 16), *p;
	size_t o = 0;

	(void)state;
	for (int i = 0; i <= CLI_MAX_ITEMS; i++)
		o += (size_t)snprintf(list + o, sizeof(list) - o, "%scmd:'true %d'", i ? "," : "", i);
	assert_int_equal(parse(&a, err, "-w", list, NULL), -1);
	assert_string_equal(err, "too many workloads (at most 128)");
	cli_release(&a);
	/* "cmd:'echo a a a ... a'": 1999 words, 4000 characters of command */
	p = cmd + sprintf(cmd, "cmd:'echo");
	while (p - cmd < 5 + CMDLINE_MAX)
		p += sprintf(p, " a");
	sprintf(p, "'");
	if (parse(&a, err, "-w", cmd, "-t", "none", NULL))
		fail_msg("%s", err);
	assert_int_equal(a.m.nworkloads, 1);
	assert_int_equal(strlen(a.m.workloads[0]), strlen(cmd));
	cli_release(&a);
	sprintf(p, " a'");	/* one word too many: refused, in one line */
	assert_int_equal(parse(&a, err, "-w", cmd, NULL), -1);
	assert_non_null(strstr(err, "too long (4002 characters, at most 4000)"));
	cli_release(&a);
	free(cmd);
}

static void test_precision(void **state)
{
	struct run_args a;
	char err[256];

	(void)state;
	assert_int_equal(parse(&a, err, "--precision", "3", NULL), 0);
	assert_true(a.m.precision == 3);
	assert_int_equal(a.m.max_time_s, CLI_DEFAULT_MAX_TIME_S);
	assert_false(a.dry_run);
	assert_int_equal(a.wait_s, LOCK_WAIT_DEFAULT_S);	/* bounded by default */
	assert_true(a.wait_s > 0);
	cli_release(&a);
	assert_int_equal(parse(&a, err, "--precision", "2.5%", "--max-time", "60", "--dry-run",
			       "--no-wait", NULL), 0);
	assert_true(a.m.precision == 2.5);
	assert_int_equal(a.m.max_time_s, 60);
	assert_true(a.dry_run);
	assert_int_equal(a.wait_s, LOCK_NOWAIT);
	cli_release(&a);
	assert_int_equal(parse(&a, err, "--wait", "30", NULL), 0);
	assert_int_equal(a.wait_s, 30);
	cli_release(&a);
	setenv(TT_WAIT_ENV, "5", 1);	/* another default, for a shared CI runner */
	assert_int_equal(parse(&a, err, NULL), 0);
	assert_int_equal(a.wait_s, 5);
	cli_release(&a);
	setenv(TT_WAIT_ENV, "soon", 1);
	expect_error("invalid TRACETAX_WAIT 'soon'", "-n", "1000");
	unsetenv(TT_WAIT_ENV);
	expect_error("invalid --wait 'x'", "--wait", "x");
	expect_error("invalid --wait '-1'", "--wait", "-1");
	expect_error("invalid --precision '0'", "--precision", "0");
	expect_error("invalid --precision '3pc'", "--precision", "3pc");
	expect_error("--max-time is the budget of --precision", "--max-time", "60");
	expect_error("invalid --max-time '0'", "--max-time", "0");
}

static void test_explain(void **state)
{
	struct run_args a;
	char err[256];

	(void)state;
	/* a family names its default variant, as with -t */
	assert_int_equal(parse(&a, err, "-t", "bpf:tp/count,none", "--explain", "bpf:tp", NULL), 0);
	assert_string_equal(a.explain, "bpf:tp/count");
	cli_release(&a);
	/* the default plan has every tracer */
	assert_int_equal(parse(&a, err, "--explain", "ftrace:raw/mmap", NULL), 0);
	assert_string_equal(a.explain, "ftrace:raw/mmap");
	cli_release(&a);
	assert_int_equal(parse(&a, err, "-t", "bpf:tp/count", "--explain", "bpf:tp/hash", NULL), -1);
	assert_string_equal(err, "--explain 'bpf:tp/hash' is not a tracer of the run (add it to -t)");
	cli_release(&a);
	expect_error("unknown tracer 'nope'", "--explain", "nope");
	expect_error("needs a value", "--explain", NULL);
	/* a name of any length: --explain once kept 64 bytes */
	{
		const char *calls = "getpid,getppid,gettid,getuid,geteuid,getgid,getegid,getpgrp,"
				    "getsid,getpriority,getrlimit,getrusage,getcwd,getdents64,getrandom";
		char t[600];

		/* and a tool's command of any length: -t once cut it at 255 */
		snprintf(t, sizeof(t), "cmd:'strace -f -qq -e trace=%s,%s,%s -o /dev/null {cmd}'",
			 calls, calls, calls);
		assert_true(strlen(t) > 400);
		assert_int_equal(parse(&a, err, "-t", t, "--explain", t, NULL), 0);
		assert_int_equal(a.m.ntracers, 1);
		assert_string_equal(a.m.tracers[0], t);
		assert_string_equal(a.explain, t);
		cli_release(&a);
	}
}

static void test_help(void **state)
{
	struct run_args a;
	char err[256];

	(void)state;
	assert_int_equal(parse(&a, err, "--help", NULL), 0);
	assert_true(a.help);
	cli_release(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_full_line),
		cmocka_unit_test(test_variants),
		cmocka_unit_test(test_bad),
		cmocka_unit_test(test_rounds),
		cmocka_unit_test(test_repeated_lists),
		cmocka_unit_test(test_long_lists),
		cmocka_unit_test(test_precision),
		cmocka_unit_test(test_explain),
		cmocka_unit_test(test_help),
	};

	return cmocka_run_group_tests_name("cli", tests, NULL, NULL);
}
