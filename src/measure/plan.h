/*
 * The plan: every cell of a run, in order, built from the arguments before
 * anything runs. Each cell carries its own seed, drawn from the run's seed
 * and the cell's identity, so a cell's rep order and bootstrap do not
 * change when other cells are added to the plan or skip.
 */
#ifndef TRACETAX_PLAN_H
#define TRACETAX_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/cmdline.h"

#define CLI_MAX_ITEMS 128

/*
 * The default plan's shape, from the study of CI width against wall time
 * (docs/method.md §5c): 8 rounds of 2 reps (one of each order) of 25 ms runs.
 */
#define PLAN_DEFAULT_REPS 16
#define PLAN_DEFAULT_ROUNDS 8
#define PLAN_DEFAULT_RUN_MS 25

/* What to measure: the core's options, which the CLI fills (cli/cli.h). */
struct measure_opts {
	const char *workloads[CLI_MAX_ITEMS];
	int nworkloads;
	char *tracers[CLI_MAX_ITEMS];   /* full names, variants expanded */
	int ntracers;
	bool tracers_default;          /* no -t: every tracer that fits the workload */
	int threads[CLI_MAX_ITEMS];
	int nthreads;
	int reps;                      /* per cell, spread over the rounds */
	int rounds;                    /* --rounds: of the whole plan, each cell in each */
	int run_ms;
	int64_t iterations;            /* 0: calibrate */
	uint64_t seed;
	const char *target;            /* NULL: each workload's own syscall */
	const char *tracer_cpu;        /* "same", "other", "any": where a ptrace
	                                  helper or seccomp supervisor runs */
	double precision;              /* 0, or add reps until the CI half-width
	                                  is this % of the overhead */
	int max_time_s;                /* the run's budget for --precision */
	bool latency;                  /* time every call, in runs after the reps */
	int msg_size;                  /* bytes per message of the tcp workloads */
	const char *tool_ready;        /* --ready, --hits: EREs on a cmd: tracer's output */
	const char *tool_hits;
	const char *audit_rules;       /* --audit-rules FILE: audit:rules' rule file */
	bool accept_residue;           /* --accept-audit-residue: a TT_F_RESIDUE tracer may
	                                  leave its residue on this boot (slowpath.h) */
	int cmd_timeout_s;             /* a run of a cmd: workload is killed after this */
	const char *cpus;              /* --cpus LIST: the CPUs cells run on; NULL: ours */
	bool rotate;                   /* --placement rotate: every round runs pairs of
	                                  reps on each allowed CPU (plan_rotate_cpus) */
};

struct tracer;
struct workload;

struct plan_cell {
	char workload[TT_NAME_MAX];
	char tracer[TT_NAME_MAX];    /* a cmd: template is long */
	char target[128];         /* syscall or tracepoint hooked; "" when there is none */
	int threads;
	char id[2 * TT_NAME_MAX + 160];             /* "workload|tracer|threads|target": its identity */
	uint64_t seed;            /* the cell's own stream: rep order, bootstrap */
};

/*
 * --latency: pairs of runs with every call timed, after a cell's reps. Two,
 * one of each order as reps come: millions of calls, enough for p99.99.
 */
#define PLAN_LATENCY_PAIRS 2

struct plan {
	struct plan_cell *cells;
	int n;
};

/* Every cell of the arguments, in run order; the default plan leaves out
 * tracers that cannot hook the workload. 0, or -1 (out of memory). */
int plan_build(const struct measure_opts *a, struct plan *p);
void plan_release(struct plan *p);

/*
 * Whether rep @rep of cell @c runs its traced run first. Reps come in
 * pairs, one of each order, the pair's first drawn from the cell's seed:
 * an order effect (the second run of a pair finds a warmer machine) then
 * cancels in every pair of reps instead of biasing the mean, as a plain
 * coin per rep lets it do at small n.
 */
bool plan_traced_first(const struct plan_cell *c, int rep);

/* How long the plan should take, in seconds (--dry-run prints it). */
double plan_estimate_s(const struct plan *p, const struct measure_opts *a);
/*
 * Rounds (docs/method.md §5c): the plan runs every cell in each of them, a
 * few pairs of reps at a time, so that a cell's reps sample the machine's
 * drift over the whole run. As many as --rounds, at most one per pair of
 * --reps; at least 1.
 */
int plan_rounds(const struct measure_opts *a);
/* Reps of each cell in round @round: --reps in pairs, spread over the rounds
 * (earlier rounds take the spare pairs, the last an odd rep); rounds that
 * --precision adds take as many as the first. */
int plan_round_reps(const struct measure_opts *a, int round);
/*
 * --placement rotate crosses the CPUs with the rounds: every round runs
 * as many pairs on each CPU (plan_round_reps rounds up to whole sets), in
 * an order that starts one CPU later each round, so that a CPU's figure
 * is never the drift between rounds. The CPUs it
 * covers: the allowed ones (--cpus), at most CELL_MAX_CPUS; 1 without
 * rotate or with one CPU.
 */
int plan_rotate_cpus(const struct measure_opts *a);
/* Reps of each cell over the plan's rounds: --reps, or more with rotate. */
int plan_total_reps(const struct measure_opts *a);
/* The cells' order in round @round: a permutation of 0..n-1 drawn from
 * --seed and the round; the plan's own order when it has one round. */
void plan_round_order(const struct plan *p, const struct measure_opts *a, int round, int *order);

/* The syscall a cell hooks: --target, else the workload's own, else "". */
const char *plan_target(const struct measure_opts *a, const char *workload);
/* Whether workload @w offers what a tracer with hooks @h needs; else why not. */
int plan_hooks_ok(unsigned h, const struct workload *w, const char *target, char *reason,
		  size_t len);
/* Tells a tracer what the workload offers: its function, the ELF defining it, the load. */
void plan_bind(struct tracer *t, const char *workload, const char *load_path);
/* The CPU for --tracer-cpu same|other|any; -1: any. */
int plan_tracer_cpu(const char *where);

/*
 * What a BPF cell adds after its reps (progstats.c), for the plan's
 * estimate: traced runs with BPF stats on, and pairs of runs (on, off)
 * that measure the cost of stats once a run.
 */
#define PROGSTATS_PASS_RUNS 3
#define PROGSTATS_COST_MAX_PAIRS 10
int progstats_cost_pairs(int reps);

#endif
