/* Starting tracetax-load and talking to it: ready line, go byte, result line. */
#ifndef TRACETAX_CHILD_H
#define TRACETAX_CHILD_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct hist;
struct tracer;

struct load_spec {
	const char *load_path;
	const char *workload;
	int threads;
	int64_t iterations;
	int64_t warmup;
	bool latency;             /* time every op into a histogram (run --latency) */
	uint64_t tsc_hz;          /* the TSC rate the runner calibrated; 0: unknown */
	int msg_size;             /* --msg-size of the tcp workloads; 0: the load's default */
	int cpu_offset;           /* thread i on the (i + this)-th allowed CPU (--placement) */
	int64_t rate;             /* ops a second per thread, paced (tracetax rate); 0: flat out */
	char *const *cmd;         /* cmd: workload: the command's words; NULL: a loop */
	const char *cmd_path;     /* its program, found in PATH (argv[0] stays as given) */
	const char *cmd_out;      /* its stdout and stderr go to this file */
};

/* One workload thread's figures. */
struct load_thread {
	int cpu;                  /* the CPU it was pinned to; -1: none */
	int64_t events;           /* target events it made, warm-up included */
	double ns_per_op;         /* its hot loop's ns / its iterations */
	double cycles_per_op;     /* the same in TSC cycles; 0 without a TSC */
};

struct load_result {
	int64_t events;
	int64_t bad;              /* ops whose result was not the expected one */
	int64_t recorded;         /* records the load made itself (inline); -1: none */
	double ns_per_op;         /* mean over threads of ns / iterations */
	double cycles_per_op;     /* the same in TSC cycles, 0 without a TSC */
	double max_thread_ns;
	int nthreads;
	struct load_thread *th;   /* nthreads of them */
	struct hist *lat;         /* --latency: every thread's ns per op, merged; else NULL */
	double timer_ns;          /* --latency: two timer reads back to back, mean over threads */
	int64_t bytes_per_op;     /* payload an op sends (tcp); 0: none */
};

struct load_proc {
	pid_t pid;                /* our child: the workload, or the tool that wraps it */
	int pidfd;
	pid_t load_pid;           /* the workload, from its ready line; -1 before it */
	int load_pidfd;           /* its pidfd when it is not our child (wrapped); else -1 */
	int wrapped;              /* a tool's command came before the workload's */
	pid_t pgid;               /* cmd: workload: the command's process group; 0: none */
	int start_w;              /* we write the go byte here */
	int result_r;             /* ready line, then result line */
	char *buf;                /* what the load wrote and we have not consumed */
	size_t len, cap;
	char err[256];            /* why the last call failed */
};

/*
 * Fork and exec the load; @t (may be NULL) gets child_prep in the child, and
 * when it wraps (tracer_wrap()), its words come before the load's.
 */
int load_spawn(struct load_proc *lp, const struct load_spec *spec, struct tracer *t);
int load_wait_ready(struct load_proc *lp, int timeout_ms);
int load_go(struct load_proc *lp);
/* Fills @res (release it with load_result_release(), also after a failure). */
int load_read_result(struct load_proc *lp, int timeout_ms, struct load_result *res);
void load_result_release(struct load_result *res);
/*
 * Waits until the workload is gone without reaping it (a ptrace tracer may
 * still look); when wrapped, the tool that wraps it may still run.
 */
int load_wait_exit(struct load_proc *lp, int timeout_ms);
/* Reaps it; kills it first if it is still there. Returns its wait status or -1. */
int load_reap(struct load_proc *lp);
void load_kill(struct load_proc *lp);

#endif
