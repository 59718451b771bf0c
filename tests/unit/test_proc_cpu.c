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

static pid_t child(int spin)
{
	pid_t pid = fork();

	if (!pid) {
		for (;;)
			if (!spin)
				pause();
	}
	return pid;
}

static void test_proc_cpu(void **state)
{
	struct proc_cpu s0, s1, z0, z1;
	pid_t spin = child(1), sleeper = child(0);
	struct timespec ts = { 0, 300000000 };

	(void)state;
	assert_true(spin > 0 && sleeper > 0);
	assert_int_equal(proc_cpu_read(spin, &s0), 0);
	assert_int_equal(proc_cpu_read(sleeper, &z0), 0);
	nanosleep(&ts, NULL);
	assert_int_equal(proc_cpu_read(spin, &s1), 0);
	assert_int_equal(proc_cpu_read(sleeper, &z1), 0);
	assert_true(s0.start && s0.start == s1.start);
	/* 300 ms of spinning: some of it, on a shared box; the sleeper, almost none */
	assert_true(s1.ns - s0.ns > 10000000);
	assert_true(z1.ns - z0.ns < 5000000);
	assert_true(proc_cpu_ns(spin) >= s1.ns);
	kill(spin, SIGKILL);
	kill(sleeper, SIGKILL);
	/* exited, not yet reaped: a zombie is gone too */
	waitid(P_PID, (id_t)spin, NULL, WEXITED | WNOWAIT);
	assert_int_equal(proc_cpu_read(spin, &s1), -1);
	waitpid(spin, NULL, 0);
	waitpid(sleeper, NULL, 0);
	assert_int_equal(proc_cpu_read(spin, &s1), -1);
	assert_true(proc_cpu_ns(spin) == 0);
	assert_int_equal(proc_cpu_read(0, &s1), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_proc_cpu),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
