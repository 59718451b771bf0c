/* Starting tracetax-load and talking to it: ready line, go byte, result line. */
#ifndef TRACETAX_CHILD_H
#define TRACETAX_CHILD_H

#include <stdint.h>
#include <sys/types.h>

struct tracer;

struct load_spec {
	const char *load_path;
	const char *workload;
	int threads;
	int64_t iterations;
	int64_t warmup;
	int msg_size;             /* --msg-size of the tcp workloads; 0: the load's default */
};

struct load_result {
	int64_t events;
	int64_t bad;              /* ops whose result was not the expected one */
	int64_t recorded;         /* records the load made itself (inline); -1: none */
	double ns_per_op;         /* mean over threads of ns / iterations */
	double cycles_per_op;     /* the same in TSC cycles, 0 without a TSC */
	double max_thread_ns;
	int64_t bytes_per_op;     /* payload an op sends (tcp); 0: none */
};

struct load_proc {
	pid_t pid;
	int pidfd;
	int start_w;              /* we write the go byte here */
	int result_r;             /* ready line, then result line */
	char buf[8192];
	size_t len;
	char err[256];            /* why the last call failed */
};

/* Fork and exec the load; @t (may be NULL) gets child_prep in the child. */
int load_spawn(struct load_proc *lp, const struct load_spec *spec, struct tracer *t);
int load_wait_ready(struct load_proc *lp, int timeout_ms);
int load_go(struct load_proc *lp);
int load_read_result(struct load_proc *lp, int timeout_ms, struct load_result *res);
/* Waits until the process is gone without reaping it (a ptrace tracer may still look). */
int load_wait_exit(struct load_proc *lp, int timeout_ms);
/* Reaps it; kills it first if it is still there. Returns its wait status or -1. */
int load_reap(struct load_proc *lp);
void load_kill(struct load_proc *lp);

#endif
