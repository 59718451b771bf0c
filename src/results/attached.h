/*
 * `tracetax budget --attached`'s model (data only): every tracing consumer
 * found on the box (attach/consumers.h) with what it took over the window
 * (measure/attached.c), and the processes that hold them.
 */
#ifndef TRACETAX_RESULTS_ATTACHED_H
#define TRACETAX_RESULTS_ATTACHED_H

#include <stdbool.h>
#include <stdint.h>

#include "attach/consumers.h"
#include "results/budget.h"

/*
 * A consumer's cost per event: its program's own time (BPF, measured over
 * the window) plus its mechanism's dispatch, measured by a tracer of
 * tracetax on this host (the tracer's overhead less that tracer's own
 * program time, as --explain derives it). No program: the overhead is all
 * dispatch. No dispatch to be had: the program time alone, a floor.
 */
struct att_cost {
	char tracer[64];          /* whose measured overhead stands for the dispatch; "" none */
	char source[16];          /* "store", "measured", "" */
	char why[200];            /* why no dispatch (floor) or no cost */
	int64_t run_id;           /* the stored run's (the first workload's); 0 */
	/*
	 * The workloads the tracer's cost comes from, ", "-joined: the store's
	 * every syscall workload that has one (budget --attached takes them
	 * all: a mechanism's cost differs by syscall, perf trace's most); with
	 * more than one, cell_ns is their mean and [cell_lo, cell_hi] runs from
	 * the lowest lower bound to the highest upper bound among them.
	 */
	char workloads[96];
	int nworkloads;
	/* each CPU's events (the box's syscalls per CPU, the counter's) at the
	 * CPU's own stored cost (run --placement rotate), for every workload */
	bool per_cpu_weighted;
	double cell_ns, cell_lo, cell_hi;   /* the tracer's overhead per event, 95% CI */
	double cell_prog_ns;      /* that tracer's own program time; 0 none; NaN not measured */
	double prog_ns;           /* this consumer's program, per event; 0 none */
	double disp_ns, disp_lo, disp_hi;   /* dispatch per event; NaN: unknown */
	bool floor;               /* the dispatch unknown: ns is the program time alone */
	double ns, lo, hi;        /* per event; NaN: no cost */
	double share, share_lo, share_hi;   /* % of the box's CPU */
	double bpftop_share;      /* run_time_ns / run_cnt x rate, % of the box; NaN: not BPF */
};

/*
 * What a consumer costs the syscalls it does not see (docs/budget.md,
 * "The collateral"). A syscall tracepoint (ftrace, perf or BPF, and
 * raw_syscalls) puts every task on the box on the syscall slow path while
 * it is registered: each of their other syscalls pays the slow path and
 * the probe's test, measured by the same tracer with --target (`run -w
 * getpid -t TRACER --target close`: what a hook on close costs getpid).
 * ptrace, seccomp and audit already count every syscall of their tasks
 * as seen: they have no collateral beyond it.
 */
#define ATT_COLL_WORKLOAD "getpid"
#define ATT_COLL_TARGET "close"

struct att_collateral {
	bool box;                 /* it taxes every task's other syscalls */
	bool shared;              /* another consumer carries the box's slow path (carrier) */
	int carrier;              /* the row that carries it; -1: itself or none */
	char why[240];            /* why it is 0, shared, or has no cost */
	char tracer[64];          /* whose --target cell gives the cost */
	char workload[32], target[32];
	char source[16];          /* "store", "measured", "" */
	int64_t run_id;
	int64_t events;           /* the box's syscalls it does not see, over the window; -1 n/a */
	double rate;              /* their rate; NaN n/a */
	double cell_ns, cell_lo, cell_hi;  /* per syscall, 95% CI; NaN none */
	double share, share_lo, share_hi;  /* % of the box's CPU; NaN none */
};

/* What a consumer took over the window. */
struct att_row {
	struct att_consumer c;    /* as found at the window's start (its end: "appeared") */
	/*
	 * "counted": both ends read, events is its count; "gone": there at the
	 * start, not at the end; "appeared": the other way; "not counted": why
	 * says. Only "counted" has events; the others' are -1, never 0.
	 */
	char state[16];
	char why[200];
	char source[48];          /* where the count comes from: "bpf run_cnt", "ftrace stats"... */
	double seconds;           /* its window */
	int64_t events;           /* -1: not counted */
	/* events/s, at its pace: the rate without budget's counter (rates.pace, or its
	 * process's for a syscall row); NaN: not counted */
	double rate;
	double pace;
	int64_t lost;             /* ftrace: overwritten or dropped in the window; -1: n/a */
	int64_t run_cnt;          /* BPF stats over the window */
	double run_ns;
	double prog_ns;           /* run_ns / run_cnt; NaN: no run or no stats */
	struct att_cost cost;     /* of the events it sees */
	struct att_collateral coll;   /* of the syscalls it does not see */
};

/*
 * A holder's own CPU over the window: its threads' CPU time at the window's
 * end less at its start (measure/attached.c), for the first holder of every
 * consumer. NaN with why when not read: gone, appeared, never 0.
 */
struct att_own {
	pid_t pid;
	double ns;
	char why[96];
};

/* The consumers one process holds or supervises (pid 0: nobody found: "unknown owner"). */
struct att_owner {
	struct att_proc p;
	int nrows;
	int nuncounted;           /* rows without a count: its rate is then a floor */
	double rate;              /* sum of its counted rows' events/s */
	double prog_ns_total;     /* sum of counted BPF run_ns / seconds: ns of CPU per s */
	double share, share_lo, share_hi;   /* % of the box: its costed consumers', their
	                                       collateral with; NaN none */
	double coll_share;        /* of it, the collateral */
	double bpftop_share;
	int nfloor;               /* consumers whose share is a floor or unknown */
	int ncosted;
	/*
	 * Its own CPU over the window (the agent's user side: auditd writing its
	 * log, perf trace formatting, a trace_pipe reader), % of the box; NaN:
	 * own_why says why. own_added false: its consumers' cost holds it
	 * already (a ptrace or seccomp supervisor, whose tracee waits while it
	 * works; kauditd in the no-auditd floor), own_why says so.
	 */
	double own_share;
	bool own_added;
	char own_why[160];
};

struct attached {
	double seconds;           /* the window, measured */
	int cpus;
	struct att_row *rows;
	int nrows;
	struct att_owner *owners;
	int nowners;
	bool bpf_unknown, tracefs_unknown, proc_partial;
	char audit[160];
	bool stats_on;            /* BPF stats on for the window (BPF_ENABLE_STATS) */
	char stats_why[200];      /* why not */
	int stats_sysctl_before, stats_sysctl_after;  /* kernel.bpf_stats_enabled, -1 unreadable */
	struct budget_rates rates;   /* the syscall counter's window */
	char rates_why[256];      /* the counter could not run: syscall-hooking rows not counted */
	double share, share_lo, share_hi;   /* every costed consumer's, % of the box; NaN none */
	double seen_share, seen_lo, seen_hi;   /* of it, the events the consumers see */
	double coll_share, coll_lo, coll_hi;   /* of it, their collateral; NaN: none costed */
	/*
	 * Whether this box's tasks take the syscall slow path already: the
	 * audit residue (audit enabled once on this boot: every task forked
	 * since has an audit context). 1 yes (the collateral is then 0), 0 no,
	 * -1 not known; residue_how says how it was told.
	 */
	int residue;
	char residue_how[200];
	/*
	 * The audit rules loaded (the "audit rules" row; audit_set), read from the kernel
	 * and summarised as budget -t audit:rules summarises a file; its walk
	 * and record costs (the caller's), and audit->box, the box's calls by
	 * login uid and syscall over the window priced by them
	 * (budget_audit_estimate, in attached_costs). NULL: no rule, or
	 * audit_why says why they could not be read.
	 */
	struct budget_audit *audit_set;
	char audit_why[200];
	char audit_walk_how[200];  /* which cost stands for the walk, in words */
	double audit_owner_cpu_ns; /* the audit row's owner's CPU over the window; NaN unread */
	struct att_own *own;      /* the holders' own CPU (measure), by pid */
	int nown;
	/*
	 * The owners' own CPU, % of the box: own_share the sum of those added to
	 * the consumers' share (NaN: none read), own_in_cost the others' (already
	 * in their consumers' cost); own_unread the owners without a figure
	 */
	double own_share, own_in_cost;
	int own_unread;
	double bpftop_share;      /* bpftop's method over the same BPF programs */
	int nfloor;
};

/* The tracer whose measured overhead stands for @r's dispatch; NULL: none measures it. */
const char *attached_tracer_of(const struct att_row *r);
/*
 * The syscall @r hooks, from its attach point, into @buf: "getuid" for
 * sys_enter_getuid; "" for every syscall (raw_syscalls, perf trace, a
 * ptrace or seccomp supervisor: all of their tasks'). false: it hooks no
 * one syscall or set of them that budget can tell (kprobes, uprobes...).
 */
bool attached_syscall_of(const struct att_row *r, char *buf, size_t len);
/*
 * Whether @r puts every task on the box on the syscall slow path: a
 * syscall tracepoint (BPF, ftrace, perf trace), which taxes the syscalls
 * it does not see (its collateral, att_collateral).
 */
bool attached_box_slow_path(const struct att_row *r);
/*
 * Each counted row's cost and share from its cost.cell_* (filled by the
 * caller from the store or a measurement; cost.tracer "" or cell_ns NaN:
 * none), and the totals.
 */
void attached_costs(struct attached *a);
/*
 * Audit rules whose records go to the kernel log through kauditd, as no
 * auditd is registered: their records are not priced (no tracer measures
 * that path); the rule set's cost is a floor.
 */
bool attached_audit_no_auditd(const struct attached *a);
/*
 * A ptrace or seccomp row's events: those of its traced process (r->c.target)
 * in the syscall counter's table @all (@nall rows of at most @max; @unnamed:
 * the calls of processes it had no room for). Not in it: "not counted" when
 * the table was full (it may have made calls: never 0), "gone" when it has
 * exited (@alive false), else 0 events. Sets state, why and events.
 */
void attached_proc_events(struct att_row *r, const struct budget_proc *all, int nall, int max,
			  int64_t unnamed, bool alive);
/* The owners of @a's rows, by the first holder of each, with their shares (after the costs). */
void attached_owners(struct attached *a);
void attached_release(struct attached *a);

#endif
