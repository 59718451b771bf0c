/*
 * tt-getpid-n N: exactly N getpid(2) calls, for the cmd: workload's tests
 * (events per run == N). Through syscall(2): a libc may cache getpid().
 * A bad N exits 2 with a line on stderr, which a failing cell must quote.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char *end;
	long n = argc == 2 ? strtol(argv[1], &end, 10) : -1;

	if (argc != 2 || *end || n < 0) {
		fprintf(stderr, "tt-getpid-n: invalid count '%s'\n", argc > 1 ? argv[1] : "");
		return 2;
	}
	for (long i = 0; i < n; i++)
		syscall(SYS_getpid);
	return 0;
}
