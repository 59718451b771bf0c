/*
 * Another process's CPU (base/proc_cpu.h): a child that spins has its CPU
 * counted, one that sleeps has none, the same process reads the same start
 * time, and a process that is gone cannot be read (never 0).
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "base/proc_cpu.h"

/* A child that spins or sleeps, once it has started (its start-up is not in the readings) */
static pid_t child(int spin)
{
	int go[2];
	pid_t pid;
	char c = 0;

	if (pipe(go))
		return -1;
	pid = fork();
	if (!pid) {
		if (write(go[1], &c, 1) != 1)
			_exit(1);
		for (;;)
			if (!spin)
				pause();
	}
	if (pid > 0 && read(go[0], &c, 1) != 1)
		pid = -1;
	close(go[0]);
	close(go[1]);
	return pid;
}

static void test_proc_cpu(void **state)
{
	struct proc_cpu s0, s1, z0, z1, gone, zombie;
	pid_t spin = child(1), sleeper = child(0);
	struct timespec ts = { 0, 300000000 };
	int r[4], rz, rg;

	(void)state;
	assert_true(spin > 0 && sleeper > 0);
	r[0] = proc_cpu_read(spin, &s0);
	r[1] = proc_cpu_read(sleeper, &z0);
	nanosleep(&ts, NULL);
	r[2] = proc_cpu_read(spin, &s1);
	r[3] = proc_cpu_read(sleeper, &z1);
	/* the children gone before any assert: a failed test leaves none behind */
	kill(spin, SIGKILL);
	kill(sleeper, SIGKILL);
	/* exited, not yet reaped: a zombie is gone too */
	waitid(P_PID, (id_t)spin, NULL, WEXITED | WNOWAIT);
	rz = proc_cpu_read(spin, &zombie);
	waitpid(spin, NULL, 0);
	waitpid(sleeper, NULL, 0);
	rg = proc_cpu_read(spin, &gone);
	assert_true(!r[0] && !r[1] && !r[2] && !r[3]);
	assert_true(s0.start && s0.start == s1.start);
	/* 300 ms of spinning: some of it, on a shared box; the sleeper, almost none */
	assert_true(s1.ns - s0.ns > 10000000);
	assert_true(z1.ns - z0.ns < 5000000);
	assert_int_equal(rz, -1);
	assert_int_equal(rg, -1);
	assert_true(proc_cpu_ns(spin) == 0);
	assert_int_equal(proc_cpu_read(0, &gone), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_proc_cpu),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
