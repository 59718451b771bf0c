/*
 * The machine-wide measurement lock (lock.h says why and which file).
 *
 * The holder writes "<pid> <command line>" into the file so that a waiter
 * can say whom it waits for. The file is only a hint: a holder that could
 * open it read-only cannot write, and an old holder's line stays behind.
 * The kernel's own record, /proc/locks, is asked first.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "base/lock.h"

#define CMDLINE_MAX 60

static int lock_fd = -1;
static pid_t lock_owner;	/* the pid that took it: a forked child does not hold it */

const char *lock_path(void)
{
	const char *env = getenv(TT_LOCK_ENV);
	struct stat st;

	if (env && env[0])
		return env;
	/*
	 * Debian and Ubuntu make /run/lock 1777; Fedora makes it 0755 root.
	 * Decided by the directory's mode, not by whether we can write it, so
	 * that root and a user never lock two different files.
	 */
	if (stat("/run/lock", &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & S_IWOTH))
		return "/run/lock/tracetax.lock";
	return "/dev/shm/tracetax.lock";
}

/*
 * Open, creating the file 0666 for everybody if it is missing. Not
 * O_CREAT on an existing file: with fs.protected_regular, O_CREAT of a
 * file another user owns in a sticky directory fails even for root.
 * flock() works on a read-only fd, so a user who cannot write the file
 * still takes the lock.
 */
static int lock_open(const char *path, int *writable, char *err, size_t len)
{
	for (int tries = 0; tries < 5; tries++) {
		int fd = open(path, O_RDWR | O_CLOEXEC);

		*writable = fd >= 0;
		if (fd < 0 && (errno == EACCES || errno == EROFS))
			fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0)
			return fd;
		if (errno != ENOENT)
			break;
		fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd >= 0) {
			*writable = 1;
			fchmod(fd, 0666);	/* whatever the umask: other users lock it too */
			return fd;
		}
		if (errno != EEXIST)
			break;
		/* created by somebody else meanwhile: open theirs */
	}
	snprintf(err, len, "cannot open lock file '%s': %s (set " TT_LOCK_ENV ")", path,
		 strerror(errno));
	return -1;
}

/* A process's command line, NULs as spaces, cut to CMDLINE_MAX. */
static void read_cmdline(pid_t pid, char *buf, size_t len)
{
	char path[64], raw[256];
	ssize_t n = -1;
	int fd;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, raw, sizeof(raw) - 1);
		close(fd);
	}
	if (n <= 0)
		return;
	while (n > 0 && raw[n - 1] == '\0')
		n--;
	for (ssize_t i = 0; i < n; i++)
		if (raw[i] == '\0' || raw[i] == '\n')
			raw[i] = ' ';
	raw[n] = '\0';
	if (n > CMDLINE_MAX)
		strcpy(raw + CMDLINE_MAX - 3, "...");
	snprintf(buf, len, "%s", raw);
}

/* The pid /proc/locks gives for a flock on @fd's file; 0 if none. */
static pid_t locks_holder(int fd)
{
	char line[256];
	struct stat st;
	pid_t found = 0;
	FILE *f;

	if (fstat(fd, &st) < 0 || !(f = fopen("/proc/locks", "re")))
		return 0;
	while (!found && fgets(line, sizeof(line), f)) {
		char type[16];
		unsigned int maj, min;
		unsigned long ino;
		int pid;

		/* "1: FLOCK  ADVISORY  WRITE 1234 00:1a:5678 0 EOF"; "->" marks a waiter */
		if (strstr(line, "->") ||
		    sscanf(line, "%*d: %15s %*s %*s %d %x:%x:%lu", type, &pid, &maj, &min, &ino) != 5)
			continue;
		if (!strcmp(type, "FLOCK") && pid > 0 && maj == major(st.st_dev) &&
		    min == minor(st.st_dev) && ino == st.st_ino)
			found = pid;
	}
	fclose(f);
	return found;
}

/* "pid 1234 (tracetax run -t ptrace:all)", from /proc/locks or the file's line. */
static void holder_describe(int fd, char *buf, size_t len)
{
	char line[256] = "", cmd[CMDLINE_MAX + 1] = "";
	pid_t pid = locks_holder(fd), fpid = 0;
	ssize_t n = pread(fd, line, sizeof(line) - 1, 0);
	char *rest = NULL;

	if (n > 0) {
		line[n] = '\0';
		line[strcspn(line, "\n")] = '\0';
		fpid = (pid_t)strtol(line, &rest, 10);
		rest += strspn(rest, " ");
	}
	if (!pid)
		pid = fpid;
	if (pid)
		read_cmdline(pid, cmd, sizeof(cmd));
	/* another pid namespace, or hidepid: the holder's own words */
	if (!cmd[0] && pid && pid == fpid && rest)
		snprintf(cmd, sizeof(cmd), "%s", rest);
	if (!pid)
		snprintf(buf, len, "holder unknown");
	else if (cmd[0])
		snprintf(buf, len, "pid %d (%s)", (int)pid, cmd);
	else
		snprintf(buf, len, "pid %d", (int)pid);
}

static void holder_write(int fd)
{
	char line[128], cmd[CMDLINE_MAX + 1];
	int n;

	read_cmdline(getpid(), cmd, sizeof(cmd));
	n = snprintf(line, sizeof(line), "%d %s\n", (int)getpid(), cmd);
	/* a hint for waiters: failing to leave it is no reason to stop */
	if (ftruncate(fd, 0) == 0) {
		ssize_t w = pwrite(fd, line, (size_t)n, 0);

		(void)w;
	}
}

int lock_acquire(enum lock_wait mode, int (*interrupted)(void), char *err, size_t len)
{
	const char *path = lock_path();
	const struct timespec poll = { 0, 100 * 1000 * 1000 };
	int fd, writable, said = 0;

	if (lock_fd >= 0 && lock_owner == getpid())
		return 0;
	if (lock_fd >= 0) {	/* inherited across fork: the parent's, not ours */
		close(lock_fd);
		lock_fd = -1;
	}
	fd = lock_open(path, &writable, err, len);
	if (fd < 0)
		return -1;
	while (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		char who[128];

		if (errno == EINTR)
			continue;
		if (errno != EWOULDBLOCK) {
			snprintf(err, len, "cannot lock '%s': %s", path, strerror(errno));
			close(fd);
			return -1;
		}
		if (!said) {
			holder_describe(fd, who, sizeof(who));
			snprintf(err, len, "another measurement is running: %s", who);
			if (mode == LOCK_NOWAIT) {
				close(fd);
				return -1;
			}
			fprintf(stderr, "tracetax: waiting for another measurement to end: %s\n", who);
			said = 1;
		}
		if (interrupted && interrupted()) {
			snprintf(err, len, "interrupted while waiting for the lock '%s'", path);
			close(fd);
			return -1;
		}
		nanosleep(&poll, NULL);
	}
	if (writable)
		holder_write(fd);
	lock_fd = fd;
	lock_owner = getpid();
	return 0;
}

void lock_release(void)
{
	if (lock_fd < 0)
		return;
	/*
	 * Only the holder clears its line (on a read-only fd it cannot: the
	 * next holder overwrites it). A forked child closing its inherited
	 * copy does not release the parent's lock: flock belongs to the open
	 * file, which the parent still has open.
	 */
	if (lock_owner == getpid()) {
		int rc = ftruncate(lock_fd, 0);

		(void)rc;
	}
	close(lock_fd);
	lock_fd = -1;
}
