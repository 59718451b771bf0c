/* The tracer interface: one file per tracer under src/tracers/, each ending
 * in one `const struct tracer_ops`, listed once in tracers/tracers.def. */
#ifndef TRACETAX_TRACER_H
#define TRACETAX_TRACER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/cmdline.h"
#include "base/owner.h"
#include "load/syscalls.h"

#define TT_REASON_MAX 256

/*
 * Return values of supported(), setup() and the other ops. TT_SKIP is the
 * kernel or the system refusing a mechanism (EPERM, a missing config or
 * feature, no such hook): the reason says what it refused, in its words.
 * TT_FAIL is ours: a program of ours the verifier rejects, a libbpf error
 * on a feature the kernel has, a cross-check that does not add up; the
 * reason names what failed or the two numbers that disagree.
 */
enum { TT_OK = 0, TT_SKIP = 1, TT_FAIL = -1 };

/* What one traced run of the workload cost the tracer. */
struct tt_hits {
	int64_t hits;        /* events the tracer saw; -1: it cannot tell */
	int64_t lost;        /* events it saw but lost (overwritten, dropped) */
	int64_t stops;       /* ptrace: every stop it serviced; else -1 */
	double consumer_ns;  /* CPU time of a reader/supervisor we run; 0 if none */
	/*
	 * CPU time of the kernel thread that hands the tracer's records to that
	 * consumer (audit: kauditd) over the run; NaN: none, or not measurable
	 * here (the tracer's note says why). Never 0 for "unknown".
	 */
	double kernel_consumer_ns;
	/*
	 * How long the kernel held the workload back on the tracer's full
	 * buffer during the run, in the kernel's own unit (audit: jiffies of
	 * backlog_wait_time_actual); -1: the tracer cannot tell.
	 */
	int64_t waited;
	double startup_ms;   /* a tool: launch to attached; 0 if none */
	double shutdown_ms;  /* a tool: detach (or the workload's exit) to its exit; 0 if none */
};

/*
 * The kernel's own count of a BPF tracer's program (bpf_prog_info), since
 * it was loaded: run_time_ns grows only while BPF stats are on.
 */
struct tt_prog_stats {
	uint64_t run_ns;     /* run_time_ns */
	uint64_t run_cnt;
};

/* The steps of an event's path that --explain shows (tracer_ops.explain). */
enum tt_step { TT_STEP_SYSCALL, TT_STEP_HOOK, TT_STEP_DISPATCH, TT_STEP_PROGRAM,
	       TT_STEP_MAP, TT_STEP_READER, TT_NSTEPS };

struct tracer;
struct workload;

/* What a tracer needs the workload to offer (tracer_ops.hooks). */
#define TT_HOOK_SYSCALL 0x1   /* a syscall: t->target */
#define TT_HOOK_FUNC    0x2   /* a function call: t->func in t->func_path */
#define TT_HOOK_USDT    0x4   /* a USDT site: t->workload->usdt in t->load_path */
/* With TT_HOOK_SYSCALL: any tracepoint, --target SYSTEM:EVENT, in place of the
 * syscall's own (t->tp_system, t->tp_event); without it the plan skips such a cell. */
#define TT_HOOK_TRACEPOINT 0x8
#define TT_HOOK_UST     0x10  /* an LTTng-UST tracepoint in the loop: workload_ust(t->workload) */
/* With TT_HOOK_SYSCALL: every syscall, the target raw_syscalls:sys_enter (a cmd:
 * workload's default): t->target is then NULL, and the tool traces them all. */
#define TT_HOOK_ALLSYS  0x20
/* With TT_HOOK_SYSCALL: any kernel function, --target kfunc:NAME, in place of
 * the syscall's (t->tp_system "kfunc", t->tp_event NAME: tracer_kfunc()). */
#define TT_HOOK_KFUNC   0x40
#define TT_KFUNC_PREFIX "kfunc:"

/* What the core may know about a tracer (tracer_ops.flags). */
#define TT_F_AA         0x1   /* attaches nothing: its cell is the run's A/A test */
#define TT_F_TOOL       0x2   /* an external tool (@tools): not in @mechanisms, the default plan */
/* Changes what is the box's (audit): run only when named, or by a pattern that names its
 * family ('audit:*'); never by the default plan, 'all', '*' or a group. */
#define TT_F_OPTIN      0x4
/* Its own filters decide which events it records (audit:rules: the rule set's auid,
 * success, path...): its hits are at most the events, not the events (results.h,
 * HITS_UPTO; copied into the cell as hits_upto). */
#define TT_F_HITS_UPTO  0x8
/* Enabling it gives every task started until reboot the syscall slow path (audit's
 * audit_ever_enabled): refused on a boot that never had it, unless the user accepts
 * the residue (--accept-audit-residue) or the run is in a guest (measure/slowpath.h). */
#define TT_F_RESIDUE    0x10

struct tracer_ops {
	const char *name;             /* stable: "ptrace:all", "bpf:tp" */
	unsigned hooks;               /* TT_HOOK_*: the core skips cells that lack it */
	const char *summary;          /* one line for `tracetax list` */
	const char *const *variants;  /* NULL-terminated, first is default; NULL: none */
	unsigned flags;               /* TT_F_* */
	/* What using it leaves on the box that tracetax cannot undo, and the remedy (`list`);
	 * NULL: nothing. */
	const char *caveat;
	/*
	 * The family's own description, for a file that serves several
	 * families (ftrace:syscall and ftrace:raw): what differs between them
	 * is data here, never a comparison of names.
	 */
	const void *data;
	/*
	 * A family whose name takes an argument after ':' (cmd:'TEMPLATE'):
	 * checks it when the name is parsed, 0 or -1 with one line in @err.
	 * The argument is then t->variant. NULL: a name without one.
	 */
	int (*parse_arg)(const char *arg, char *err, size_t len);
	/*
	 * TT_OK when the tracer can run here, else TT_SKIP with the kernel's or
	 * the system's reason in @reason. Must probe, not guess.
	 */
	int (*supported)(const struct tracer *t, char *reason, size_t len);
	/* Once per cell: load programs, create the tracefs instance... */
	int (*setup)(struct tracer *t);
	/*
	 * A tool that wraps the workload (strace -f -o FILE ...): the words to
	 * put before the workload's command line, NULL-terminated, the first an
	 * absolute path; NULL: this run is not wrapped. Called in the parent
	 * before fork. The pid spawned() gets is then the tool's, the workload
	 * is its child, and start() gets the workload's pid from its ready line.
	 */
	char *const *(*wrap)(struct tracer *t);
	/*
	 * In the parent, right before a traced run's workload is forked (not
	 * an untraced one's): what the kernel decides at fork (audit). TT_OK,
	 * or TT_FAIL with t->err.
	 */
	int (*prefork)(struct tracer *t);
	/* In the forked child, before exec (seccomp filters). Return -1 on error. */
	int (*child_prep)(struct tracer *t);
	/* In the parent right after fork, before the workload is ready. */
	int (*spawned)(struct tracer *t, pid_t pid);
	/* After the workload is ready and before it is told to go; @pid: the workload's. */
	int (*start)(struct tracer *t, pid_t pid);
	/*
	 * After the workload wrote its result (and exited): counts, detach.
	 * For a run that wraps, also after a failed one that never started.
	 */
	int (*stop)(struct tracer *t, struct tt_hits *out);
	/* Always called, also after a partial setup or a failed run. */
	void (*teardown)(struct tracer *t);
	/*
	 * Optional (BPF tracers), between setup() and teardown(): the cell's
	 * program's counters. The core reads them around a traced run made
	 * with BPF stats on, after the reps, never during them.
	 */
	int (*prog_stats)(struct tracer *t, struct tt_prog_stats *out);
	/*
	 * Optional, for --explain: what step @s of an event's path is with
	 * this tracer, into @buf; 0, or -1 when it has no such step. *@ref
	 * (when not NULL): the variant of the same family without this
	 * step, whose program time tells the step's share.
	 */
	int (*explain)(const struct tracer *t, enum tt_step s, char *buf, size_t len,
		       const char **ref);
};

struct tracer {
	const struct tracer_ops *ops;
	char name[TT_NAME_MAX];      /* full name: "bpf:tp/count", "cmd:'strace -f {cmd}'" */
	const char *variant;         /* NULL or the part after '/' */
	int vidx;                    /* index of variant in ops->variants; 0 without */
	const struct tt_syscall *target; /* syscall hooked (--target); NULL: none */
	/*
	 * The tracepoint a TT_HOOK_TRACEPOINT tracer hooks: the target
	 * syscall's syscalls:sys_enter_<name>, or --target SYSTEM:EVENT
	 * (tracer_set_tracepoint(); target is then NULL). "" without either.
	 */
	char tp_system[32], tp_event[64];
	const struct workload *workload;
	const char *func;            /* function each op calls; NULL: none */
	const char *func_path;       /* the ELF file that defines it */
	int64_t load_recorded;       /* records the workload made itself (inline), -1: none */
	int tracer_cpu;              /* CPU for a tracer that the workload waits on
	                                (ptrace helper, seccomp supervisor); -1: any */
	int threads;
	int64_t events_hint;         /* events one run will make, to size buffers */
	const char *load_path;       /* the tracetax-load binary */
	const char *tool_ready;      /* --ready, --hits: EREs for cmd: tracers; NULL: none */
	const char *tool_hits;
	const char *audit_rules;     /* --audit-rules FILE for audit:rules; NULL: none */
	/* the rule set audit:rules loaded (setup): its digest (audit_nl.h), its rules; "": none */
	char rules_digest[24];
	int rules_loaded;
	/*
	 * tracetax rate: the kernel buffer's size in events for the next run,
	 * where the tracer sets one (audit's backlog limit); 0: its own.
	 */
	int64_t buffer_events;
	void *priv;
	char err[TT_REASON_MAX];     /* why the last call failed or skipped */
	/*
	 * What a reader of the figures must know that is neither a skip nor a
	 * failure (a buffer capped below what the run needs): tracer_note()
	 * adds it, and the core puts it in the cell's note and its JSON.
	 */
	char note[TT_REASON_MAX];
	/*
	 * Runs whose load a full kernel buffer held back (audit's backlog
	 * wait), of the runs stopped, and the kernel's count of it (jiffies):
	 * summed over the cell's visits so that its note says it once.
	 */
	int64_t held_runs, held_of, held_total;
	/*
	 * After the reps, the step under way ("latency", "stats-pass",
	 * "stats-cost"); NULL during them. Only for TRACETAX_FAULT's
	 * "stop-in-<phase>": a failure there must not cost the reps' figures.
	 */
	const char *phase;
};

/* Registry (tracers/registry.c). */
extern const struct tracer_ops *const tracer_table[];
/* The family of "cmd:ARG" (or bare "cmd"): one that takes an argument; NULL: none. */
const struct tracer_ops *tracer_ops_with_arg(const char *full);
/* "bpf:tp/count" -> the ops of "bpf:tp" and variant "count" (default when none);
 * "cmd:ARG" -> the ops of "cmd" and ARG, checked by its parse_arg. */
const struct tracer_ops *tracer_ops_find(const char *full, const char **variant_out,
					 char *err, size_t errlen);

/* Tracers report errors through this: sets t->err, returns TT_FAIL. */
int tracer_error(struct tracer *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int tracer_skip(struct tracer *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/*
 * Sets the part of t->note that begins with @prefix to the formatted text
 * (which should begin with @prefix): in place where there is one, added
 * at the end otherwise. For a figure that grows over the cell's runs.
 */
void tracer_note_set(struct tracer *t, const char *prefix, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Adds "; "-separated to t->note (once: a repeated text is not added twice). */
void tracer_note(struct tracer *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Core wrappers (tracer.c): own the error reporting and teardown rules. */
int tracer_init(struct tracer *t, const char *fullname, const struct tt_syscall *target,
		char *err, size_t errlen);
int tracer_supported(const struct tracer *t, char *reason, size_t len);
/* --target SYSTEM:EVENT: hook that tracepoint, not a syscall. 0, or -1 if it is not one. */
int tracer_set_tracepoint(struct tracer *t, const char *target);
/* --target kfunc:NAME: NAME, the kernel function to hook; NULL otherwise. */
const char *tracer_kfunc(const struct tracer *t);
/*
 * The core calls ops only through these: they own the rules of tracer.h.
 * tracer_setup() tears down itself when setup fails (partial or not), so a
 * caller tears down only after a successful setup; tracer_stop() must
 * follow every tracer_start(), failed or not; tracer_teardown() is safe to
 * call twice. Each returns TT_OK, TT_SKIP or TT_FAIL with t->err set.
 *
 * TRACETAX_FAULT (a test switch, docs/method.md) makes a chosen op of a
 * chosen tracer fail after the op itself ran, so that tests can show
 * nothing is left behind: "bpf:tp/count@setup,ptrace:all@stop".
 */
int tracer_setup(struct tracer *t);
char *const *tracer_wrap(struct tracer *t);
/* Before a traced run's fork (NULL @t: an untraced run, nothing to do). */
int tracer_prefork(struct tracer *t);
int tracer_spawned(struct tracer *t, pid_t pid);
int tracer_start(struct tracer *t, pid_t pid);
int tracer_stop(struct tracer *t, struct tt_hits *out);
void tracer_teardown(struct tracer *t);
/* The ops above for the core: TT_SKIP when the tracer has no program, or no such step. */
int tracer_prog_stats(struct tracer *t, struct tt_prog_stats *out);
int tracer_explain(const struct tracer *t, enum tt_step s, char *buf, size_t len, const char **ref);
/* Whether TRACETAX_FAULT names @op of @t ("setup", "verifier"...): for tracers' own faults. */
int tracer_fault(const struct tracer *t, const char *op);
/* Pins the calling thread to t->tracer_cpu, when one is set (--tracer-cpu). */
void tracer_place_self(const struct tracer *t);

/*
 * What the tracers of a tracetax killed by SIGKILL left behind that is not
 * a tracefs instance (the tools' working directories, LTTng's daemon
 * files): removed when their owner is gone. @removed counts them; @kept
 * (may be NULL) hears of each one kept, and why; @foreign (may be NULL) of
 * each working directory not ours (workdir_cleanup_stale).
 */
int tracers_cleanup_stale(int *removed, owner_kept_fn kept, owner_kept_fn foreign);

/*
 * What this run's audit cells left behind (tracers/audit/audit.c): a fresh
 * process's getpid in CPU ns before tracetax first enabled audit, with its
 * "-a never,task" rule in, and now, after the cells put audit back (measured
 * by this call). False when no audit cell enabled audit. @was_on: audit was
 * already on before (an earlier enable of this boot already left the residue).
 */
bool tracers_audit_residue(double *before_ns, double *never_ns, double *after_ns, bool *was_on);

/*
 * Loading BPF outside a tracer (measure/pair.c, measure/syscheck.c): the
 * same capture of libbpf's words and the same verdicts as the BPF tracers
 * (tracers/bpf/bpf_util.c), so a refusal reads the same wherever it comes.
 */
struct bpf_object;
struct bpf_program;
/*
 * Route libbpf's output to debug() and keep its first warning and the last
 * lines of a verifier log; clears both.
 */
void tt_bpf_capture(void);

/*
 * Whether we may load and attach tracing BPF programs: root's
 * CAP_SYS_ADMIN, or CAP_BPF with CAP_PERFMON. 1, or 0 with why in @reason
 * ("needs root, or CAP_BPF and CAP_PERFMON").
 */
int tt_bpf_caps_ok(char *reason, size_t len);

/* "Operation not permitted (EPERM)": what the kernel said, and its name. */
const char *tt_bpf_errstr(int e, char *buf, size_t len);

/*
 * After a failed load of @prog in @obj, with the kernel's or libbpf's
 * errno @e: the rule of docs/tracers.md. If the verifier spoke, a kernel
 * that lacks a helper, kfunc or instruction we use is TT_SKIP, any other
 * rejection TT_FAIL with the log's last lines. If it did not: EPERM,
 * EACCES (not allowed), ENOENT, EOPNOTSUPP, ENOTSUPP, E2BIG (not here)
 * are TT_SKIP; EINVAL is TT_SKIP when the kernel lacks the program type or
 * a map type of @obj (libbpf's probes), else TT_FAIL; anything else is
 * TT_FAIL. @err names @what.
 */
int tt_bpf_load_verdict(int e, const struct bpf_object *obj, const struct bpf_program *prog,
			const char *what, char *err, size_t len);

/*
 * After a failed attach, errno @e: the kernel refusing the hook (EPERM,
 * EACCES, ENOENT, ENODEV, EOPNOTSUPP, ENOTSUPP, EINVAL) is TT_SKIP,
 * anything else TT_FAIL.
 */
int tt_bpf_attach_verdict(int e);

#endif
