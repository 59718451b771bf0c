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

#include "results/results.h"

#define BUDGET_TOP_PROCS 5
#define BUDGET_TOP_NRS 8

struct budget_proc {
	int pid;                  /* in budget's pid namespace; 0: a process outside it */
	char comm[16];
	int64_t events;
};

struct budget_nr {
	long nr;                  /* -1: numbers past the counter's table */
	char name[32];
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
	struct budget_nr nrs[BUDGET_TOP_NRS];
	int nnrs;
	/* the counter's own program time (BPF stats over the window) */
	bool self_measured;
	char self_reason[200];
	int64_t self_runs;
	double self_ns;           /* run_time_ns / run_cnt */
};

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

/* The shares from the rates and each tracer's cost (NaN where there is no cost). */
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

#endif
