#ifndef TRACETAX_CLI_H
#define TRACETAX_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CLI_MAX_ITEMS 128

struct run_args {
	const char *workloads[CLI_MAX_ITEMS];
	int nworkloads;
	char *tracers[CLI_MAX_ITEMS];   /* full names, variants expanded */
	int ntracers;
	bool tracers_default;          /* no -t: every tracer that fits the workload */
	int threads[CLI_MAX_ITEMS];
	int nthreads;
	int reps;
	int run_ms;
	int64_t iterations;            /* 0: calibrate */
	uint64_t seed;
	const char *target;            /* NULL: each workload's own syscall */
	const char *json_path;
	bool quiet;
	bool help;                     /* -h: the caller prints usage */
	int colour;                    /* -1 auto, 0 never, 1 always */
	const char *tracer_cpu;        /* "same", "other", "any": where a ptrace
	                                  helper or seccomp supervisor runs */
	bool dry_run;                  /* print the plan, touch nothing */
	double precision;              /* 0, or add reps until the CI half-width
	                                  is this % of the overhead */
	int max_time_s;                /* the run's budget for --precision */
	bool no_wait;                  /* another measurement running: exit 2 */
	const char *store;             /* --store: the results store; NULL: default */
	bool no_store;                 /* --no-store: record nothing */
	const char *csv_path;          /* --csv FILE */
	const char *markdown_path;     /* --markdown FILE */
	char explain[64];              /* --explain: a tracer of the run, full name; "" */
	bool latency;                  /* time every call, in runs after the reps */
	int msg_size;                  /* bytes per message of the tcp workloads */
	const char *tool_ready;        /* --ready, --hits: EREs on a cmd: tracer's output */
	const char *tool_hits;
	int cmd_timeout_s;             /* a run of a cmd: workload is killed after this */
};

/* --precision without --max-time: the run may take this long. */
#define CLI_DEFAULT_MAX_TIME_S 300

/*
 * Parses `tracetax run` options (argv[0] is "run"). Returns 0, or -1 with
 * one line in err: the caller prints it and exits 2. Pure: no I/O.
 */
int cli_parse_run(int argc, char **argv, struct run_args *a, char *err, size_t errlen);
void cli_release(struct run_args *a);
/* The -w list's names (a second -w replaces the first). */
void cli_release_workloads(struct run_args *a);
/* Expands a comma list of tracer names or fnmatch patterns into a->tracers. */
int cli_add_tracers(struct run_args *a, const char *list, char *err, size_t errlen);

#endif
