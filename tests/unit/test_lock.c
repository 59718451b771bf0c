/*
 * The measurement lock between processes: a second taker fails (or waits)
 * and names the holder; the lock dies with its holder; a user who can
 * only read the file still takes it. On a private file ($TRACETAX_LOCK),
 * so that real runs on the machine and these tests never meet.
 */
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "base/lock.h"

static char dir[] = "/tmp/tt-locktest.XXXXXX";
static char path[64];

/* A child that takes the lock, says "held" or its error, holds until its stdin closes. */
struct holder {
	pid_t pid;
	int in, out;	/* our ends: write to its stdin, read its report */
};

static int holder_start(struct holder *h, uid_t uid, char *report, size_t len)
{
	int to[2], from[2];
	ssize_t n;

	if (pipe(to) < 0 || pipe(from) < 0)
		return -1;
	h->pid = fork();
	if (h->pid == 0) {
		char err[256], c;

		close(to[1]);
		close(from[0]);
		if (uid && (setgid(uid) < 0 || setuid(uid) < 0))
			_exit(3);
		if (lock_acquire(LOCK_NOWAIT, NULL, err, sizeof(err)) < 0) {
			n = write(from[1], err, strlen(err));
			_exit(1);
		}
		n = write(from[1], "held", 4);
		n = read(to[0], &c, 1);	/* until the parent closes it */
		(void)n;
		_exit(0);
	}
	close(to[0]);
	close(from[1]);
	h->in = to[1];
	h->out = from[0];
	n = read(h->out, report, len - 1);
	report[n > 0 ? n : 0] = '\0';
	return 0;
}

static int holder_stop(struct holder *h)
{
	int status;

	close(h->in);
	close(h->out);
	waitpid(h->pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(dir))
		return -1;
	chmod(dir, 0755);	/* the unprivileged holder must reach the file */
	snprintf(path, sizeof(path), "%s/lock", dir);
	setenv(TT_LOCK_ENV, path, 1);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	return rmdir(dir);
}

static void test_path(void **state)
{
	(void)state;
	assert_string_equal(lock_path(), path);
	unsetenv(TT_LOCK_ENV);
	assert_non_null(strstr(lock_path(), "/tracetax.lock"));
	setenv(TT_LOCK_ENV, path, 1);
}

/* We hold it: a child cannot take it, and its error names us. */
static void test_child_fails_while_held(void **state)
{
	char err[256], report[256], want[64];
	struct holder h;
	struct stat st;
	mode_t old = umask(077);

	(void)state;
	unlink(path);
	assert_int_equal(lock_acquire(LOCK_NOWAIT, NULL, err, sizeof(err)), 0);
	umask(old);
	assert_int_equal(lock_acquire(LOCK_NOWAIT, NULL, err, sizeof(err)), 0);	/* again: held */
	assert_int_equal(stat(path, &st), 0);
	/* whatever the umask; nobody but its creator may write it (a user who can
	 * read it still takes the lock, on a read-only fd) */
	assert_int_equal(st.st_mode & 0777, 0644);
	assert_int_equal(holder_start(&h, 0, report, sizeof(report)), 0);
	snprintf(want, sizeof(want), "another measurement is running: pid %d (", (int)getpid());
	assert_int_equal(strncmp(report, want, strlen(want)), 0);
	assert_non_null(strstr(report, "test_lock"));
	assert_int_equal(holder_stop(&h), 1);
	lock_release();
	assert_int_equal(holder_start(&h, 0, report, sizeof(report)), 0);
	assert_string_equal(report, "held");
	assert_int_equal(holder_stop(&h), 0);
}

/* A child holds it: we fail naming it; once it exits, the lock is ours. */
static void test_held_by_child(void **state)
{
	char err[256], report[256], want[64], line[128] = "";
	struct holder h;
	int fd;

	(void)state;
	assert_int_equal(holder_start(&h, 0, report, sizeof(report)), 0);
	assert_string_equal(report, "held");
	assert_int_equal(lock_acquire(LOCK_NOWAIT, NULL, err, sizeof(err)), -1);
	snprintf(want, sizeof(want), "another measurement is running: pid %d (", (int)h.pid);
	assert_int_equal(strncmp(err, want, strlen(want)), 0);
	/* the holder's line for waiters: "<pid> <command line>" */
	fd = open(path, O_RDONLY);
	assert_true(read(fd, line, sizeof(line) - 1) > 0);
	close(fd);
	snprintf(want, sizeof(want), "%d ", (int)h.pid);
	assert_int_equal(strncmp(line, want, strlen(want)), 0);
	assert_int_equal(holder_stop(&h), 0);
	assert_int_equal(lock_acquire(LOCK_NOWAIT, NULL, err, sizeof(err)), 0);
	lock_release();
}

static int polls;

static int interrupt_at_third(void)
{
	return ++polls >= 3;
}

static int never(void)
{
	polls++;
	return 0;
}

static void test_wait(void **state)
{
	char err[256], report[256];
	struct holder h;
	pid_t killer;

	(void)state;
	assert_int_equal(holder_start(&h, 0, report, sizeof(report)), 0);
	polls = 0;
	assert_int_equal(lock_acquire(60, interrupt_at_third, err, sizeof(err)), -1);
	assert_int_equal(polls, 3);
	assert_non_null(strstr(err, "interrupted while waiting"));
	/* the holder ends after ~300 ms: the waiter then gets it */
	killer = fork();
	if (killer == 0) {
		usleep(300 * 1000);
		kill(h.pid, SIGKILL);	/* as a SIGKILLed tracetax: the lock dies with it */
		_exit(0);
	}
	polls = 0;
	assert_int_equal(lock_acquire(60, never, err, sizeof(err)), 0);
	assert_true(polls >= 1);
	waitpid(killer, NULL, 0);
	assert_int_equal(holder_stop(&h), 128 + SIGKILL);
	lock_release();
}

/* The fd is not inherited across exec: workloads must not hold the lock. */
static void test_cloexec(void **state)
{
	char err[256], link[128], fdpath[64];
	int found = 0;

	(void)state;
	assert_int_equal(lock_acquire(LOCK_NOWAIT, NULL, err, sizeof(err)), 0);
	for (int fd = 0; fd < 1024; fd++) {
		ssize_t n;

		snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", fd);
		n = readlink(fdpath, link, sizeof(link) - 1);
		if (n < 0)
			continue;
		link[n] = '\0';
		if (strcmp(link, path))
			continue;
		found++;
		assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	}
	assert_int_equal(found, 1);
	lock_release();
}

/*
 * A user who may only read the file (root's, 0644) still takes the lock;
 * it cannot write its line, so the kernel's /proc/locks names it.
 */
static void test_readonly_user(void **state)
{
	char err[256], report[256], want[64];
	struct holder h;
	int fd;

	(void)state;
	if (getuid() != 0)
		skip();
	unlink(path);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "1 stale line\n", 13), 13);
	close(fd);
	assert_int_equal(holder_start(&h, 65534, report, sizeof(report)), 0);
	assert_string_equal(report, "held");
	assert_int_equal(lock_acquire(LOCK_NOWAIT, NULL, err, sizeof(err)), -1);
	snprintf(want, sizeof(want), "another measurement is running: pid %d (", (int)h.pid);
	assert_int_equal(strncmp(err, want, strlen(want)), 0);
	assert_int_equal(holder_stop(&h), 0);
	unlink(path);
}

/*
 * Anybody may hold the lock (read access is enough): a waiter gives up
 * after its --wait, and names who holds it, pid, command and user.
 */
static void test_wait_bounded(void **state)
{
	char err[320], report[256], want[128];
	struct holder h;
	uint64_t t0, ms;
	struct timespec ts;
	int uid = getuid() == 0 ? 65534 : 0;	/* another user when we can be one */

	(void)state;
	unlink(path);
	if (uid) {	/* root's file, 0644: the other user locks it read-only */
		char err0[256];

		assert_int_equal(lock_acquire(LOCK_NOWAIT, NULL, err0, sizeof(err0)), 0);
		lock_release();
	}
	assert_int_equal(holder_start(&h, (uid_t)uid, report, sizeof(report)), 0);
	assert_string_equal(report, "held");
	clock_gettime(CLOCK_MONOTONIC, &ts);
	t0 = (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
	polls = 0;
	assert_int_equal(lock_acquire(1, never, err, sizeof(err)), -1);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	ms = (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000 - t0;
	/*
	 * Not at once (the deadline is a second after the first refusal, ms
	 * truncated), not forever (a wide bound: a loaded box may not run us),
	 * and waiting in a loop that asks whether we were interrupted: its
	 * second turn comes before the deadline whatever the sleeps took. The
	 * number of 100 ms polls is the scheduler's: "at least 5" failed when
	 * the box did not run us for 0.7 s.
	 */
	assert_true(ms >= 990);
	assert_true(ms < 60000);
	assert_true(polls >= 2);
	snprintf(want, sizeof(want), "gave up after waiting 1 s: another measurement is running: "
		 "pid %d (", (int)h.pid);
	assert_int_equal(strncmp(err, want, strlen(want)), 0);
	assert_non_null(strstr(err, "test_lock"));
	assert_non_null(strstr(err, uid ? "), user nobody" : "), user "));
	assert_int_equal(holder_stop(&h), 0);
	unlink(path);
}

/* Never through a symbolic link: a user could point root's lock at any file. */
static void test_symlink_refused(void **state)
{
	char err[320], target[80];
	struct stat st;
	int fd;

	(void)state;
	unlink(path);
	snprintf(target, sizeof(target), "%s/victim", dir);
	fd = open(target, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "precious\n", 9), 9);
	close(fd);
	assert_int_equal(symlink(target, path), 0);
	assert_int_equal(lock_acquire(LOCK_NOWAIT, NULL, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "is a symbolic link: refusing it"));
	assert_int_equal(stat(target, &st), 0);
	assert_int_equal(st.st_size, 9);	/* not truncated, not written */
	unlink(path);
	unlink(target);
	/* a dangling one is not followed to create a file either */
	assert_int_equal(symlink(target, path), 0);
	assert_int_equal(lock_acquire(LOCK_NOWAIT, NULL, err, sizeof(err)), -1);
	assert_int_equal(stat(target, &st), -1);
	unlink(path);
}

/* A FIFO in its place does not hang the open; it is refused. */
static void test_fifo_refused(void **state)
{
	char err[320];

	(void)state;
	unlink(path);
	assert_int_equal(mkfifo(path, 0666), 0);
	alarm(10);	/* a hang fails the test instead of stalling it */
	assert_int_equal(lock_acquire(LOCK_NOWAIT, NULL, err, sizeof(err)), -1);
	alarm(0);
	assert_non_null(strstr(err, "is not a regular file"));
	unlink(path);
}

/* Root does not lock, truncate and write a file another user owns. */
static void test_foreign_owner_refused(void **state)
{
	char err[320];
	struct stat st;
	int fd;

	(void)state;
	if (getuid() != 0)
		skip();
	unlink(path);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0666);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "theirs\n", 7), 7);
	assert_int_equal(fchown(fd, 65534, 65534), 0);
	close(fd);
	assert_int_equal(lock_acquire(LOCK_NOWAIT, NULL, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "is owned by uid 65534, not root: refusing it"));
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, 7);	/* left as it was */
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_path),
		cmocka_unit_test(test_child_fails_while_held),
		cmocka_unit_test(test_held_by_child),
		cmocka_unit_test(test_wait),
		cmocka_unit_test(test_cloexec),
		cmocka_unit_test(test_readonly_user),
		cmocka_unit_test(test_wait_bounded),
		cmocka_unit_test(test_symlink_refused),
		cmocka_unit_test(test_fifo_refused),
		cmocka_unit_test(test_foreign_owner_refused),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
