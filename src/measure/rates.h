/* `tracetax budget`'s rate counter: syscall entries on the box for a while (rates.c). */
#ifndef TRACETAX_RATES_H
#define TRACETAX_RATES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "results/budget.h"

struct rates_opts {
	int seconds;              /* the window */
	pid_t pid;                /* 0: every process */
	const char *cgroup;       /* a cgroup v2 directory; NULL: every cgroup */
	const char *target;       /* a syscall name; NULL: every syscall */
	bool by_auid;             /* also by login uid and syscall (audit:rules) */
	/* non-NULL: count this command's process (execvp'd, stdout and stderr to
	 * /dev/null) from its exec to its exit instead of the box for seconds;
	 * the processes it starts are not counted */
	char *const *argv;
	/* non-NULL: every process's count (up to @max_all) here, their number in *@nall */
	struct budget_proc *all;
	int max_all;
	int *nall;
};

/* The name of syscall @nr of this arch (the C library's table); NULL: none. */
const char *rates_syscall_name(long nr);

/* Whether we may count (BPF): 0, or -1 with what budget needs in one line in @err. */
int rates_allowed(char *err, size_t len);

/*
 * Counts for o->seconds (or o->argv's run) (a signal ends it early: 128+N), every syscall
 * entry that a syscall tracer's hook would see, into @r. The counter is
 * detached and freed on every path. 0; 128+signal; -1 with one line in
 * @err (the kernel refused the program).
 */
int rates_count(const struct rates_opts *o, struct budget_rates *r, char *err, size_t len);

/*
 * One per-CPU count (@ncpu values, a per-CPU map's) into @r: each CPU's
 * into per_cpu (allocated at the first, for @ncpu CPUs: every possible
 * one, so that the total is always their sum), the total into events.
 * Returns the count's sum.
 */
int64_t rates_add(struct budget_rates *r, const uint64_t *vals, int ncpu);

#endif
