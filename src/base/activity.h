/*
 * What else is tracing on this machine: a probe, read-only, cheap enough
 * to run between reps. Another tracer on the hook we measure adds its cost
 * to ours, or takes events from us (a BPF program on a tracepoint silences
 * perf there), so the environment records it once (other_tracers) and the
 * runner compares it before and after each cell (a cell during which it
 * changed is "disturbed").
 *
 * What is ours is left out: the instance tracetax-<pid>, dynamic events
 * of group tracetax_<pid>, and BPF programs this process holds an fd of.
 * Not seen: perf_event_open() users without BPF (perf record/stat on a
 * tracepoint), which leave no trace outside their own fds.
 */
#ifndef TRACETAX_ACTIVITY_H
#define TRACETAX_ACTIVITY_H

#include <stddef.h>
#include <sys/types.h>

/*
 * @items: one short line per thing, sorted (strverscmp: "bpf prog 9"
 * before "bpf prog 10"), each precise enough to tell two apart:
 *   bpf prog 42 'tt_attach_tp' (tracepoint)
 *   event syscalls:sys_enter_getpid           top-level set_event
 *   event sched:sched_switch in instance foo
 *   instance foo
 *   tracer function                           current_tracer, not nop
 *   tracer function in instance foo
 *   dynamic event p:kprobes/p_do_sys_open do_sys_open
 * @bpf_unknown: BPF programs could not be listed (no permission).
 * @tracefs_unknown: tracefs could not be read (not mounted, not root).
 */
struct activity {
	char **items;
	size_t n;
	int bpf_unknown;
	int tracefs_unknown;
};

/* 0, or -1 with errno (out of memory). Missing tracefs or BPF access is no error. */
int activity_sample(struct activity *a);
/*
 * Like activity_sample(), once what another process just let go of is
 * gone: the BPF programs of a tracetax (or any tracer) that exited a moment
 * ago linger until the kernel's grace period frees them, and a sample that
 * saw them would call their going a disturbance. Samples every 20 ms until
 * two in a row agree, for at most a second.
 */
int activity_sample_settled(struct activity *a);
void activity_release(struct activity *a);

/*
 * 1 if @before and @after differ, 0 if not. @buf gets
 * "appeared: bpf prog 42 'foo' (tracepoint); gone: event syscalls:sys_enter_getpid",
 * cut with "..." if it does not fit, or "" when they do not differ.
 */
int activity_diff(const struct activity *before, const struct activity *after, char *buf,
		  size_t len);

/*
 * One line for the environment's other_tracers: "bpf: unknown (no
 * permission)" and "tracefs: unknown (no access)" where they apply, then
 * the items, "; " separated, cut after an item with "... (N more)"; or "none".
 */
void activity_summary(const struct activity *a, char *buf, size_t len);

/*
 * Every BPF program this process loads is declared here (by its fd), so it
 * is never taken for another tracer, even while the kernel, having let go
 * of it, takes a grace period to free it. At exit the process waits (up to
 * 2 s) until the kernel has freed them all, so the next tracetax does not
 * see one of ours go and call its cell disturbed.
 */
void activity_own_bpf_prog(int fd);
/* The same for every BPF program process @pid holds: a tool we run (bpftrace). */
void activity_own_bpf_of(pid_t pid);

/* 1 if a BPF program of @type (BPF_PROG_TYPE_*) traces: kprobe, tracepoint, perf_event, raw_tp, tracing. */
int activity_bpf_tracing_type(unsigned int type);
/* 1 if BPF program @id is this process's: held by it, or loaded by it (declared above). */
int activity_bpf_ours(unsigned int id);

/*
 * A ptracer of any thread of @pid other than @ours (TracerPid in
 * /proc/<pid>/task/<tid>/status), 0 if none or if @pid is gone.
 */
pid_t activity_ptracer(pid_t pid, pid_t ours);

#endif
