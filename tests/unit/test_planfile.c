/* Plan files: fields become the command's options; every mistake names file:line and field. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cli/cli.h"
#include "cli/planfile.h"

static const char good[] =
	"# a comment\n"
	"title = two tracers\n"
	"reproduces = 000_x.txt\n"
	"note = first note\n"
	"workloads = close\n"
	"threads = 1\n"
	"reps = 7   # trailing comment\n"
	"\n"
	"[run a]\n"
	"tracers = none, bpf:kprobe/count, bpf:tp/count\n"
	"latency = on\n"
	"[run b]\n"
	"env = TRACETAX_FTRACE_BUFFER_KB=1408\n"
	"tracers = ftrace:syscall/noread\n"
	"reps = 3\n"
	"[claim]\n"
	"claim = probe per hit\n"
	"source = someone 2009\n"
	"was = 520 ns/event\n"
	"run = a\n"
	"tracer = bpf:kprobe/count, bpf:tp/count\n"
	"field = overhead\n";

static void expect_err(const char *text, const char *msg)
{
	struct planfile pf;
	char err[512];

	assert_int_equal(planfile_parse("p.tt", text, &pf, err, sizeof(err)), -1);
	if (!strstr(err, msg))
		fail_msg("expected '%s' in '%s'", msg, err);
}

static void parse_good(struct planfile *pf)
{
	char err[512] = "";

	if (planfile_parse("dir/p.tt", good, pf, err, sizeof(err)))
		fail_msg("%s", err);
}

static void test_sections(void **state)
{
	struct planfile pf;

	(void)state;
	parse_good(&pf);
	assert_string_equal(pf.name, "p");
	assert_string_equal(pf.title, "two tracers");
	assert_int_equal(pf.nnotes, 1);
	assert_int_equal(pf.nsections, 2);
	assert_string_equal(pf.sections[1].name, "b");
	assert_int_equal(pf.sections[1].nenv, 1);
	assert_int_equal(pf.nclaims, 1);
	assert_int_equal(pf.claims[0].section, 0);
	assert_int_equal(pf.claims[0].ntracers, 2);
	assert_string_equal(pf.claims[0].tracers[1], "bpf:tp/count");
	assert_true(pf.claims[0].was == 520);
	planfile_release(&pf);
}

/* Each section's run_args: the preamble's fields, its own over them, the command line's last. */
static void test_argv_overrides(void **state)
{
	struct planfile pf;
	struct run_args a;
	char err[256], *extra[] = { "--reps", "2", "-t", "none", "-w", "getpid", "-T", "2" };
	char **argv;
	int argc;

	(void)state;
	parse_good(&pf);
	argv = planfile_argv(&pf, 0, 0, NULL, &argc);
	assert_int_equal(cli_parse_run(argc, argv, &a, err, sizeof(err)), 0);
	assert_int_equal(a.m.reps, 7);
	assert_true(a.m.latency);
	assert_int_equal(a.m.ntracers, 3);
	assert_string_equal(a.m.workloads[0], "close");
	cli_release(&a);
	free(argv);
	argv = planfile_argv(&pf, 1, 0, NULL, &argc);
	assert_int_equal(cli_parse_run(argc, argv, &a, err, sizeof(err)), 0);
	assert_int_equal(a.m.reps, 3);
	assert_false(a.m.latency);
	cli_release(&a);
	free(argv);
	argv = planfile_argv(&pf, 0, 8, extra, &argc);
	assert_int_equal(cli_parse_run(argc, argv, &a, err, sizeof(err)), 0);
	assert_int_equal(a.m.reps, 2);
	/* -t, -w and -T add up when repeated, but the user's replace the plan's */
	assert_int_equal(a.m.ntracers, 1);
	assert_string_equal(a.m.tracers[0], "none");
	assert_int_equal(a.m.nworkloads, 1);
	assert_string_equal(a.m.workloads[0], "getpid");
	assert_int_equal(a.m.nthreads, 1);
	assert_int_equal(a.m.threads[0], 2);
	cli_release(&a);
	free(argv);
	planfile_release(&pf);
}

static void test_errors(void **state)
{
	(void)state;
	expect_err("reps = 2\ntrcers = none\n", "p.tt:2: unknown field 'trcers'");
	expect_err("reps = x\n", "p.tt:1: field 'reps': invalid --reps 'x'");
	expect_err("tracers = nosuch\n", "p.tt:1: field 'tracers': unknown tracer 'nosuch'");
	expect_err("latency = maybe\n", "p.tt:1: field 'latency'");
	expect_err("[runn]\n", "p.tt:1: unknown section '[runn]'");
	expect_err("reps\n", "p.tt:1: 'reps' is not 'field = value'");
	expect_err("[pair]\ntracers = none\n", "p.tt:2: field 'tracers' is not one of a [pair]");
	expect_err("env = HOME=/\n", "p.tt:1: field 'env'");
	expect_err("tracers = none\n[claim]\nclaim = c\nsource = s\nwas = 5 us\ntracer = none\n"
		   "field = overhead\n", "p.tt:2: field 'was': unit 'us'");
	expect_err("tracers = none\n[claim]\nclaim = c\nsource = s\nwas = 5 ns/event\n"
		   "tracer = ptrace:all\nfield = overhead\n", "p.tt:2: field 'tracer': tracer "
		   "'ptrace:all' is not one of the run's tracers");
	expect_err("[run a]\n[claim]\nclaim = c\nsource = s\nwas = 5 ns\nrun = zz\nfield = delay_mean\n",
		   "p.tt:2: field 'run': no section");
	expect_err("[run a]\n[run a]\n", "p.tt:2: a second section named 'a'");
	expect_err("kernels = all\n", "p.tt:1: field 'kernels': want 'each', not 'all'");
}

/* kernels = each: the plan runs on every kernel (experiment.c); absent, on one */
static void test_kernels(void **state)
{
	struct planfile pf;
	char err[256];

	(void)state;
	assert_int_equal(planfile_parse("k.tt", "kernels = each\n[run a]\ntracers = none\n", &pf,
					err, sizeof(err)), 0);
	assert_true(pf.per_kernel);
	planfile_release(&pf);
	assert_int_equal(planfile_parse("k.tt", "[run a]\ntracers = none\n", &pf, err,
					sizeof(err)), 0);
	assert_false(pf.per_kernel);
	planfile_release(&pf);
}

/*
 * A rule file of another package that is not here (auditd's examples, a
 * Suggests): the plan loads, its claims on audit:rules hold, and its run
 * goes without --audit-rules (the cells then skip: auditd is not installed);
 * a rule file that is here but bad is still the plan's error.
 */
static void test_absent_rule_file(void **state)
{
	static const char text[] =
		"tracers = none, audit:rules\n"
		"audit_rules = /nonexistent/tracetax-test/30-stig.rules\n"
		"[claim]\nclaim = c\nsource = s\nwas = 5 ns/event\ntracer = audit:rules\n"
		"field = overhead\n";
	struct planfile pf;
	struct run_args a;
	char err[512] = "", **argv;
	int argc;

	(void)state;
	if (planfile_parse("p.tt", text, &pf, err, sizeof(err)))
		fail_msg("%s", err);
	argv = planfile_argv(&pf, 0, 0, NULL, &argc);
	assert_int_equal(cli_parse_run(argc, argv, &a, err, sizeof(err)), 0);
	assert_null(a.m.audit_rules);
	assert_int_equal(a.m.ntracers, 2);
	cli_release(&a);
	free(argv);
	planfile_release(&pf);
	expect_err("tracers = audit:rules\naudit_rules = /\n", "p.tt:2: field 'audit_rules'");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sections),
		cmocka_unit_test(test_argv_overrides),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_kernels),
		cmocka_unit_test(test_absent_rule_file),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
