/* The ptrace tracer process (ptrace_helper.c), shared by ptrace:all and ptrace:seccomp. */
#ifndef TRACETAX_TRACERS_PTRACE_HELPER_H
#define TRACETAX_TRACERS_PTRACE_HELPER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define PT_ATTACH_TIMEOUT_MS 5000	/* the helper has seized the workload by then */
#define PT_KILL_TIMEOUT_MS 2000

/* In a MAP_SHARED page: counted by the helper (atomics: start() resets them). */
struct pt_shared {
	int64_t hits, stops;
	uint64_t cpu_end;	/* the helper's process CPU clock when it left */
	int step, err;		/* what failed (pt_step_name), errno */
};

struct pt_run {
	pid_t pid;		/* the workload */
	long nr;		/* target syscall */
	int seccomp;		/* ptrace:seccomp: TRACESECCOMP + PTRACE_CONT */
	int probe;		/* supported(): attach, then leave */
	int ready_fd;
	int cpu;		/* pin the helper here; -1: anywhere */
	struct pt_shared *sh;
};

/*
 * Fork a helper that seizes @r->pid and then traces it until every thread
 * is gone. TT_OK once it is attached; else TT_FAIL with the reason in @err.
 */
int pt_attach(char *err, size_t len, struct pt_run *r, pid_t *helper);
/* Exit status of helper @h, or -1 if it still runs after @ms. */
int pt_reap(pid_t h, int ms);
/* Kill and reap the helper (EXITKILL takes a running workload along); *h = -1. */
void pt_kill(pid_t *h);
const char *pt_step_name(int step);

#endif
