/*
 * A process's CPU from /proc (proc_cpu.h). Each thread's schedstat, not
 * stat's utime + stime: schedstat's first field is the thread's
 * sum_exec_runtime in ns, where utime and stime come in clock ticks (10 ms
 * at USER_HZ 100), too coarse for a rep of a few hundred ms.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/proc.h"
#include "base/proc_cpu.h"
#include "base/util.h"

/* 0 when unreadable or exited (a zombie: its CPU is final, it is gone) */
static unsigned long long start_time(pid_t pid)
{
	struct proc_stat st;

	if (proc_stat_read(pid, &st) || st.state == 'Z' || st.state == 'X')
		return 0;
	return st.start;
}

int proc_cpu_read(pid_t pid, struct proc_cpu *c)
{
	char path[64], buf[128];
	struct dirent *e;
	int nthreads = 0;
	DIR *d;

	memset(c, 0, sizeof(*c));
	if (pid <= 0 || !(c->start = start_time(pid)))
		return -1;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	if (!(d = opendir(path)))
		return -1;
	while ((e = readdir(d))) {
		char p2[160];

		if (e->d_name[0] == '.')
			continue;
		snprintf(p2, sizeof(p2), "%s/%s/schedstat", path, e->d_name);
		if (!read_file_str(p2, buf, sizeof(buf))) {
			c->ns += strtoull(buf, NULL, 10);
			nthreads++;
		}
	}
	closedir(d);
	/* no thread readable: gone between the two reads, or no schedstat */
	if (!nthreads || start_time(pid) != c->start)
		return -1;
	return 0;
}

uint64_t proc_cpu_ns(pid_t pid)
{
	struct proc_cpu c;

	return proc_cpu_read(pid, &c) ? 0 : c.ns;
}
