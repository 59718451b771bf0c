/* Whether the owner of a leftover is gone (owner.h). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/owner.h"
#include "base/util.h"

/* "(name) S ..." of /proc/PID/stat: its comm and state; -1 when it cannot be read. */
static int read_stat(pid_t pid, char *comm, size_t len, char *state)
{
	char path[64], buf[512], *open, *close;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (read_file_str(path, buf, sizeof(buf)))
		return -1;
	open = strchr(buf, '(');
	close = strrchr(buf, ')');	/* a comm may hold ')' itself */
	if (!open || !close || close < open || close[1] != ' ' || !close[2])
		return -1;
	snprintf(comm, len, "%.*s", (int)(close - open - 1), open + 1);
	*state = close[2];
	return 0;
}

/* The Threads: line of /proc/PID/status; -1 unknown. */
static long read_threads(pid_t pid)
{
	char path[64], line[128];
	long n = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (!(f = fopen(path, "re")))
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Threads: %ld", &n) == 1)
			break;
	fclose(f);
	return n;
}

bool owner_gone(pid_t pid, char *why, size_t len)
{
	char comm[64] = "", state = '?';
	long threads;

	if (kill(pid, 0) < 0 && errno == ESRCH)
		return true;
	if (read_stat(pid, comm, sizeof(comm), &state)) {
		/* gone between the two looks, or /proc hides it: it existed a moment ago */
		if (kill(pid, 0) < 0 && errno == ESRCH)
			return true;
		snprintf(why, len, "its process %d still exists", (int)pid);
		return false;
	}
	if (state == 'Z' || state == 'X') {
		threads = read_threads(pid);
		if (threads <= 1)
			return true;	/* exited: only its parent has not reaped it yet */
		snprintf(why, len, "its process %d still exists (%s: its main thread exited, %ld "
			 "threads still run)", (int)pid, comm, threads - 1);
		return false;
	}
	snprintf(why, len, "its process %d still exists (%s, state %c)", (int)pid, comm, state);
	return false;
}

bool owner_dir_ours(const char *path, char *why, size_t len)
{
	struct stat st;

	if (lstat(path, &st))
		return snprintf(why, len, "%s", strerror(errno)), false;
	if (S_ISLNK(st.st_mode))
		return snprintf(why, len, "a symbolic link, not a directory of ours"), false;
	if (!S_ISDIR(st.st_mode))
		return snprintf(why, len, "not a directory"), false;
	if (st.st_uid != geteuid())
		return snprintf(why, len, "owned by uid %u, not by us", (unsigned)st.st_uid), false;
	return true;
}
