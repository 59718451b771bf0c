#ifndef TRACETAX_CLI_H
#define TRACETAX_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "measure/plan.h"


/*
 * `tracetax run`'s options: what to measure (m, the core's own struct,
 * measure/plan.h) and what the command does with it (outputs, store, lock).
 */
struct run_args {
	struct measure_opts m;
	const char *json_path;
	bool quiet;
	bool help;                     /* -h: the caller prints usage */
	int colour;                    /* -1 auto, 0 never, 1 always */
	bool dry_run;                  /* print the plan, touch nothing */
	int wait_s;                    /* --wait: for the machine's lock, at most this
	                                  long, then exit 2; 0 (--no-wait): not at all */
	const char *store;             /* --store: the results store; NULL: default */
	bool no_store;                 /* --no-store: record nothing */
	const char *csv_path;          /* --csv FILE */
	const char *markdown_path;     /* --markdown FILE */
	const char *prom_dir;          /* --prometheus-textfile DIR: DIR/tracetax.prom */
	char *explain;                 /* --explain: a tracer of the run, full name; NULL */
	const char *kernel;            /* --kernel: run the plan in a VM of this image */
	const char *kernel_modules;    /* --kernel-modules: its modules' directory */
	int argc;                      /* the command line parsed, for the VM's guest */
	char **argv;
	bool no_table;                 /* print no table (budget prints its own) */
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
