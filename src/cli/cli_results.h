/*
 * Option parsing of the commands that read results: history, show,
 * compare, export, import, report. Pure (no I/O), like cli_parse_run, so
 * that unit tests and the fuzzer call it directly.
 */
#ifndef TRACETAX_CLI_RESULTS_H
#define TRACETAX_CLI_RESULTS_H

#include <stdbool.h>
#include <stddef.h>

#define CLI_MAX_RUNS 16

enum history_by { BY_NONE, BY_HOST, BY_KERNEL };

enum export_format { FORMAT_CSV, FORMAT_MARKDOWN, FORMAT_JSON, FORMAT_PROMETHEUS };

struct results_args {
	const char *cmd;                   /* argv[0]: "history", "show", ... */
	const char *runs[CLI_MAX_RUNS];    /* RUN: an id, last, last~N, or a file */
	int nruns;
	const char *store;                 /* --store PATH; NULL: store_path()'s default */
	/* history */
	const char *workload;              /* -w: runs with cells of this workload */
	const char *tracer;                /* -t: a glob; also the overhead over time */
	const char *kernel;                /* --kernel: a glob */
	int limit;                         /* --limit: the last N runs */
	enum history_by by;                /* --by host|kernel: -t's overhead per host or kernel */
	/* compare */
	double threshold;                  /* --threshold, % of A's overhead */
	/* export, report */
	enum export_format format;
	const char *out;                   /* -o FILE; NULL: stdout */
	int colour;                        /* -1 auto, 0 never, 1 always */
	bool help;
};

#define CLI_DEFAULT_LIMIT 20

/* Parses argv (argv[0] is the command). 0, or -1 with one line in err. */
int cli_parse_results(int argc, char **argv, struct results_args *a, char *err, size_t errlen);

#endif
