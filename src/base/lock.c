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
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "base/lock.h"
#include "base/util.h"

#define CMDLINE_MAX 60
/* root writes its line; everybody may read it, and flock a read-only fd */
#define LOCK_MODE 0644

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
 * Whether an open lock file may be trusted: a regular file, and, when we
 * are root, root's own. Any user may create the file first in a 1777
 * directory (or leave a FIFO or a hard link there): root then refuses it
 * rather than lock, truncate and write through somebody else's file.
 */
static int lock_check(int fd, const char *path, char *err, size_t len)
{
	struct stat st;

	if (fstat(fd, &st) < 0) {
		snprintf(err, len, "cannot stat lock file '%s': %s", path, strerror(errno));
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, len, "lock file '%s' is not a regular file: refusing it (remove it, "
			 "or set " TT_LOCK_ENV ")", path);
		return -1;
	}
	if (geteuid() == 0 && st.st_uid != 0) {
		snprintf(err, len, "lock file '%s' is owned by uid %u, not root: refusing it "
			 "(remove it, or set " TT_LOCK_ENV ")", path, (unsigned int)st.st_uid);
		return -1;
	}
	/* an older tracetax made it 0666: nobody but root need write root's file */
	if (geteuid() == 0 && (st.st_mode & 0022) && fchmod(fd, LOCK_MODE) < 0)
		debug("cannot chmod lock file '%s': %s", path, strerror(errno));
	return 0;
}

/*
 * Open, creating the file LOCK_MODE if it is missing. Never through a
 * symbolic link (O_NOFOLLOW: the directory is world-writable), never
 * blocking (O_NONBLOCK: a FIFO planted there would hang the open). Not
 * O_CREAT on an existing file: with fs.protected_regular, O_CREAT of a
 * file another user owns in a sticky directory fails even for root.
 * flock() works on a read-only fd, so a user who cannot write the file
 * (root's, 0644) still takes the lock.
 */
static int lock_open(const char *path, int *writable, char *err, size_t len)
{
	const int flags = O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK;

	for (int tries = 0; tries < 5; tries++) {
		int fd = open(path, O_RDWR | flags);

		*writable = fd >= 0;
		if (fd < 0 && (errno == EACCES || errno == EROFS))
			fd = open(path, O_RDONLY | flags);
		if (fd >= 0) {
			if (!lock_check(fd, path, err, len))
				return fd;
			close(fd);
			return -1;
		}
		if (errno == ELOOP) {
			snprintf(err, len, "lock file '%s' is a symbolic link: refusing it (remove it, "
				 "or set " TT_LOCK_ENV ")", path);
			return -1;
		}
		if (errno != ENOENT)
			break;
		fd = open(path, O_RDWR | O_CREAT | O_EXCL | flags, LOCK_MODE);
		if (fd >= 0) {
			*writable = 1;
			fchmod(fd, LOCK_MODE);	/* whatever the umask: other users read it */
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

/* ", user alice": the owner of /proc/PID, by name when it has one; "" when gone. */
static void holder_user(pid_t pid, char *buf, size_t len)
{
	char path[64], pwbuf[1024];
	struct passwd pw, *found = NULL;
	struct stat st;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	if (stat(path, &st) < 0)
		return;
	if (!getpwuid_r(st.st_uid, &pw, pwbuf, sizeof(pwbuf), &found) && found)
		snprintf(buf, len, ", user %s", found->pw_name);
	else
		snprintf(buf, len, ", uid %u", (unsigned int)st.st_uid);
}

/*
 * "pid 1234 (tracetax run -t ptrace:all), user alice", from /proc/locks or
 * the file's line.
 */
static void holder_describe(int fd, char *buf, size_t len)
{
	char line[256] = "", cmd[CMDLINE_MAX + 1] = "", user[64] = "";
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
	if (pid) {
		read_cmdline(pid, cmd, sizeof(cmd));
		holder_user(pid, user, sizeof(user));
	}
	/* another pid namespace, or hidepid: the holder's own words */
	if (!cmd[0] && pid && pid == fpid && rest)
		snprintf(cmd, sizeof(cmd), "%s", rest);
	if (!pid)
		snprintf(buf, len, "holder unknown");
	else if (cmd[0])
		snprintf(buf, len, "pid %d (%s)%s", (int)pid, cmd, user);
	else
		snprintf(buf, len, "pid %d%s", (int)pid, user);
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

int lock_wait_default(void)
{
	const char *env = getenv(TT_WAIT_ENV);
	int64_t v;

	if (!env || !*env)
		return LOCK_WAIT_DEFAULT_S;
	return parse_i64(env, 0, LOCK_WAIT_MAX_S, &v) ? -1 : (int)v;
}

int lock_acquire(int wait_s, int (*interrupted)(void), char *err, size_t len)
{
	const char *path = lock_path();
	const struct timespec poll = { 0, 100 * 1000 * 1000 };
	uint64_t deadline = 0;
	int fd, writable, said = 0;
	char who[192] = "";

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
			if (wait_s <= 0) {
				close(fd);
				return -1;
			}
			fprintf(stderr, "tracetax: waiting up to %d s for another measurement to end: %s\n",
				wait_s, who);
			deadline = now_ns() + (uint64_t)wait_s * 1000000000ull;
			said = 1;
		}
		if (interrupted && interrupted()) {
			snprintf(err, len, "interrupted while waiting for the lock '%s'", path);
			close(fd);
			return -1;
		}
		if (now_ns() >= deadline) {
			/* who holds it now: the first holder may have handed it on */
			holder_describe(fd, who, sizeof(who));
			snprintf(err, len, "gave up after waiting %d s: another measurement is running: %s",
				 wait_s, who);
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
