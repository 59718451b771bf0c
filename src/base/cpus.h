/*
 * CPU placement, in one place: which CPUs we may use, in order, and
 * pinning. The workload pins its thread i to the i-th allowed CPU (round
 * robin), the ptrace helper and seccomp supervisor go where --tracer-cpu
 * says, and the steal and frequency readings look at the workload's CPUs.
 */
#ifndef TRACETAX_CPUS_H
#define TRACETAX_CPUS_H

/* The CPUs this thread may run on, ascending, at most @max; their count. */
int cpus_allowed(int *cpus, int max);
/* Pin the calling thread to @cpu; -1 leaves it where it is. 0, or -1 (errno). */
int cpus_pin_self(int cpu);
/* The CPUs @threads workload threads run on (round robin over the allowed). */
int cpus_of_workload(int threads, int *cpus, int max);

#endif
