/*
 * The cmd:'COMMAND' workload: the user's program, run to completion once
 * per run, baseline and traced in the plan's order. The load execs it in
 * its own place at go (same pid: a tracer told the load's pid traces the
 * command), in a process group of its own that every run's end kills.
 *
 * Events are not the command's to tell: a counting pass of untraced runs
 * counts its target tracepoint (raw_syscalls:sys_enter, or --target) with
 * perf counters inherited by its whole process tree, enabled at its exec.
 * A run is then one op of that many events: its ns per op is the run's
 * wall time / events per run, so the core's overhead is per event.
 */
#ifndef TRACETAX_CMDLOAD_H
#define TRACETAX_CMDLOAD_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/cmdline.h"

struct load_proc;
struct load_result;

/* What a command's events are without --target: its every syscall. */
#define CMDLOAD_TARGET "raw_syscalls:sys_enter"
/* --cmd-timeout: a run still going after this many seconds is killed. */
#define CMDLOAD_TIMEOUT_S 60
/* The command's stdout and stderr, in its directory. */
#define CMDLOAD_OUTPUT_FILE "output"

struct cmdload {
	struct cmdline line;
	char path[PATH_MAX];       /* line.w[0] found in PATH */
	char dir[PATH_MAX];        /* private temporary directory */
	char out[PATH_MAX];        /* the command's stdout and stderr: dir/output */
	bool keep;                 /* a run failed: its output stays for the reader */
	int exit_status;           /* of the failed run, 128+N for signal N; -1: none */
	int timeout_ms;
	bool counting;             /* this run counts events (the pass's runs) */
	char tp_system[32], tp_event[64];  /* what it counts: the cell's target */
	int fd_tree, fd_main;      /* its counters: the process tree, the first process */
	int64_t events;            /* per run, the pass's mean */
	int64_t main_events;       /* of the command's first process alone */
	double events_cv;
	double run_ms;             /* the pass's mean wall time, untraced */
};

/* Whether @workload ("cmd:'...'") splits; 0, or -1 with one line in @err. */
int cmdload_check(const char *workload, char *err, size_t len);
/* In a run, once the load is ready: the process group, the counters. */
int cmdload_ready(struct cmdload *cl, struct load_proc *lp);
/* Go, then wait for the command's exit (at most timeout_ms): its figures into @res. */
int cmdload_go_wait(struct cmdload *cl, struct load_proc *lp, struct load_result *res);
/*
 * A failed run: with @st a wait status other than 0, @why becomes the
 * command's status and its last line of output; the output is then kept
 * and @why names it.
 */
void cmdload_failed(struct cmdload *cl, int st, char *why, size_t len);

/* Its perf counters closed (a run that failed, the cell's end). */
void cmdload_close_counters(struct cmdload *cl);

#endif
