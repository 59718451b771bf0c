/*
 * pair_measure (cmd/session.c): a document that cannot be written adds
 * "failed" to the measurement's outcome by exit_worst(), the one rule of
 * run, pair and an experiment's sections; it does not replace the outcome
 * with a literal 1 (issue 15, defect 17g). Through the command line the two
 * agree today -- pair_run returns 0, 1 or 128+N, and 128+N writes nothing
 * -- so the measurement's outcome is set here: the Makefile links this
 * test with pair_run, output_pair_json and the lock and signal set-up
 * wrapped (-Wl,--wrap), and runs pair_measure itself.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cmd/cmd.h"
#include "cmd/session.h"
#include "measure/pair.h"
#include "output/pair.h"
#include "results/results.h"

static int run_ret;	/* what the measurement returns */
static int json_ret;	/* what writing the document returns */
static int json_calls;

int __wrap_pair_run(const struct pair_args *a, const char *load_path, struct pair_results *r);
int __wrap_output_pair_json(const struct pair_results *r, const char *path);
void __wrap_cmd_take_lock(int wait_s);
void __wrap_cmd_signals_once(void);

int __wrap_pair_run(const struct pair_args *a, const char *load_path, struct pair_results *r)
{
	(void)load_path;
	memset(r, 0, sizeof(*r));
	r->args = *a;
	return run_ret;
}

int __wrap_output_pair_json(const struct pair_results *r, const char *path)
{
	(void)r;
	(void)path;
	json_calls++;
	return json_ret;
}

/* no machine-wide lock, no signal thread: nothing here measures */
void __wrap_cmd_take_lock(int wait_s)
{
	(void)wait_s;
}

void __wrap_cmd_signals_once(void)
{
}

/* pair_measure's exit code when the measurement returns @run and the document write @json. */
static int pair_exit(int run, int json)
{
	struct pair_args a = { .workload = "getpid", .json_path = "-", .quiet = true, .wait_s = 600 };

	run_ret = run;
	json_ret = json;
	json_calls = 0;
	return pair_measure(&a, NULL, NULL);
}

static void test_document_fails(void **state)
{
	(void)state;
	setenv("TRACETAX_LOAD", "/nonexistent/tracetax-load", 1);	/* not run: pair_run is ours */
	assert_int_equal(pair_exit(EXIT_OK, 0), EXIT_OK);
	assert_int_equal(json_calls, 1);
	assert_int_equal(pair_exit(EXIT_OK, -1), EXIT_FAILED);
	assert_int_equal(pair_exit(EXIT_FAILED, 0), EXIT_FAILED);
	assert_int_equal(pair_exit(EXIT_FAILED, -1), EXIT_FAILED);
}

/* a worse outcome than failed is not hidden behind the document's 1 */
static void test_document_fails_worse_kept(void **state)
{
	(void)state;
	setenv("TRACETAX_LOAD", "/nonexistent/tracetax-load", 1);
	assert_int_equal(pair_exit(EXIT_DISTURBED, -1), exit_worst(EXIT_DISTURBED, EXIT_FAILED));
	assert_int_equal(pair_exit(EXIT_DISTURBED, -1), EXIT_DISTURBED);
	assert_int_equal(pair_exit(EXIT_USAGE, -1), EXIT_USAGE);
	assert_int_equal(pair_exit(EXIT_DISTURBED, 0), EXIT_DISTURBED);
}

/* interrupted: no document is written, and the signal's code is the exit code */
static void test_interrupted(void **state)
{
	(void)state;
	setenv("TRACETAX_LOAD", "/nonexistent/tracetax-load", 1);
	assert_int_equal(pair_exit(130, -1), 130);
	assert_int_equal(json_calls, 0);
	assert_int_equal(pair_exit(143, 0), 143);
	assert_int_equal(json_calls, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_document_fails),
		cmocka_unit_test(test_document_fails_worse_kept),
		cmocka_unit_test(test_interrupted),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
