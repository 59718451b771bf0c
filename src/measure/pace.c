/*
 * The counter's tax on what it counts: each process's pace (pace.h).
 */
#include <ctype.h>
#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "base/util.h"
#include "measure/pace.h"

static int cmp_pid(const void *a, const void *b)
{
	const struct pace_entry *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

int pace_snap_take(struct pace_snap *s)
{
	struct timespec ts;
	struct dirent *e;
	int cap = 256;
	DIR *d;

	pace_snap_release(s);
	if (!(d = opendir("/proc")))
		return -1;
	s->v = malloc((size_t)cap * sizeof(*s->v));
	if (!s->v)
		die("out of memory");
	clock_gettime(CLOCK_BOOTTIME, &ts);
	s->ticks = (unsigned long long)((double)ts.tv_sec * (double)sysconf(_SC_CLK_TCK) +
					(double)ts.tv_nsec * (double)sysconf(_SC_CLK_TCK) / 1e9);
	while ((e = readdir(d))) {
		struct proc_cpu c;
		pid_t pid;

		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		pid = (pid_t)atoi(e->d_name);
		if (proc_cpu_read(pid, &c))
			continue;
		if (s->n == cap) {
			cap *= 2;
			s->v = realloc(s->v, (size_t)cap * sizeof(*s->v));
			if (!s->v)
				die("out of memory");
		}
		s->v[s->n++] = (struct pace_entry){ .pid = pid, .cpu = c };
	}
	closedir(d);
	qsort(s->v, (size_t)s->n, sizeof(*s->v), cmp_pid);
	return 0;
}

void pace_snap_release(struct pace_snap *s)
{
	free(s->v);
	*s = (struct pace_snap){ 0 };
}

double pace_cpu_since(const struct pace_snap *s, pid_t pid)
{
	struct pace_entry key = { .pid = pid }, *was;
	struct proc_cpu now;

	if (pid <= 0 || !s->v || proc_cpu_read(pid, &now))
		return -1;
	was = bsearch(&key, s->v, (size_t)s->n, sizeof(*s->v), cmp_pid);
	if (was && was->cpu.start == now.start)
		return now.ns >= was->cpu.ns ? (double)(now.ns - was->cpu.ns) : -1;
	/* born since the snapshot (its pid maybe another's before): all its CPU is the window's */
	return now.start >= s->ticks ? (double)now.ns : -1;
}

double pace_of(double calls, double cpu_ns, double window_ns, double price_ns)
{
	double k, x, left, full;

	if (cpu_ns < 0 || !(window_ns > 0) || !(price_ns > 0) || !(calls > 0))
		return 1;
	k = cpu_ns / window_ns;
	x = calls * price_ns / (k > 1 ? k : 1);
	left = window_ns - x;
	full = left > window_ns / 10 ? window_ns / left : 10;
	return 1 + (full - 1) * (k < 1 ? k : 1);
}
