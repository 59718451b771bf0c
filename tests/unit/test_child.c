/*
 * The load's spawn (measure/child.c): when it cannot make its pipes, it
 * leaves the fd table as it found it. The second pipe2() failing (EMFILE)
 * once returned with the first pipe still open: two fds leaked per run
 * (issue 15, defect 17a). RLIMIT_NOFILE, lowered so that exactly one pipe
 * fits, makes the second one fail for real, with no hook in the source.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include <cmocka.h>

#include "measure/child.h"

static int fd_is_open(int fd)
{
	return fcntl(fd, F_GETFD) >= 0 || errno != EBADF;
}

/* Entries of /proc/self/fd, the directory's own fd among them every time. */
static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

static void test_second_pipe_fails_no_leak(void **state)
{
	struct load_spec spec = { .load_path = "/nonexistent/tracetax-load", .workload = "getpid",
				  .threads = 1, .iterations = 1000, .warmup = 100 };
	struct load_proc lp;
	struct rlimit old, one_pipe;
	int lo = -1, hi = -1, p1[2], p2[2], before, rc, err;

	(void)state;
	/* the two lowest free fds: the first pipe gets them, the second finds none */
	for (int fd = 0; hi < 0; fd++)
		if (!fd_is_open(fd)) {
			if (lo < 0)
				lo = fd;
			else
				hi = fd;
		}
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &old), 0);
	assert_true(old.rlim_cur == RLIM_INFINITY || (rlim_t)hi < old.rlim_cur);
	one_pipe = old;
	one_pipe.rlim_cur = (rlim_t)hi + 1;
	before = count_fds();

	assert_int_equal(setrlimit(RLIMIT_NOFILE, &one_pipe), 0);
	/* the limit does what this test needs: one pipe fits, a second does not */
	assert_int_equal(pipe2(p1, O_CLOEXEC), 0);
	rc = pipe2(p2, O_CLOEXEC);
	err = errno;
	close(p1[0]);
	close(p1[1]);
	if (rc == 0) {
		close(p2[0]);
		close(p2[1]);
	}
	if (rc == 0 || err != EMFILE) {
		setrlimit(RLIMIT_NOFILE, &old);
		fail_msg("under RLIMIT_NOFILE %d a second pipe: rc %d, %s; want EMFILE", hi + 1, rc,
			 strerror(err));
	}

	rc = load_spawn(&lp, &spec, NULL);
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &old), 0);

	assert_int_equal(rc, -1);
	if (!strstr(lp.err, "cannot create pipes"))
		fail_msg("load_spawn failed, but not at its pipes: '%s'", lp.err);
	/* the first pipe's two ends are closed again */
	if (fd_is_open(lo) || fd_is_open(hi))
		fail_msg("fds %d and %d (the first pipe) still open: %s %s", lo, hi,
			 fd_is_open(lo) ? "open" : "closed", fd_is_open(hi) ? "open" : "closed");
	assert_int_equal(count_fds(), before);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_second_pipe_fails_no_leak),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
