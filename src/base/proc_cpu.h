/*
 * Another process's CPU time, read from /proc: budget --attached's owners'
 * own CPU over its window, and audit's auditd and kauditd over a rep.
 */
#ifndef TRACETAX_PROC_CPU_H
#define TRACETAX_PROC_CPU_H

#include <stdint.h>
#include <sys/types.h>

struct proc_cpu {
	uint64_t ns;                  /* every live thread's CPU time (schedstat), ns */
	unsigned long long start;     /* its start time (stat's starttime, clock ticks since boot) */
};

/*
 * @pid's CPU now: 0, or -1 when it cannot be read (gone, a zombie too). Two readings are
 * of the same process when their start times are equal (a pid can be
 * reused in between). A thread that exits takes its CPU time with it:
 * over an interval in which threads exit, the difference is a floor.
 */
int proc_cpu_read(pid_t pid, struct proc_cpu *c);
/* The same, the time alone: 0 when gone. */
uint64_t proc_cpu_ns(pid_t pid);

#endif
