/*
 * The counter's tax on what it counts (measure/pace.h): a process busy on
 * a CPU the whole window gets the full correction, the rate it has without
 * the counter; an idle one none; one busy on two CPUs has the counter's
 * time spread over both; what is not known is left at 1; and a snapshot
 * reads a spinning child's CPU since it was taken.
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

#include "measure/pace.h"

#define MS 1e6

/* A loop of 3 calls a round, 1953 ns a round alone, 3090 ns under a counter of 379 ns a call */
static void busy_loop_gets_its_own_rate(void **state)
{
	double window = 1000 * MS, alone = 1953, observed = 3090, price = (observed - alone) / 3;
	double rounds = window / observed, pace = pace_of(3 * rounds, window, window, price);

	(void)state;
	/* its rate without the counter: a round each 1953 ns */
	assert_float_equal(rounds * pace, window / alone, window / alone * 1e-9);
}

static void idle_or_unknown_is_not_corrected(void **state)
{
	(void)state;
	assert_float_equal(pace_of(1e6, 0, 1000 * MS, 300), 1, 0);
	assert_float_equal(pace_of(1e6, -1, 1000 * MS, 300), 1, 0);
	assert_float_equal(pace_of(1e6, 1000 * MS, 1000 * MS, 0), 1, 0);
	assert_float_equal(pace_of(0, 1000 * MS, 1000 * MS, 300), 1, 0);
	/* NaN price: not measured */
	assert_float_equal(pace_of(1e6, 1000 * MS, 1000 * MS, 0.0 / 0.0), 1, 0);
}

static void half_busy_is_between(void **state)
{
	double full = pace_of(1e6, 1000 * MS, 1000 * MS, 300);
	double half = pace_of(1e6, 500 * MS, 1000 * MS, 300);

	(void)state;
	assert_true(half > 1 && half < full);
	/* 1 + (1000 / (1000 - 300) - 1) * 0.5 */
	assert_float_equal(half, 1 + (1000.0 / 700 - 1) * 0.5, 1e-12);
}

static void two_cpus_share_the_tax(void **state)
{
	/* 2e6 calls on two busy threads: 1e6 each, 300 ms of counter on each thread */
	double two = pace_of(2e6, 2000 * MS, 1000 * MS, 300);

	(void)state;
	assert_float_equal(two, 1000.0 / 700, 1e-12);
}

static void capped(void **state)
{
	(void)state;
	/* more counter time than window: not one process's to have paid */
	assert_float_equal(pace_of(1e7, 1000 * MS, 1000 * MS, 300), 10, 0);
}

static void snapshot_reads_cpu_since(void **state)
{
	struct pace_snap s = { 0 };
	pid_t pid = fork();
	double cpu;

	(void)state;
	if (!pid)
		for (;;)
			;
	assert_true(pid > 0);
	usleep(50000);
	assert_int_equal(pace_snap_take(&s), 0);
	assert_true(s.n > 1);
	usleep(200000);
	cpu = pace_cpu_since(&s, pid);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	/* it spun 200 ms since (less when the box is busy), never its 50 ms before as well */
	assert_true(cpu > 10 * MS && cpu < 240 * MS);
	/* gone: not known, never 0 */
	assert_true(pace_cpu_since(&s, pid) < 0);
	pace_snap_release(&s);
	assert_null(s.v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(busy_loop_gets_its_own_rate),
		cmocka_unit_test(idle_or_unknown_is_not_corrected),
		cmocka_unit_test(half_busy_is_between),
		cmocka_unit_test(two_cpus_share_the_tax),
		cmocka_unit_test(capped),
		cmocka_unit_test(snapshot_reads_cpu_since),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
