/*
 * tt-syscall-ns [BATCHES [CALLS]]: what a getpid(2) costs this fresh
 * process, in ns: the fastest of BATCHES (default 20) batches of CALLS
 * (default 20000) calls, each timed on CLOCK_MONOTONIC; one number on
 * stdout. tests/run.sh runs it at the suite's start and end: a process
 * forked after audit was ever enabled on this boot (audit_ever_enabled)
 * takes the syscall slow path, about 95 ns more a call, until reboot.
 * Through syscall(2): a libc may cache getpid(). The fastest batch: a
 * preemption on a shared box makes a batch slower, never faster.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static long arg(int argc, char **argv, int i, long dflt)
{
	char *end;
	long v;

	if (argc <= i)
		return dflt;
	v = strtol(argv[i], &end, 10);
	if (*end || v < 1 || v > 100000000) {
		fprintf(stderr, "tt-syscall-ns: invalid count '%s'\n", argv[i]);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	long batches = arg(argc, argv, 1, 20), calls = arg(argc, argv, 2, 20000);
	double best = -1;

	if (argc > 3) {
		fprintf(stderr, "usage: tt-syscall-ns [BATCHES [CALLS]]\n");
		return 2;
	}
	for (long b = 0; b < batches; b++) {
		struct timespec t0, t1;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		for (long i = 0; i < calls; i++)
			syscall(SYS_getpid);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		double ns = ((double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec)) /
			    (double)calls;
		if (best < 0 || ns < best)
			best = ns;
	}
	printf("%.1f\n", best);
	return 0;
}
