/* `tracetax budget`'s rate counter: syscall entries on the box for a while (rates.c). */
#ifndef TRACETAX_RATES_H
#define TRACETAX_RATES_H

#include <stddef.h>
#include <sys/types.h>

#include "results/budget.h"

struct rates_opts {
	int seconds;              /* the window */
	pid_t pid;                /* 0: every process */
	const char *cgroup;       /* a cgroup v2 directory; NULL: every cgroup */
	const char *target;       /* a syscall name; NULL: every syscall */
	/* non-NULL: every process's count (up to @max_all) here, their number in *@nall */
	struct budget_proc *all;
	int max_all;
	int *nall;
};

/*
 * Counts for o->seconds (a signal ends it early: 128+N), every syscall
 * entry that a syscall tracer's hook would see, into @r. The counter is
 * detached and freed on every path. 0; 128+signal; -1 with one line in
 * @err (the kernel refused the program).
 */
int rates_count(const struct rates_opts *o, struct budget_rates *r, char *err, size_t len);

#endif
