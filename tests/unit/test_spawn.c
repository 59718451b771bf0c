/*
 * The one fork+exec (base/spawn.c): the child holds 0, 1, 2 and the fds
 * it was asked to keep, nothing else of ours (a leaked pipe end keeps a
 * reader from EOF); a tracer's setup before exec still has its fds; a
 * program that cannot be run exits SPAWN_EXIT_EXEC; own_group makes a
 * group of its own.
 */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "base/spawn.h"

/* Runs @s with stdout to a pipe; its output in @buf, its wait status returned. */
static int run(struct spawn *s, char *buf, size_t len)
{
	char msg[128];
	int out[2], st = -1;
	ssize_t n, got = 0;
	pid_t pid;

	assert_int_equal(pipe2(out, O_CLOEXEC), 0);
	s->fd[1] = out[1];
	pid = spawn_start(s, msg, sizeof(msg));
	assert_true(pid > 0);
	close(out[1]);
	while ((n = read(out[0], buf + got, len - 1 - (size_t)got)) > 0)
		got += n;
	buf[got] = '\0';
	close(out[0]);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	return st;
}

static char *fds_argv[] = { "/bin/sh", "-c",
	"cd /proc/self/fd && for f in *; do printf '%s ' $f; done", NULL };

static void test_only_asked_fds(void **state)
{
	int leak[2], keep[2];
	char buf[256];
	struct spawn s = { .argv = fds_argv, .fd = { SPAWN_DEVNULL, 0, SPAWN_DEVNULL } };

	(void)state;
	assert_int_equal(pipe(leak), 0);	/* no O_CLOEXEC: would be inherited */
	assert_int_equal(pipe(keep), 0);
	s.move[0][0] = keep[1];
	s.move[0][1] = 100;
	s.nmove = 1;
	assert_int_equal(run(&s, buf, sizeof(buf)), 0);
	/* the shell's ls of its own fds: 0 1 2, the kept one, and the one it reads the directory with */
	if (strcmp(buf, "0 1 100 2 3 ") && strcmp(buf, "0 1 100 2 "))
		fail_msg("child's fds: '%s', want 0 1 2 100 (and the shell's own 3)", buf);
	close(leak[0]);
	close(leak[1]);
	close(keep[0]);
	close(keep[1]);
}

static int prep_fd = -1;

/* A tracer's setup uses an fd the child is not asked to keep (seccomp:notify's socket). */
static int prep_writes(void *arg)
{
	(void)arg;
	return write(prep_fd, "p", 1) == 1 ? 0 : -1;
}

static int prep_fails(void *arg)
{
	(void)arg;
	return -1;
}

static void test_prep(void **state)
{
	char *argv[] = { "/bin/true", NULL }, buf[64], c = 0;
	int p[2];
	struct spawn s = { .argv = argv, .fd = { SPAWN_DEVNULL, 0, SPAWN_INHERIT },
			   .prep = prep_writes };

	(void)state;
	assert_int_equal(pipe(p), 0);
	prep_fd = p[1];
	assert_int_equal(run(&s, buf, sizeof(buf)), 0);
	close(p[1]);
	assert_int_equal(read(p[0], &c, 1), 1);
	assert_int_equal(c, 'p');
	close(p[0]);
	s.prep = prep_fails;
	assert_int_equal(WEXITSTATUS(run(&s, buf, sizeof(buf))), SPAWN_EXIT_PREP);
}

static void test_exec_fails(void **state)
{
	char *argv[] = { "/nonexistent/program", NULL }, buf[64];
	struct spawn s = { .argv = argv, .fd = { SPAWN_DEVNULL, 0, SPAWN_INHERIT } };

	(void)state;
	assert_int_equal(WEXITSTATUS(run(&s, buf, sizeof(buf))), SPAWN_EXIT_EXEC);
}

static void test_own_group(void **state)
{
	char *argv[] = { "/bin/sh", "-c", "ps -o pgid= -p $$; echo $$", NULL }, buf[128];
	struct spawn s = { .argv = argv, .fd = { SPAWN_DEVNULL, 0, SPAWN_INHERIT },
			   .own_group = true };
	long pgid = 0, pid = 0;

	(void)state;
	if (access("/bin/ps", X_OK))
		skip();
	assert_int_equal(run(&s, buf, sizeof(buf)), 0);
	assert_int_equal(sscanf(buf, "%ld %ld", &pgid, &pid), 2);
	assert_int_equal(pgid, pid);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_only_asked_fds),
		cmocka_unit_test(test_prep),
		cmocka_unit_test(test_exec_fails),
		cmocka_unit_test(test_own_group),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
