/* The results of a run of tracetax: what the runner fills and output reads. */
#ifndef TRACETAX_RESULTS_H
#define TRACETAX_RESULTS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "stats.h"

enum cell_status { CELL_OK, CELL_SKIPPED, CELL_FAILED };

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
	bool traced_first;        /* the order this rep ran in */
	bool outlier;             /* MAD flag on its overhead */
};

struct cell {
	/* what */
	char workload[32];
	char tracer[64];
	char target[32];          /* syscall hooked; "" when the tracer hooks none */
	int threads;
	/* how it went */
	enum cell_status status;
	char reason[256];         /* skip or failure reason; "" when ok */
	int64_t iterations;       /* per thread per run, hot loop only */
	int64_t warmup;           /* per thread per run */
	int nreps;                /* reps completed */
	struct rep *reps;         /* nreps of them */
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
	double base_cv;           /* coefficient of variation of the baseline */
	int outliers;             /* reps flagged by MAD */
	double consumer_ns_per_event; /* our reader's CPU per event, 0 if none */
	char note[256];           /* noise warning, hits mismatch... */
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
};

struct run_options {
	int reps;
	int run_ms;
	int64_t iterations;       /* 0: calibrate per cell */
	uint64_t seed;
	char target[32];          /* --target, "" for the workload's own syscall */
	char tracer_cpu[8];       /* --tracer-cpu: same, other, any */
};

struct results {
	struct environment env;
	struct run_options opts;
	struct cell *cells;
	int ncells;
	double elapsed_s;
};

/* Fill cell's statistics from its reps (results.c). */
void results_finish_cell(struct cell *c, uint64_t seed);
void environment_collect(struct environment *env);

/* Output (output_*.c): the only code that knows formats. */
void output_table(const struct results *r, FILE *f, bool colour);
int output_json_file(const struct results *r, const char *path);  /* atomic: tmp + rename */
char *output_json_string(const struct results *r);              /* malloc'd */

#endif
