/*
 * tt-syscall-mix N: N rounds of three syscalls of different kinds, for
 * budget's tests: getuid(2) (no argument), close(1000) (a number, EBADF)
 * and stat("/tmp") (a path the kernel and a tracer must copy): N of each,
 * 3N in all. ld.so makes none of getuid (it closes two fds, stats none by
 * that name): N getuid calls per run exactly. Through syscall(2), as
 * tt-getpid-n. A bad N exits 2.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char *end;
	long n = argc == 2 ? strtol(argv[1], &end, 10) : -1;
	struct stat st;

	if (argc != 2 || *end || n < 0) {
		fprintf(stderr, "tt-syscall-mix: invalid count '%s'\n", argc > 1 ? argv[1] : "");
		return 2;
	}
	for (long i = 0; i < n; i++) {
		syscall(SYS_getuid);
		syscall(SYS_close, 1000);
		syscall(SYS_stat, "/tmp", &st);
	}
	return 0;
}
