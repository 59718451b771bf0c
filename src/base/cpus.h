/*
 * CPU placement, in one place: which CPUs we may use, in order, and
 * pinning. The workload pins its thread i to the i-th allowed CPU (round
 * robin), the ptrace helper and seccomp supervisor go where --tracer-cpu
 * says, and the steal and frequency readings look at the workload's CPUs.
 */
#ifndef TRACETAX_CPUS_H
#define TRACETAX_CPUS_H

#include <sched.h>
#include <stddef.h>

/* The CPUs this thread may run on, ascending, at most @max; their count. */
int cpus_allowed(int *cpus, int max);
/* Pin the calling thread to @cpu; -1 leaves it where it is. 0, or -1 (errno). */
int cpus_pin_self(int cpu);
/* The CPUs @threads workload threads run on (round robin over the allowed). */
int cpus_of_workload(int threads, int *cpus, int max);

/*
 * "0,2-3": into @set, each CPU one we may use now. 0, or -1 with one line
 * in @err naming the bad item (@opt: the option, for the message).
 */
int cpus_parse_list(const char *list, const char *opt, cpu_set_t *set, char *err, size_t len);
/* The calling thread (and what it starts later) on @set; the old set in @old. 0 or -1. */
int cpus_restrict(const cpu_set_t *set, cpu_set_t *old);

#endif
