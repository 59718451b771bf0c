/*
 * The consumers' list (consumers.c): every tracing consumer on this
 * machine, and who holds it, as the scanners of this folder fill it
 * (scan.h runs them): the detailed,
 * attributed form of the probe in activity.h, for `tracetax budget
 * --attached`. Read only: /proc, tracefs and the BPF object ids are read,
 * nothing is written, enabled or attached. Two things are opened and closed
 * again: a BPF object by its id or pin (to read its info), and another
 * process's perf event fd (pidfd_getfd, to read its count).
 *
 * Found:
 *   - BPF programs of the tracing types (tracepoint, raw_tracepoint,
 *     kprobe, perf_event, tracing: fentry/fexit, lsm), each with its attach
 *     points (bpf_task_fd_query on the holders' perf-event and link fds, the
 *     link's info for fentry/fexit), its holders (/proc/PID/fdinfo: prog_id,
 *     link_id) and pins (bpffs); run_cnt and run_time_ns as the kernel has
 *     them (they grow only while BPF stats are on)
 *   - perf events that other processes hold without a BPF program (perf
 *     trace, perf record), per process, with their counts
 *   - ftrace: the top level and each instance with events or a tracer on,
 *     their readers (processes with a file of theirs open), the per-CPU
 *     written, lost and dropped counts; dynamic (kprobe, uprobe) events
 *   - processes under ptrace (TracerPid) and under seccomp filters, with
 *     their supervisor (the tracer, where there is one)
 *   - audit rules, where audit is enabled (read over netlink: AUDIT_GET, the rule list)
 *
 * What is this process's is left out, as activity.h does.
 */
#ifndef TRACETAX_ATTACH_CONSUMERS_H
#define TRACETAX_ATTACH_CONSUMERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum att_kind { ATT_BPF, ATT_PERF, ATT_FTRACE, ATT_DYNEVENT, ATT_PTRACE, ATT_SECCOMP, ATT_AUDIT };

#define ATT_MAX_HOLDERS 8
#define ATT_MAX_COUNTS 64

/* A process that holds or supervises a consumer. */
struct att_proc {
	pid_t pid;
	char comm[16];
	char cmdline[128];        /* argv, space separated, cut */
};

/* One perf event's count, by its id (PERF_EVENT_IOC_ID): deltas pair them. */
struct att_count {
	uint64_t id;
	uint64_t value;
};

struct att_consumer {
	enum att_kind kind;
	char key[160];            /* its identity across samples: "bpf prog 42", "perf pid 7" */
	char mech[32];            /* tracepoint, raw_tracepoint, kprobe, uprobe, fentry, ftrace, ptrace... */
	char what[512];           /* attach points, events, the tracee, the rule */
	char name[64];            /* BPF program's name, instance's name */
	uint32_t prog_id;
	char pin[256];            /* a bpffs path it is pinned at; "" none */
	struct att_proc holders[ATT_MAX_HOLDERS];
	int nholders;
	/*
	 * ftrace: how its readers read it, from the file they hold: "pipe"
	 * (the text trace_pipe), "mmap" (a per-CPU trace_pipe_raw mapped),
	 * "splice" (trace_pipe_raw held by trace-cmd, which splices), "read"
	 * (trace_pipe_raw otherwise), "" (no reader: none, or other files only)
	 */
	char reads[8];
	pid_t target;             /* ptrace, seccomp: the process whose syscalls it sees */
	char target_comm[16];
	/* counters as read at the sample (@t: when, now_s()); counted false: @why says why not */
	bool counted;
	double t;
	char why[160];
	uint64_t run_cnt, run_ns;             /* BPF */
	uint64_t written, lost;               /* ftrace, over every CPU */
	struct att_count counts[ATT_MAX_COUNTS];  /* perf */
	int ncounts;
};

struct att_list {
	struct att_consumer *v;
	size_t n, cap;
	bool bpf_unknown;         /* BPF objects could not be listed (no permission) */
	bool tracefs_unknown;
	bool proc_partial;        /* some processes could not be read (not root) */
	char audit[160];          /* "off", "on (enabled 1), N rules", "unknown: ..." */
};

/* The consumer of @key in @l, or NULL. */
const struct att_consumer *att_find(const struct att_list *l, const char *key);
const char *att_kind_name(enum att_kind k);
void att_release(struct att_list *l);
/* A new zeroed consumer at the end of @l (NULL: out of memory). */
struct att_consumer *att_add(struct att_list *l, enum att_kind kind);
/* comm and cmdline of @pid; a process gone meanwhile keeps its pid and "?" */
void att_proc_read(pid_t pid, struct att_proc *p);
/* @pid as a holder of @c (once; at most ATT_MAX_HOLDERS) */
void att_holder_add(struct att_consumer *c, pid_t pid);

#endif
