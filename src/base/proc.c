/* /proc/PID/stat and the scan of /proc by it (proc.h). */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/proc.h"
#include "base/util.h"

int proc_stat_read(pid_t pid, struct proc_stat *st)
{
	char path[64], buf[512], *open, *close;
	int ppid, pgrp;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (read_file_str(path, buf, sizeof(buf)))
		return -1;
	open = strchr(buf, '(');
	close = strrchr(buf, ')');	/* a comm may hold ')' itself */
	if (!open || !close || close < open)
		return -1;
	/*
	 * after "(comm) ": state ppid pgrp session tty_nr tpgid flags, minflt
	 * cminflt majflt cmajflt utime stime cutime cstime priority nice
	 * num_threads itrealvalue starttime
	 */
	if (sscanf(close + 1, " %c %d %d %*d %*d %*d %lu %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d "
		   "%*d %*d %llu", &st->state, &ppid, &pgrp, &st->flags, &st->start) != 5)
		return -1;
	snprintf(st->comm, sizeof(st->comm), "%.*s", (int)(close - open - 1), open + 1);
	st->ppid = (pid_t)ppid;
	st->pgrp = (pid_t)pgrp;
	return 0;
}

pid_t proc_find(proc_pick_fn pick, void *arg)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	pid_t found = 0;

	if (!d)
		return 0;
	while (!found && (e = readdir(d))) {
		struct proc_stat st;
		char *end;
		long pid = strtol(e->d_name, &end, 10);

		if (*end || pid <= 0 || pid > INT32_MAX || proc_stat_read((pid_t)pid, &st))
			continue;
		if (pick((pid_t)pid, &st, arg))
			found = (pid_t)pid;
	}
	closedir(d);
	return found;
}
