/*
 * pair_measure (cmd/session.c): a document that cannot be written adds
 * "failed" to the measurement's outcome by exit_worst(), the one rule of
 * run, pair and an experiment's sections; it does not replace the outcome
 * with a literal 1 (issue 15, defect 17g). Through the command line the two
 * agree today -- pair_run returns 0, 1 or 128+N, and 128+N writes nothing
 * -- so the measurement's outcome is set here: the Makefile links this
 * test with pair_run, output_pair_json and the lock and signal set-up
 * wrapped (-Wl,--wrap), and runs pair_measure itself. The same for run
 * --kernel (the VM wrapped: the guest's exit code and document are the
 * test's) and for budget (its counter, its run and its document wrapped):
 * a disturbed measurement's 3 survives a document that cannot be written
 * (issue 26, item 5).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cli/cli.h"
#include "cmd/cmd.h"
#include "cmd/session.h"
#include "doc/write.h"
#include "measure/pair.h"
#include "measure/rates.h"
#include "vm/image.h"
#include "vm/tmpdir.h"
#include "vm/vm.h"
#include "fake_results.h"
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

/* run --kernel: the guest's tracetax exits @guest with a document; ours fails to write it */
int __wrap_vm_kernel_release(const char *path, char *release, size_t len, char *err,
			     size_t errlen);
int __wrap_vm_cleanup_stale(int *removed, owner_kept_fn kept, owner_kept_fn foreign);
int __wrap_vm_run(const struct vm_spec *spec, struct vm_outcome *o, char *err, size_t errlen);
int __wrap_output_json_file(const struct results *r, const char *path);
int __real_run_measure(const struct run_args *a, run_hook hook, void *arg);
static int guest_ret;

int __wrap_vm_kernel_release(const char *path, char *release, size_t len, char *err,
			     size_t errlen)
{
	(void)path, (void)err, (void)errlen;
	snprintf(release, len, "6.1.0-test");
	return 0;
}

int __wrap_vm_cleanup_stale(int *removed, owner_kept_fn kept, owner_kept_fn foreign)
{
	(void)kept, (void)foreign;
	*removed = 0;
	return 0;
}

int __wrap_vm_run(const struct vm_spec *spec, struct vm_outcome *o, char *err, size_t errlen)
{
	struct results r;

	(void)spec, (void)err, (void)errlen;
	fake_results(&r, 4, 0);
	o->exit_code = guest_ret;
	o->document = output_json_string(&r);
	results_release(&r);
	return 0;
}

int __wrap_output_json_file(const struct results *r, const char *path)
{
	(void)r, (void)path;
	json_calls++;
	return json_ret;
}

static int vm_exit(int guest, int json)
{
	char *argv[] = { "run", "-t", "bpf:tp/count", "--kernel", "/nonexistent/bzImage", "--json",
			 "-", "--no-store", "-q", NULL };
	struct run_args a;
	char err[256];
	int ret;

	assert_int_equal(cli_parse_run(9, argv, &a, err, sizeof(err)), 0);
	guest_ret = guest;
	json_ret = json;
	json_calls = 0;
	ret = __real_run_measure(&a, NULL, NULL);
	cli_release(&a);
	return ret;
}

static void test_vm_document_fails(void **state)
{
	(void)state;
	assert_int_equal(vm_exit(EXIT_OK, 0), EXIT_OK);
	assert_int_equal(json_calls, 1);
	assert_int_equal(vm_exit(EXIT_OK, -1), EXIT_FAILED);
	assert_int_equal(vm_exit(EXIT_DISTURBED, -1), EXIT_DISTURBED);
	assert_int_equal(vm_exit(EXIT_DISTURBED, 0), EXIT_DISTURBED);
}

/* budget --measure: its run returns @run, its document's write @json */
int __wrap_run_measure(const struct run_args *a, run_hook hook, void *arg);
int __wrap_rates_allowed(char *err, size_t len);
int __wrap_rates_count(const struct rates_opts *o, struct budget_rates *r, char *err, size_t len);
int __wrap_doc_budget_write(const struct budget *b, const char *path);

int __wrap_run_measure(const struct run_args *a, run_hook hook, void *arg)
{
	(void)a, (void)hook, (void)arg;
	return run_ret;
}

int __wrap_rates_allowed(char *err, size_t len)
{
	(void)err, (void)len;
	return 0;
}

int __wrap_rates_count(const struct rates_opts *o, struct budget_rates *r, char *err, size_t len)
{
	uint64_t vals[2] = { 100, 100 };

	(void)o, (void)err, (void)len;
	memset(r, 0, sizeof(*r));
	r->seconds = 1;
	r->cpus = 2;
	rates_add(r, vals, 2);
	return 0;
}

int __wrap_doc_budget_write(const struct budget *b, const char *path)
{
	(void)b, (void)path;
	json_calls++;
	return json_ret;
}

static int budget_exit(int run, int json)
{
	char *argv[] = { "budget", "-t", "bpf:tp/count", "--measure", "--for", "1", "--json", "-",
			 "--no-store", "-q", NULL };

	run_ret = run;
	json_ret = json;
	json_calls = 0;
	return cmd_budget(10, argv);
}

static void test_budget_document_fails(void **state)
{
	(void)state;
	assert_int_equal(budget_exit(EXIT_OK, 0), EXIT_OK);
	assert_int_equal(json_calls, 1);
	assert_int_equal(budget_exit(EXIT_OK, -1), EXIT_FAILED);
	assert_int_equal(budget_exit(EXIT_FAILED, 0), EXIT_FAILED);
	assert_int_equal(budget_exit(EXIT_DISTURBED, -1), EXIT_DISTURBED);
	assert_int_equal(budget_exit(EXIT_DISTURBED, 0), EXIT_DISTURBED);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_document_fails),
		cmocka_unit_test(test_document_fails_worse_kept),
		cmocka_unit_test(test_interrupted),
		cmocka_unit_test(test_vm_document_fails),
		cmocka_unit_test(test_budget_document_fails),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
