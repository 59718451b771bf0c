/*
 * /proc/PID/stat, read in one place (proc(5)): a process's comm, state,
 * parent, process group and flags; and the scan of /proc for a process by
 * what its stat says (the kauditd kernel thread, an lttng daemon).
 */
#ifndef TRACETAX_PROC_H
#define TRACETAX_PROC_H

#include <stdbool.h>
#include <sys/types.h>

#define PROC_PF_KTHREAD 0x00200000UL	/* include/linux/sched.h: a kernel thread */

struct proc_stat {
	char comm[64];        /* cut by the kernel to 15 bytes (TASK_COMM_LEN) */
	char state;           /* R, S, D, Z... */
	pid_t ppid, pgrp;
	unsigned long flags;  /* PF_*: PROC_PF_KTHREAD */
	unsigned long long start;  /* starttime: clock ticks after boot; a pid reused has another */
};

/* @pid's stat into @st: 0, or -1 when it cannot be read (gone, hidden). */
int proc_stat_read(pid_t pid, struct proc_stat *st);

/* Whether the scan takes @pid, whose stat is @st. */
typedef bool (*proc_pick_fn)(pid_t pid, const struct proc_stat *st, void *arg);
/* The first process in /proc's order that @pick takes; 0 if none (or no /proc). */
pid_t proc_find(proc_pick_fn pick, void *arg);

#endif
