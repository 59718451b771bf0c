/*
 * `tracetax budget`'s model (data only): the event rates counted on the
 * box (measure/rates.c), each tracer's cost per event (from the store or
 * measured), what they predict (budget.c here), and, with -w cmd:, the
 * prediction checked against a measured run.
 */
#ifndef TRACETAX_BUDGET_H
#define TRACETAX_BUDGET_H

#include <stdbool.h>
#include <stdint.h>

#include "audit/audit_sum.h"
#include "results/results.h"

#define BUDGET_TOP_PROCS 5
#define BUDGET_TOP_NRS 8

struct budget_proc {
	int pid;                  /* in budget's pid namespace; 0: a process outside it */
	char comm[16];
	int64_t events;
	/* its CPU over the window (ns; -1 not read) and its pace: how much
	 * faster it made calls without the counter (measure/pace.h; 1 none) */
	double cpu_ns;
	double pace;
};

struct budget_nr {
	long nr;                  /* -1: numbers past the counter's table */
	char name[32];
	int64_t events;
};

/* audit:rules' count: calls of one syscall number by one login uid. */
struct budget_auid_nr {
	uint32_t auid;            /* 4294967295: unset */
	bool known;               /* false: the kernel has no login uid to read */
	bool no_ctx;              /* the calling task had no audit context (read: none) */
	int nr;
	int64_t events;
};

/* What the counter saw during the window. */
struct budget_rates {
	double seconds;           /* the window, measured */
	int cpus;                 /* CPUs online: the machine's CPU is cpus x seconds */
	char scope[320];          /* "the whole box", "pid 12 (postgres)", "cgroup PATH" */
	char target[64];          /* the syscall counted; "" every syscall */
	int64_t events;           /* the sum of per_cpu */
	int ncpu;                 /* entries of per_cpu: the possible CPUs, every one */
	int64_t *per_cpu;         /* malloc'd (budget_release) */
	struct budget_proc top[BUDGET_TOP_PROCS];
	int ntop;
	/* the same by command name: pid is then the number of processes */
	struct budget_proc top_comm[BUDGET_TOP_PROCS];
	int ntop_comm;
	int nprocs;               /* distinct processes seen */
	int64_t unnamed;          /* events of processes the table had no room for */
	int64_t others;           /* with a target: the scope's calls of other syscalls; -1 none */
	struct budget_nr nrs[BUDGET_TOP_NRS];
	int nnrs;
	/* by login uid and syscall number (rates_opts.by_auid): malloc'd */
	struct budget_auid_nr *auid_nr;
	int nauid_nr;
	int64_t auid_unnamed;     /* calls its table had no room for */
	/*
	 * budget's own task has an audit context: 1 (audit was enabled on this
	 * boot: the residue; every task forked since takes the syscall slow
	 * path), 0 none, -1 not read (no CONFIG_AUDITSYSCALL, or no syscall of
	 * its own in the window)
	 */
	int audit_ctx;
	/* the counter's own program time (BPF stats over the window) */
	bool self_measured;
	char self_reason[200];
	int64_t self_runs;
	double self_ns;           /* run_time_ns / run_cnt */
	/*
	 * The counter's tax on what it counts (measure/pace.h): its price per
	 * call (getppid's with it attached less without: NaN, price_why says
	 * why not), and the calls' pace, the box's: the counted calls weighted
	 * by their processes' paces over their number (1: none). A rate is the
	 * count over the window times the pace: the box's unobserved.
	 */
	double price_ns, price_base_ns;
	char price_why[200];
	double pace;
	int64_t paced;            /* the calls of processes whose CPU was read */
};

/* @r's pace; 1 where none was set (not counted, or a zeroed struct) */
double budget_pace(const struct budget_rates *r);
/* @events counted over @r's window as a rate of the box unobserved (x its pace) */
double budget_rate(const struct budget_rates *r, double events);

/* A tracer's cost per event, and where it comes from. */
struct budget_cost {
	char source[16];          /* "store", "measured", "" (none) */
	char reason[256];         /* why none */
	int64_t run_id;           /* the store's run; 0: not stored */
	char started[32];
	char workload[64];
	int reps;
	int64_t events;           /* the cell's traced events */
	double ns, lo, hi;        /* ns per event and its 95% CI */
	double consumer_ns;       /* our reader's or supervisor's CPU per event; 0: none */
	bool tool;                /* an external tool: its own process's CPU is not measured */
	/* per CPU, for the CPUs measured with --placement rotate (the cell's own:
	 * at most CELL_MAX_CPUS); a CPU not among them costs ns [lo, hi] */
	int ncpu;
	struct budget_cpu_cost {
		int cpu;
		double ns, lo, hi;
	} cpu[CELL_MAX_CPUS];
};

/*
 * audit:rules (`budget -t audit:rules --audit-rules FILE`): what loading
 * the rule set would cost the calls counted, by login uid and syscall. A
 * call a rule records pays the record's cost (audit:rule's, on this box);
 * every other call pays the walk (audit:rules' own, measured on a syscall
 * no rule names). Field filters budget cannot decide before the call make
 * three estimates (audit/audit_sum.h): lower, point, upper.
 */
#define BUDGET_AUDIT_AUIDS 8

/* A cost per call, and where it comes from. */
struct budget_audit_cost {
	char source[16];          /* "store", "measured", "" (none) */
	char reason[256];         /* why none */
	char tracer[TT_NAME_MAX]; /* audit:rules (the walk), audit:rule (a record) */
	char workload[64];
	int64_t run_id;           /* the store's run; 0: measured now */
	char started[32];
	int reps;
	double ns, lo, hi;        /* its overhead per call and 95% CI */
	double consumer_ns;       /* auditd's CPU per record; 0: none */
	/* the walk (audit:rules): the rule set it was measured with; file "": not known */
	struct cell_rules rules;
	bool rules_match;         /* that set is the one priced (the same digest) */
};

/* Calls and records of one set of calls (the box's window, or a command's run). */
struct budget_audit_est {
	int64_t events;           /* every call counted */
	int64_t named;            /* of a syscall some native exit rule names */
	int64_t named_sys;        /* of a syscall some native syscall rule (not a file rule) names */
	int64_t excluded;         /* of those, whose every such rule's auid filter fails */
	int64_t path;             /* of a syscall that takes a pathname */
	/* of a task with no audit context, in a live set (budget_audit.live): no
	 * walk, no record, not in named..records; events holds them */
	int64_t no_ctx;
	int64_t records[AUDIT_LEVELS];
	int64_t records_path[AUDIT_LEVELS];  /* of those, of a syscall that takes a pathname */
	/* ns over all the calls: each call not recorded at its walk (walk_path for
	 * one that takes a pathname, when measured), each record at a record's
	 * (record_path for one that takes a pathname, when measured) */
	double ns[AUDIT_LEVELS], lo[AUDIT_LEVELS], hi[AUDIT_LEVELS];
};

struct budget_audit_auid {
	uint32_t auid;
	int64_t events, named, excluded, records[AUDIT_LEVELS];
};

struct budget_audit {
	char file[1024];
	char digest[24];                     /* the rule set's (audit/audit_nl.h); "": not known */
	struct audit_rule_sum *rules;        /* malloc'd, as parsed */
	int nrules, exit_rules, fs_rules, other_arch, dropped;
	int *syscalls, nsyscalls;            /* named by the native syscall rules (not file rules) */
	int *fs_syscalls, nfs_syscalls;      /* through which a file rule can record */
	bool all_syscalls;                   /* a syscall rule names every syscall */
	/* the walk of a call without a name (getpid), of one that looks a path up
	 * (stat: the names the kernel keeps and checks), a record, and a record
	 * of a call that looks a path up (stat's: CWD and PATH records more) */
	struct budget_audit_cost walk, walk_path, record, record_path;
	uint32_t path_mask[AUDIT_BITMASK_SIZE];  /* the syscalls that take a pathname */
	struct budget_audit_est box;
	struct budget_audit_auid auids[BUDGET_AUDIT_AUIDS];
	int nauids;
	/*
	 * The set loaded now (budget --attached), not a file to be loaded: a
	 * call of a task with no audit context (budget_auid_nr.no_ctx) pays
	 * nothing. task_never: the box's `-a never,task` is among its rules
	 * (audit_rule_task_never): tasks forked since it was loaded have none.
	 */
	bool live, task_never;
	double share[AUDIT_LEVELS], share_lo[AUDIT_LEVELS], share_hi[AUDIT_LEVELS];
	double consumer_share[AUDIT_LEVELS]; /* auditd's CPU for the records; NaN: unknown */
	char bound[1024];                    /* which bound applies, and why, in words */
};

struct budget_tracer {
	char name[TT_NAME_MAX];
	struct budget_cost cost;
	/* predicted, from rates x cost: % of the machine's CPU */
	double share, share_lo, share_hi;
	double *cpu_share;                   /* % of each CPU, rates.ncpu of them
	                                        (budget_finish; NULL before) */
	double proc_share[BUDGET_TOP_PROCS]; /* % of the machine, paid by top[i] */
	double consumer_share;               /* % of the machine; NaN: none or unknown */
	bool per_cpu_weighted;               /* each CPU's events at its own cost */
	char verdict[768];                   /* the line in words (output_budget_verdict) */
	double ns_weighted;                  /* the cost per event the share implies */
	/*
	 * With --target: what its hook costs the scope's other syscalls (the
	 * same tracer's --target close cell on getpid), docs/budget.md "The
	 * collateral"; share* hold it, seen_share is the target's alone
	 */
	struct budget_cost coll;
	double coll_share, coll_lo, coll_hi; /* NaN: none */
	double seen_share;
	struct budget_audit *audit;          /* audit:rules' prediction; NULL: another tracer */
};

/* -w cmd: one tracer on one command, predicted against measured. */
struct budget_check {
	char tracer[TT_NAME_MAX];
	char command[TT_NAME_MAX];
	char status[16];          /* "ok", or the cell's "skipped"/"failed" */
	char reason[256];
	int64_t events_per_run;
	double base_ms;           /* a run untraced, the cell's baseline */
	double pred_ns, pred_lo, pred_hi;     /* per event: the cost */
	double meas_ns, meas_lo, meas_hi;     /* per event: the cmd: cell's overhead */
	double pred_pct, pred_pct_lo, pred_pct_hi;  /* slowdown, % of a run */
	double meas_pct, meas_pct_lo, meas_pct_hi;
	double error_pct;         /* (predicted - measured) / measured, % */
	bool within;              /* the prediction's CI overlaps the measured one */
	/* audit:rules: the bounds per event, the command's calls per run (audit false: none) */
	bool audit;
	double lower_ns, upper_ns;
	int64_t named_per_run, records_per_run[AUDIT_LEVELS];
};

struct budget {
	struct environment env;
	struct budget_rates rates;
	int max_age_h;            /* how old a stored cost may be */
	struct budget_tracer *tracers;      /* as many as asked: budget_add_tracer */
	int ntracers;
	struct budget_check *checks;        /* budget_add_check */
	int nchecks;
};

/* A tracer more (zeroed), or a check more; die() when out of memory. */
struct budget_tracer *budget_add_tracer(struct budget *b);
struct budget_check *budget_add_check(struct budget *b);
/* What the budget allocated; @b zeroed. */
void budget_release(struct budget *b);

/*
 * The shares from the rates and each tracer's cost (NaN where there is no
 * cost); audit:rules' from its rules, its two costs and the calls counted
 * by login uid and syscall (a->box, the shares; the tracer's own figures
 * are the point estimate's).
 */
void budget_finish(struct budget *b);
/*
 * A cell's overhead on each CPU (run --placement rotate) into @cost; those
 * it cannot use left out (budget.c says which).
 */
void budget_cost_per_cpu(struct budget_cost *cost, const struct cell *c);
/*
 * @c's cost per event with each CPU's events (@per_cpu, @ncpu CPUs) at that
 * CPU's own cost where @c has it, else the cell's: true; false (and the
 * cell's figures) when no CPU with events has a cost of its own.
 */
bool budget_cost_weighted(const struct budget_cost *c, const int64_t *per_cpu, int ncpu,
			  double *ns, double *lo, double *hi);
/* The check's predicted and measured figures from @cost and the cmd: cell @c. */
void budget_check_fill(struct budget_check *k, const struct budget_cost *cost,
		       const struct cell *c);

/*
 * A rule set's prediction from @n rule summaries (copied): its named
 * syscall sets and the syscalls that take a pathname; no costs yet.
 * die() when out of memory. budget_audit_release frees it (NULL: nothing).
 */
struct budget_audit *budget_audit_new(const struct audit_rule_sum *rules, int n);
void budget_audit_release(struct budget_audit *a);
struct workload;
/* Whether @au's rules name @w's syscall (a rule of the set, or a file rule, can record it). */
bool budget_audit_names(const struct budget_audit *au, const struct workload *w);
/* The rule set's named syscall sets from its rules (after rules/nrules are set). */
void budget_audit_sets(struct budget_audit *a);
/*
 * The calls of @c (@n of them, by login uid and syscall) and @unknown more
 * of neither known, with @a's rules and costs, into @e; each record at
 * @record's cost (NULL: a->record's, a record auditd takes); with
 * @per_auid, each login uid's figures into a->auids too. With a->live, a
 * call of a task with no audit context costs nothing (e->no_ctx).
 */
void budget_audit_estimate(struct budget_audit *a, const struct budget_auid_nr *c, int n,
			   int64_t unknown, const struct budget_audit_cost *record,
			   struct budget_audit_est *e, bool per_auid);
/*
 * A -w cmd: check of audit:rules: @mix (one run of the command, its calls
 * counted by syscall and login uid from its execve) gives the calls and
 * records per run and the cost per call; the cell @c the measured figures.
 */
void budget_audit_check_fill(struct budget_check *k, struct budget_audit *a,
			     const struct budget_auid_nr *mix, int nmix, const struct cell *c);

#endif
