/* The results of a run of tracetax: what the runner fills and output reads. */
#ifndef TRACETAX_RESULTS_H
#define TRACETAX_RESULTS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "base/cmdline.h"
#include "base/hist.h"
#include "results/stats.h"

enum cell_status { CELL_OK, CELL_SKIPPED, CELL_FAILED };

/* What ended a cell's reps. */
enum cell_end {
	END_REPS,        /* the --reps asked for */
	END_PRECISION,   /* --precision reached */
	END_MAX_TIME,    /* its share of --max-time ran out first */
	END_MAX_REPS,    /* RESULTS_MAX_REPS ran out first */
	END_STOPPED,     /* failed or interrupted */
};
#define RESULTS_MAX_REPS 10000

/* Their names, by the enum and NULL-ended, and a phrase for people (names.c). */
extern const char *const cell_status_names[];
extern const char *const cell_end_names[];
extern const char *const slow_cause_names[];   /* enum slow_cause, NULL-terminated */
const char *cell_status_name(enum cell_status s);
const char *cell_end_name(enum cell_end e);
const char *cell_end_phrase(enum cell_end e);

/* Exit codes of `tracetax run` (also in --help and the README). */
enum { EXIT_OK = 0, EXIT_FAILED = 1, EXIT_USAGE = 2, EXIT_DISTURBED = 3 };

/*
 * The exit code of two outcomes together, the same everywhere (run, pair,
 * an experiment's sections): interrupted (128+N, the first) over disturbed
 * (3) over failed (1) over ok. Disturbed wins over failed: another tracer
 * during the run can itself be why a cell failed, and its remedy -- run
 * again when the machine is quiet -- comes first; the failed cells are in
 * the table and the document either way.
 */
int exit_worst(int a, int b);

/* One workload thread: in a rep, its two runs; in a cell, means over reps. */
struct thread_fig {
	int cpu;                  /* the CPU it was pinned to; -1: none */
	double base_ns_per_op;    /* its hot loop / its iterations, baseline run */
	double traced_ns_per_op;  /* the same, traced run */
	int64_t events;           /* target events of its traced run(s), warm-up included */
};

/* One rep: a baseline run and a traced run of the same cell, back to back. */
struct rep {
	double base_ns_per_op;    /* mean over threads of hot-loop ns / ops */
	double traced_ns_per_op;
	double base_cycles_per_op;   /* TSC cycles; 0 when the TSC is unusable */
	double traced_cycles_per_op;
	int64_t events;           /* target events the traced run made (warm-up included) */
	int64_t hits;             /* the tracer's count; -1: it cannot tell */
	int64_t lost;
	int64_t stops;            /* ptrace stops serviced; -1 if not ptrace */
	double consumer_ns;       /* CPU time of our reader/supervisor thread */
	double kernel_consumer_ns; /* the kernel thread feeding it (audit: kauditd); NaN: none
	                             or not measurable */
	double startup_ms;        /* a tool: launch to attached; NaN: not a tool */
	double shutdown_ms;       /* a tool: detach (or the workload's exit) to its exit; NaN */
	bool traced_first;        /* the order this rep ran in */
	int round;                /* the round of the plan it ran in, from 0 */
	bool outlier;             /* MAD flag on its overhead */
	/* what the machine did meanwhile, on the CPUs the workload ran on */
	double wall_ms;           /* both runs, fork to reap */
	double steal_ms;          /* steal time (/proc/stat), both runs; NaN: unknown */
	double mhz_min, mhz_max;  /* CPU frequency read before, between and after the
	                             runs; NaN: the kernel does not say */
	struct thread_fig *threads;   /* cell.threads of them */
	double base_mops, traced_mops; /* all threads' ops / the slowest thread's time, M/s */
};

/*
 * --latency: every call of the hot loop timed, in runs of their own after
 * the reps (cell_latency), so that the overhead figures do not pay for it.
 */
struct cell_latency {
	int pairs;                /* baseline + traced latency runs completed */
	struct hist *base, *traced;   /* ns per call, merged over runs and threads */
	double base_ns_per_op;    /* the timed loops' ns/op, mean over runs */
	double traced_ns_per_op;
	double timer_ns;          /* two timer reads back to back: in every sample */
	double timing_cost_ns;    /* base_ns_per_op - the reps' baseline: what timing costs */
	int64_t events;           /* the traced latency runs' */
	int64_t hits;             /* -1: the tracer cannot tell */
	int64_t calls;            /* calls the traced runs timed: threads x iterations */
	int64_t base_calls;
};

/*
 * A BPF cell's program self-time, from traced runs after its reps with BPF
 * stats on (progstats.c): the kernel's run_time_ns / run_cnt.
 */
struct prog_time {
	bool bpf;                 /* the tracer runs a BPF program: a pass was due */
	bool measured;
	char reason[200];         /* why not measured: the kernel's refusal; "" */
	int runs;                 /* traced runs in the pass */
	int64_t run_cnt;          /* the program's runs during them */
	double run_ns;            /* their run_time_ns */
	double ns_per_run;        /* median over the pass's runs of run_ns / run_cnt */
	double range[2];          /* its min and max */
	int64_t hits, events;     /* of the pass's runs: run_cnt is checked against hits */
	double dispatch_ns;       /* overhead mean - ns_per_run (derived); NaN: unknown */
};

/* What BPF stats cost an event: one cell's traced runs with them on and off, once a run. */
struct stats_cost {
	bool measured;
	char tracer[TT_NAME_MAX], workload[TT_NAME_MAX];
	int threads;
	int pairs;
	double mean, ci95[2];     /* ns per event, on - off, paired */
};

/*
 * What audit leaves behind (tracers/audit): once audit has been on, every
 * task forked afterwards takes the syscall slow path until reboot. A fresh
 * process's getpid (CPU ns, best of 8 x 20000) before this tracetax first
 * enabled audit, with its "-a never,task" rule in, and after the run put
 * audit back. A fact of the run, said once, not a cell's. NaN: not measured.
 */
struct audit_residue {
	bool measured;            /* the run enabled audit */
	bool was_on;              /* audit was already on when tracetax first enabled it */
	double before_ns, never_ns, after_ns;
};

/*
 * Why a fresh task on this box takes the syscall slow path, before the run
 * touched anything (measure/slowpath.c): the syscall_work flags of a child
 * tracetax forked, read by a BPF program on task_newtask. On that path every
 * syscall pays the entry work once, so a syscall hook's measured cost is
 * marginal to it. Said only when something is there, or when it could not
 * be read (@known false, @unknown says why).
 */
enum slow_cause {
	SLOW_AUDIT,               /* an audit context: this boot has enabled audit */
	SLOW_TRACEPOINT,          /* a syscall tracepoint is enabled: every task */
	SLOW_SECCOMP,             /* tracetax, and what it starts, run under a seccomp filter */
	SLOW_PTRACE,              /* tracetax is traced (PTRACE_SYSCALL, SYSEMU, a single step) */
	SLOW_USER_DISPATCH,       /* syscall user dispatch */
	SLOW_NCAUSES
};
struct slow_path {
	bool probed;              /* the probe ran; false: a document from before it */
	bool known;
	char unknown[200];        /* why not known; "" */
	unsigned causes;          /* 1 << SLOW_* */
	int audit_enabled;        /* audit's enabled flag now (0, 1, 2); -1: unknown */
	char tracepoints[400];    /* the syscall tracepoints' consumers found; "" */
	double getpid_ns;         /* a fresh process's getpid, CPU ns a call; NaN */
	double never_task_ns;     /* the same with -a never,task loaded (audit); NaN */
};

/* The overhead of the reps whose thread 0 ran on one CPU (run --placement rotate). */
#define CELL_MAX_CPUS 16
struct cpu_overhead {
	int cpu;
	int n;                    /* reps */
	int rounds;               /* rounds it ran in: the CI's units (rounds - 1 df) */
	double mean, ci95[2];     /* ns per event, over its round means; the CI is NaN
	                             with one rep */
};

/* A cmd: workload's counting pass: its untraced runs, before the reps (measure/cmdload.c), */
#define CMDLOAD_COUNT_RUNS 3
/* and a count that varies more than this between them gets a note. */
#define CMDLOAD_EVENTS_CV_NOTE 0.02

struct cell {
	/* what */
	char workload[TT_NAME_MAX];
	char tracer[TT_NAME_MAX];
	char target[128];         /* syscall or tracepoint hooked; "" when the tracer hooks none */
	char verified_syscall[32]; /* what the workload's ops made, seen by the kernel; "" */
	int threads;
	char id[2 * TT_NAME_MAX + 160]; /* the plan's identity of the cell */
	uint64_t seed;            /* its own seed: rep order, bootstrap */
	bool aa;                  /* an A/A cell: its tracer attaches nothing */
	bool hits_upto;           /* its tracer's filters decide which events it records:
	                             hits at most the events (HITS_UPTO, TT_F_HITS_UPTO) */
	/* how it went */
	enum cell_status status;
	char reason[256];         /* skip or failure reason; "" when ok */
	int64_t iterations;       /* traced runs: per thread, hot loop only */
	int64_t warmup;           /* traced runs: per thread */
	int64_t base_iterations;  /* baseline runs, calibrated on their own */
	int64_t base_warmup;
	int nreps;                /* reps completed */
	int cap_reps;             /* room in reps */
	struct rep *reps;         /* nreps of them */
	enum cell_end ended_by;
	double precision_pct;     /* --precision asked for; 0: none */
	double reached_pct;       /* overhead CI half-width, % of |overhead| (A/A: of
	                             the baseline); NaN with fewer than 2 reps */
	int rounds;               /* rounds its reps ran in (results_finish_cell) */
	double between_share;     /* the variance of the overhead between rounds, share
	                             of the total (two-level); NaN with < 2 rounds */
	double repeat95[2];       /* where a rerun's overhead mean should land: the
	                             repeat interval (results_set_repeat); NaN where
	                             the CI is */
	bool disturbed;           /* other tracing changed during the cell */
	char disturbed_by[256];   /* what appeared or went away */
	char tracer_note[256];    /* what the tracer said a reader must know */
	/* totals over the traced runs */
	int64_t events;
	int64_t hits;             /* -1 when the tracer cannot count */
	int64_t lost;
	int64_t stops;            /* -1 when not ptrace */
	/* statistics, from results_finish_cell() */
	struct summary base;      /* ns/op of the baseline runs */
	struct summary traced;    /* ns/op of the traced runs */
	struct summary overhead;  /* ns per event: traced - base ns/op, paired per rep
	                             (the workload makes one target event per op) */
	double slowdown;          /* traced.mean / base.mean */
	double slowdown_ci95[2];  /* Fieller's interval on the paired means */
	double base_cv;           /* coefficient of variation of the baseline */
	int outliers;             /* reps flagged by MAD */
	double consumer_ns_per_event; /* our reader's CPU per event, 0 if none */
	double kernel_consumer_ns_per_event; /* the kernel thread's that feeds it (audit:
	                                        kauditd), per event; NaN: none or not measured
	                                        in every rep */
	double startup_ms, shutdown_ms; /* a tool's, mean over the traced runs; NaN: none */
	double steal_pct;         /* steal time, % of the reps' wall time; NaN: unknown */
	double mhz_min, mhz_max;  /* over every rep; NaN: unknown */
	bool below_floor;         /* |overhead| under the run's noise floor */
	struct prog_time prog;    /* BPF cells: the program's share */
	/* per hit, for a tracepoint that fires more or less often than the events */
	double hits_per_event;    /* hits / events; NaN when the tracer cannot count */
	double ns_per_hit;        /* overhead per event / hits_per_event; NaN: no hits */
	/* workloads that move bytes (tcp): throughput of all threads, 1 MB = 1e6 bytes */
	int64_t bytes_per_event;  /* payload each event sends; 0: not such a workload */
	double base_mbps, traced_mbps;  /* NaN when bytes_per_event is 0 */
	double loss_pct;          /* throughput lost to tracing: 100 (1 - base/traced ns) */
	double loss_ci95[2];      /* from the slowdown's Fieller interval */
	char note[512];           /* noise warning, hits mismatch... */
	/* threads (results_dist.c): each thread's figures, their spread, throughput */
	struct thread_fig *per_thread;  /* threads of them: means over reps, events summed */
	int cpus_used;            /* distinct CPUs the threads ran on; 0: unknown */
	double base_spread_pct;   /* (slowest - fastest) / mean thread ns/op, mean over
	                             reps; NaN with one thread */
	double traced_spread_pct;
	double base_mops, traced_mops;  /* aggregate throughput, M ops/s, mean over reps */
	struct cell_latency *lat; /* --latency; NULL without */
	/* per CPU of thread 0, when the reps ran on more than one (--placement rotate) */
	struct cpu_overhead per_cpu[CELL_MAX_CPUS];
	int nper_cpu;
	bool cpus_differ;         /* two CPUs differ, paired by round (results.c) */
	/* cmd: workloads (cmdload.c): events_per_run -1 for the load's own workloads */
	struct {
		int64_t events_per_run;  /* the counting pass's mean, whole process tree */
		int64_t main_events;     /* of the command's first process alone */
		double events_cv;        /* over the pass's runs */
		double run_ms;           /* the pass's mean wall time of a run, untraced */
		int exit_status;         /* a failed run's: its exit status, 128+N killed by
		                            signal N; -1: none */
		char output[256];        /* a failed run's output, kept; "" */
	} cmd;
	/*
	 * The rule set an audit:rules cell loaded (--audit-rules): its walk's
	 * cost is that set's. file "": none (another tracer, or not loaded).
	 */
	struct cell_rules {
		char file[1024];         /* as given */
		char digest[24];         /* audit/audit_nl.h's AUDIT_DIGEST_LEN - 1 hex digits */
		int rules;               /* loaded: the file's, less those the kernel refused */
	} audit_rules;
};

/* What tracetax times with, and what that costs (clocks.c, measured at the start). */
struct timing {
	char clock[32];           /* around each hot loop: "CLOCK_MONOTONIC" */
	double clock_ns;          /* one read of it, mean */
	double clock_res_ns;      /* clock_getres */
	int clock_vdso;           /* 1: the vDSO serves it, 0: a syscall, -1: unknown */
	char timer[32];           /* --latency, around each call: "lfence;rdtsc;lfence" */
	double timer_ns;          /* one read of it, mean */
	double tsc_hz;            /* the TSC rate, against CLOCK_MONOTONIC; 0: no TSC */
};

/*
 * The noise floor of one (workload, threads): what the A/A cell (a tracer
 * that attaches nothing) measured as an overhead. Smaller overheads cannot
 * be told from the noise: the floor is the far end of the A/A interval.
 */
struct noise_floor {
	char workload[TT_NAME_MAX];
	int threads;
	double ns;                /* max(|ci95[0]|, |ci95[1]|) of the A/A overhead */
	double ci95[2];
	bool excludes_zero;       /* the A/A interval misses 0: noise beyond the CIs */
};

struct environment {
	char kernel[128];         /* uname -r */
	char kernel_version[256]; /* uname -v */
	char arch[32];
	char cpu_model[128];
	int cpus;
	char clocksource[64];
	char virtualization[64];  /* "kvm", "none", ... */
	char mitigations[2048];   /* "meltdown: Not affected; spectre_v2: ...; " */
	char governor[64];
	char tracetax_version[64];
	char hostname[64];
	char started[32];         /* ISO 8601 UTC */
	char other_tracers[512];  /* tracing already active on the machine */
	char tools[512];          /* "strace 6.1; bpftrace v0.17.0; ..." */
	char vm[16];              /* "kvm", "tcg": in a VM of --kernel; "" */
	char unit[16];            /* "instructions": a TCG guest under qemu's -icount
	                             shift=0, whose clock counts instructions, so every
	                             *_ns figure is instructions (docs/vm.md); "": ns */
};

/* The unit of a run's figures: "instructions" or "ns". Never mixed (compare, budget). */
static inline const char *results_unit(const struct environment *e)
{
	return e->unit[0] == 'i' ? "instructions" : "ns";
}
static inline bool results_in_instructions(const struct environment *e)
{
	return e->unit[0] == 'i';
}

struct run_options {
	int reps;                 /* per cell, over every round */
	int rounds;               /* --rounds: the plan's rounds (before --precision adds) */
	int run_ms;
	int64_t iterations;       /* 0: calibrate per cell */
	uint64_t seed;
	char target[128];         /* --target, "" for the workload's own syscall */
	char tracer_cpu[8];       /* --tracer-cpu: same, other, any */
	double precision;         /* --precision %, 0: fixed reps */
	int max_time_s;           /* its budget */
	bool latency;             /* --latency */
	int msg_size;             /* --msg-size: bytes per message of the tcp workloads */
	char cpus[64];            /* --cpus LIST; "": the CPUs tracetax may use */
	bool rotate;              /* --placement rotate */
};

/*
 * The between-run drift the repeat intervals use (docs/method.md §5c, "The
 * repeat interval"): tau from this run and earlier runs in the store whose
 * cells stand for this host's costs (store/stand.h); failing those, from
 * the host's runs of other tracetax versions; failing those, assumed.
 */
#define REPEAT_WINDOW_DAYS 14     /* earlier runs looked at: started this recently */
#define REPEAT_MAX_RUNS 20        /* and at most this many, the newest */
/*
 * The tau a run with no earlier run of its host to learn from assumes
 * (docs/method.md §5c, "A first run"): the drift between runs measured
 * live on the development VM was 6.9-10.8%; in the simulation this tau
 * held a rerun's mean in 95.6-98.7% of cells of the default plan, with
 * and without a drift slower than a run. Taken as known (no df of its own).
 */
#define REPEAT_PRIOR_TAU 0.10
enum repeat_basis {
	REPEAT_NONE,              /* no repeat95 (a VM guest's run, a document from before) */
	REPEAT_THIS_VERSION,      /* the host's runs of this tracetax version */
	REPEAT_OTHER_VERSIONS,    /* the host's runs of other versions too: this one's gave none */
	REPEAT_ASSUMED,           /* REPEAT_PRIOR_TAU: no run of the host gave a cell */
};
struct repeat_drift {
	bool known;               /* false: a document from before the repeat interval */
	enum repeat_basis basis;  /* where tau comes from */
	double tau;               /* relative sd of a run's overhead mean between runs, >= 0 */
	int runs;                 /* runs that gave a cell to tau, this one included (0: none) */
	int cells;                /* cells pooled for tau */
	char note[160];           /* why tau is 0 or assumed; "" when it is not */
};
/* "this_version", "other_versions", "assumed"; NULL for REPEAT_NONE (the JSON's null). */
const char *repeat_basis_name(enum repeat_basis b);

struct claim_row;

struct results {
	struct environment env;
	struct run_options opts;
	struct cell *cells;
	int ncells;
	struct noise_floor *floors;   /* one per (workload, threads) with an A/A cell */
	int nfloors;
	struct stats_cost stats_cost; /* the first BPF cell's, measured once */
	struct audit_residue audit_residue; /* runs with audit cells */
	struct slow_path slow_path;   /* the box's syscall slow path at the start */
	double elapsed_s;
	struct timing timing;
	const struct claim_row *claims;   /* a plan's claims on this run (claims.h); NULL */
	struct repeat_drift drift;    /* the repeat intervals' (results_set_repeat) */
	int nclaims;
};

/* What a cell's hits must come to (the collateral rule, results.c). */
enum hits_rule {
	HITS_EVENTS,     /* every event the workload made */
	HITS_NONE,       /* none: --target names a syscall the workload does not make */
	HITS_ANY,        /* not checked: a tracepoint --target fires as the kernel's path does */
	HITS_UPTO,       /* at most the events: the tracer's filters decide (cell.hits_upto) */
};
enum hits_rule results_hits_rule(const struct cell *c);
/* Whether @hits of @events (the cell's, or its latency runs') keep the rule;
 * true when the tracer cannot count (@hits < 0). */
bool results_hits_ok(const struct cell *c, int64_t hits, int64_t events);
/*
 * A cell's overhead interval, two-level (docs/method.md §5c): with reps in
 * two rounds or more, Student's t over the round means (rounds - 1 df),
 * which holds the drift of the machine between rounds; with one round,
 * Student's t over the paired reps. Also the between-round share.
 */
void results_overhead_ci(const struct cell *c, double ci[2], double *mean, int *rounds,
			 double *between_share);
/*
 * The standard error and degrees of freedom behind a cell's overhead ci95:
 * its half-width / t(0.975, df), df = rounds - 1 (n - 1 with one round).
 * false (NaN) where the CI is not finite.
 */
bool results_overhead_se(const struct cell *c, double *se, double *df);
/*
 * Every ok cell's repeat95 from its ci95 and @tau (stats_repeat_pi, tau^2
 * with @runs - 1 df; known when @runs is 0, as an assumed tau is), and
 * r->drift set to @basis, @tau, @runs, @cells, @note ("" or why tau is 0
 * or assumed).
 */
void results_set_repeat(struct results *r, enum repeat_basis basis, double tau, int runs,
			int cells, const char *note);
/* No repeat interval for any cell (null in the JSON, basis none), and @note why. */
void results_drop_repeat(struct results *r, const char *note);
/*
 * Above this coefficient of variation of the baseline the note warns. The
 * cheapest tracers add ~10-30% to a ~100-300 ns syscall (10-60 ns): with
 * more than 5% run-to-run noise on the baseline the smallest overheads sit
 * inside the noise of a single rep and only the CI tells them apart.
 */
#define RESULTS_NOISY_CV 0.05
/*
 * The run's baseline noise is said once, in the table's header; a row
 * notes its own only where it stands this far above the upper quartile of
 * its (workload, threads) (notes.c): a cell the machine's noise hit harder
 * than the rest.
 * A cv from 16 reps is itself only good to ~20-30% on a noisy box: 2x is
 * beyond that spread.
 */
#define RESULTS_NOISY_STANDOUT 2.0
/* A between-round share above this gets a note: the drift dominates. */
#define RESULTS_BETWEEN_NOTE 0.5

/*
 * notes.c: a cell's note, and the one rule of which of the machine's
 * notes a row carries.
 *
 * Some notes are the machine's more than the cell's: its baseline noise,
 * the hypervisor's steal, the CPU clock moving, drift between rounds, reps
 * a disturbance hit (outliers), overheads below the noise floor. On a
 * shared or virtual box they come on most rows at once, and a note on
 * every row is read as none. So: a note that would stand on two rows or
 * more, and on more than one in RUN_NOTE_SHARE of a run's measured rows,
 * is the run's, said once
 * in the table's header (results_run_note_text); a row then keeps it only
 * where it stands out of the run: its figure over RESULTS_NOISY_STANDOUT
 * times the run's upper quartile (a level a quarter of the rows reach;
 * the note's threshold at least), for drift a share that leaves under half
 * the rest; outlier reps where the median and the mean tell different
 * stories, the median outside the mean's 95% interval; below the floor,
 * never. A note that stands on fewer rows stays on each.
 */
enum run_note {
	RUN_NOTE_NOISE,      /* baseline cv; the run's level is its (workload, threads)' */
	RUN_NOTE_STEAL,      /* % of the reps' wall time the hypervisor stole */
	RUN_NOTE_CLOCK,      /* the CPU frequency's spread during the cell, % */
	RUN_NOTE_DRIFT,      /* the between-round share of the overhead's variance */
	RUN_NOTE_OUTLIERS,   /* reps flagged by MAD */
	RUN_NOTE_FLOOR,      /* the overhead below the A/A cell's noise floor */
	RUN_NOTES
};

/* Above this share of a cell's wall time stolen by the hypervisor, the note says so. */
#define STEAL_NOTE_PCT 1.0
/* A CPU frequency that moved more than this during a cell gets a note. */
#define MHZ_NOTE_PCT 2.0
/*
 * A note that would stand on more than one row in this many is the run's:
 * with six kinds of the machine's notes, a quarter of the rows could carry
 * them otherwise.
 */
#define RUN_NOTE_SHARE 8

/* A kind's figures over a run's measured cells. */
struct run_note_sum {
	int cells;           /* measured cells where the figure is known */
	int would;           /* of them, those the note would stand on alone */
	double median;       /* the figure's median over @cells; NaN: none */
	double upper;        /* its upper quartile (nearest rank): what a row stands out of */
	double total;        /* RUN_NOTE_OUTLIERS: the reps flagged, all cells */
};

/* @k's figures over @r's measured cells (RUN_NOTE_NOISE: those of @workload at @threads). */
void results_run_note(const struct results *r, const char *workload, int threads, enum run_note k,
		      struct run_note_sum *s);
/* The figure over which a row stands out of the run (@s) in @k; NaN: no such bar (outliers, floor). */
double results_run_note_bar(enum run_note k, const struct run_note_sum *s);
/* Whether @s makes @k the run's: said once in the header, on a row only where it stands out. */
bool results_run_note_wide(const struct run_note_sum *s);
/*
 * The rule: whether @c's note of kind @k goes on its row. @r NULL: the cell
 * alone, before its run is whole (every note that would stand does).
 */
bool results_note_stands(const struct results *r, const struct cell *c, enum run_note k);
/*
 * The header's line for @k when it is the run's (not RUN_NOTE_NOISE: the
 * table says the baseline noise always, per (workload, threads)): true and
 * @buf, else false.
 */
bool results_run_note_text(const struct results *r, enum run_note k, char *buf, size_t len);

/* "; "-joined onto @c->note, cut to its size. */
void results_note_add(struct cell *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* @c->note anew: its own notes, and the machine's that stand on it (@r NULL: the cell alone). */
void results_write_note(const struct results *r, struct cell *c);

/* Fill cell's statistics from its reps (results.c); @seed: the cell's own. */
void results_finish_cell(struct cell *c, uint64_t seed);
/*
 * The half-width of the overhead's 95% CI so far, in % of |overhead| (of
 * the baseline for an A/A cell, whose overhead is 0 by design); NaN with
 * fewer than two reps. What --precision compares with its target.
 */
double results_reached_pct(const struct cell *c);
/*
 * The reps the cells ran, for people: "16", or "12-16" when cells differ;
 * and in @rounds the most rounds one ran in. Not --reps: --placement rotate
 * runs a pair on every CPU in every round, --precision adds rounds. The
 * plan's when no cell ran a rep.
 */
const char *results_reps_ran(const struct results *r, char *buf, size_t len, int *rounds);
/* Once every cell is finished: noise floors, and the cells under them. */
void results_finish(struct results *r);
void results_release(struct results *r);
/* Whether the run's slow path is there to say: a cause, or the probe could not tell. */
bool results_slow_path_said(const struct slow_path *s);
/*
 * The machine's baseline noise for @workload at @threads: the median
 * baseline cv of its measured cells (NaN: none), their number in @ncells
 * (may be NULL). The table says it once; a row only where it stands out.
 */
double results_noise_cv(const struct results *r, const char *workload, int threads, int *ncells);
/* The A/A noise floor of a cell's workload and threads; NULL: none measured. */
const struct noise_floor *results_floor(const struct results *r, const struct cell *c);
/* per_cpu.c: with reps on several CPUs, the overhead on each and whether they differ. */
void results_per_cpu(struct cell *c);
/* results_dist.c: per-thread figures, spread, throughput, latency. */
void results_finish_threads(struct cell *c);
void results_finish_latency(struct cell *c);
/* NULL when out of memory. */
struct cell_latency *results_latency_new(void);
/* c->lat freed and NULL: latency runs that did not all complete say nothing. */
void results_latency_drop(struct cell *c);
void results_release_cell(struct cell *c);

#endif
