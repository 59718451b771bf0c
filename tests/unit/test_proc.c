/*
 * /proc/PID/stat as base/proc.c reads it, and the scan by it that finds
 * kauditd and an lttng daemon: checked against what this process and a
 * child it names and puts in a group of its own know of themselves.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "base/proc.h"

static void test_stat_self(void **state)
{
	struct proc_stat st;

	(void)state;
	assert_int_equal(proc_stat_read(getpid(), &st), 0);
	assert_string_equal(st.comm, "test_proc");
	assert_int_equal(st.state, 'R');
	assert_int_equal(st.ppid, getppid());
	assert_int_equal(st.pgrp, getpgrp());
	assert_false(st.flags & PROC_PF_KTHREAD);
	/* after boot, before now: clock ticks */
	assert_true(st.start > 0);
	assert_int_equal(proc_stat_read(0, &st), -1);
}

struct want { const char *comm; pid_t pgrp; };

static bool pick(pid_t pid, const struct proc_stat *st, void *arg)
{
	const struct want *w = arg;

	(void)pid;
	return !strcmp(st->comm, w->comm) && st->pgrp == w->pgrp;
}

/* A child named "tt-proc) (x" (a comm with parentheses) in a group of its own. */
static void test_find_child(void **state)
{
	int go[2];
	pid_t child, found, other;
	char c;

	(void)state;
	assert_int_equal(pipe(go), 0);
	child = fork();
	assert_true(child >= 0);
	if (!child) {
		setpgid(0, 0);
		prctl(PR_SET_NAME, "tt-proc) (x");
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(go[0]);
		(void)!write(go[1], "r", 1);
		pause();
		_exit(0);
	}
	close(go[1]);
	assert_int_equal(read(go[0], &c, 1), 1);
	close(go[0]);
	found = proc_find(pick, &(struct want){ "tt-proc) (x", child });
	/* the same name in another group is not it */
	other = proc_find(pick, &(struct want){ "tt-proc) (x", getpgrp() });
	kill(child, SIGKILL);	/* before any assert: a failed test leaves no child */
	waitpid(child, NULL, 0);
	assert_int_equal(found, child);
	assert_int_equal(other, 0);
	assert_int_equal(proc_find(pick, &(struct want){ "tt-proc) (x", child }), 0);
}

static bool is_kthread(pid_t pid, const struct proc_stat *st, void *arg)
{
	(void)arg;
	return pid == 2 && (st->flags & PROC_PF_KTHREAD);
}

/* kthreadd (pid 2) is a kernel thread: the flags are the stat's, not another field */
static void test_find_kthread(void **state)
{
	struct proc_stat st;

	(void)state;
	if (proc_stat_read(2, &st) || strcmp(st.comm, "kthreadd"))
		skip();
	assert_int_equal(proc_find(is_kthread, NULL), 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stat_self),
		cmocka_unit_test(test_find_child),
		cmocka_unit_test(test_find_kthread),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
