/*
 * The activity probe: diff and summary on hand-made samples (order,
 * appeared/gone, truncation), a real sample's invariants, and ptracer
 * detection on a child we trace ourselves.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "base/activity.h"

/* Items in the order activity_sample() keeps them (strverscmp). */
#define ACT(...) \
	((struct activity){ .items = (char *[]){ __VA_ARGS__ }, \
			    .n = sizeof((char *[]){ __VA_ARGS__ }) / sizeof(char *) })

static const struct activity empty;

static void test_diff_none(void **state)
{
	struct activity a = ACT("bpf prog 9 'a' (kprobe)", "event x:y");
	char buf[128] = "junk";

	(void)state;
	assert_int_equal(activity_diff(&a, &a, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
	assert_int_equal(activity_diff(&empty, &empty, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
}

static void test_diff_appeared(void **state)
{
	struct activity before = ACT("event x:y");
	struct activity after = ACT("bpf prog 42 'foo' (tracepoint)", "event x:y");
	char buf[128];

	(void)state;
	assert_int_equal(activity_diff(&before, &after, buf, sizeof(buf)), 1);
	assert_string_equal(buf, "appeared: bpf prog 42 'foo' (tracepoint)");
	assert_int_equal(activity_diff(&empty, &before, buf, sizeof(buf)), 1);
	assert_string_equal(buf, "appeared: event x:y");
}

static void test_diff_gone(void **state)
{
	struct activity before = ACT("event syscalls:sys_enter_getpid", "instance foo");
	struct activity after = ACT("instance foo");
	char buf[128];

	(void)state;
	assert_int_equal(activity_diff(&before, &after, buf, sizeof(buf)), 1);
	assert_string_equal(buf, "gone: event syscalls:sys_enter_getpid");
	assert_int_equal(activity_diff(&after, &empty, buf, sizeof(buf)), 1);
	assert_string_equal(buf, "gone: instance foo");
}

/*
 * Both ways at once, with ids that sort differently as strings ("10" <
 * "9"): a merge that compared with strcmp would step past "bpf prog 10"
 * in @before and call it appeared.
 */
static void test_diff_both(void **state)
{
	struct activity before = ACT("bpf prog 10 'b' (tracepoint)", "event x:y", "instance foo");
	struct activity after = ACT("bpf prog 9 'a' (kprobe)", "bpf prog 10 'b' (tracepoint)",
				    "tracer function", "tracer nop in instance z");
	char buf[256];

	(void)state;
	assert_int_equal(activity_diff(&before, &after, buf, sizeof(buf)), 1);
	assert_string_equal(buf, "appeared: bpf prog 9 'a' (kprobe), tracer function, "
				 "tracer nop in instance z; gone: event x:y, instance foo");
}

static void test_diff_truncation(void **state)
{
	struct activity before = ACT("event a:gone");
	struct activity after = ACT("bpf prog 1 'long_name_here' (tracepoint)");
	char buf[24];

	(void)state;
	memset(buf, 'x', sizeof(buf));
	assert_int_equal(activity_diff(&before, &after, buf, sizeof(buf)), 1);
	assert_int_equal(strlen(buf), sizeof(buf) - 1);
	assert_string_equal(buf, "appeared: bpf prog 1...");
	/* too small for anything: still a string, still "they differ" */
	assert_int_equal(activity_diff(&before, &after, buf, 1), 1);
	assert_string_equal(buf, "");
	assert_int_equal(activity_diff(&before, &after, NULL, 0), 1);
	assert_int_equal(activity_diff(&before, &before, NULL, 0), 0);
}

static void test_summary(void **state)
{
	struct activity a = ACT("bpf prog 7 'x' (kprobe)", "event x:y", "instance foo");
	struct activity unknown = { .bpf_unknown = 1 };
	struct activity both = ACT("event x:y");
	char buf[256];

	(void)state;
	activity_summary(&empty, buf, sizeof(buf));
	assert_string_equal(buf, "none");
	activity_summary(&a, buf, sizeof(buf));
	assert_string_equal(buf, "bpf prog 7 'x' (kprobe); event x:y; instance foo");
	activity_summary(&unknown, buf, sizeof(buf));
	assert_string_equal(buf, "bpf: unknown (no permission)");
	both.bpf_unknown = 1;
	activity_summary(&both, buf, sizeof(buf));
	assert_string_equal(buf, "bpf: unknown (no permission); event x:y");
	unknown.tracefs_unknown = 1;
	activity_summary(&unknown, buf, sizeof(buf));
	assert_string_equal(buf, "bpf: unknown (no permission); tracefs: unknown (no access)");
	unknown.bpf_unknown = 0;
	activity_summary(&unknown, buf, sizeof(buf));
	assert_string_equal(buf, "tracefs: unknown (no access)");
}

/* Cut at an item's end, saying how many were left out. */
static void test_summary_truncation(void **state)
{
	char names[40][32], *items[40], buf[128], more[32];
	struct activity a = { .items = items, .n = 40 };
	size_t shown = 1;

	(void)state;
	for (int i = 0; i < 40; i++) {
		snprintf(names[i], sizeof(names[i]), "event sys:event_%02d", i);
		items[i] = names[i];
	}
	activity_summary(&a, buf, sizeof(buf));
	assert_true(strlen(buf) < sizeof(buf));
	for (const char *p = buf; (p = strstr(p, "; ")); p += 2)
		shown++;
	/* the last "; " is the one before "... (N more)" */
	snprintf(more, sizeof(more), "; ... (%zu more)", 40 - (shown - 1));
	assert_non_null(strstr(buf, more));
	assert_int_equal(strlen(strstr(buf, more)), strlen(more));
	assert_true(shown - 1 >= 4);	/* 128 bytes hold at least four 20-byte items */
	assert_int_equal(strncmp(buf, "event sys:event_00; event sys:event_01", 38), 0);
	activity_summary(&a, buf, 8);
	assert_true(strlen(buf) < 8);
}

/* A real sample: read-only, sorted, nothing of ours in it. */
static void test_sample(void **state)
{
	struct activity a;
	char ours[64];

	(void)state;
	snprintf(ours, sizeof(ours), "tracetax-%d", (int)getpid());
	assert_int_equal(activity_sample(&a), 0);
	for (size_t i = 0; i < a.n; i++) {
		assert_null(strstr(a.items[i], ours));
		if (i)
			assert_true(strverscmp(a.items[i - 1], a.items[i]) < 0);
	}
	activity_release(&a);
	assert_null(a.items);
	assert_int_equal(a.n, 0);
}

/* A parent may always trace its child (Yama scope 1 too). */
static void test_ptracer(void **state)
{
	pid_t child = fork();
	int status;

	(void)state;
	assert_true(child >= 0);
	if (child == 0) {
		pause();
		_exit(0);
	}
	assert_int_equal(activity_ptracer(child, 0), 0);
	assert_int_equal(ptrace(PTRACE_SEIZE, child, NULL, NULL), 0);
	assert_int_equal(activity_ptracer(child, 0), getpid());
	assert_int_equal(activity_ptracer(child, getpid()), 0);
	kill(child, SIGKILL);
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_int_equal(activity_ptracer(child, 0), 0);	/* gone */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_diff_none),
		cmocka_unit_test(test_diff_appeared),
		cmocka_unit_test(test_diff_gone),
		cmocka_unit_test(test_diff_both),
		cmocka_unit_test(test_diff_truncation),
		cmocka_unit_test(test_summary),
		cmocka_unit_test(test_summary_truncation),
		cmocka_unit_test(test_sample),
		cmocka_unit_test(test_ptracer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
