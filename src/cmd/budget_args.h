/*
 * `tracetax budget -t`'s options (budget_args.c): parsed at once (a bad
 * one: exit 2), and the `run` options a measurement of the costs takes.
 */
#ifndef TRACETAX_CMD_BUDGET_ARGS_H
#define TRACETAX_CMD_BUDGET_ARGS_H

#include <stdbool.h>
#include <sys/types.h>

#include "audit/audit_nl.h"
#include "cli/cli.h"

/* A --target hook's collateral: what a hook on close costs getpid's loop */
#define COLL_WORKLOAD "getpid"
#define COLL_TARGET "close"

/* audit:rules' prediction, and the tracer whose cost is a record's */
#define AUDIT_TRACER "audit:rules"
#define AUDIT_RECORD_TRACER "audit:rule/async"

/*
 * What budget -t and budget --attached both take: the window, the costs'
 * measurement and store, the output, the lock. Each command's arguments
 * hold them first, by name (BUDGET_COMMON), and as one (common).
 */
#define BUDGET_COMMON_FIELDS \
	int seconds, max_age_h, reps, run_ms, wait_s; \
	const char *json, *store; \
	bool measure, no_store, quiet;
struct budget_common {
	BUDGET_COMMON_FIELDS
};
#define BUDGET_COMMON \
	union { \
		struct budget_common common; \
		struct { BUDGET_COMMON_FIELDS }; \
	}
/* Their long options, for getopt_long's table */
#define BUDGET_COMMON_OPTIONS \
	{ "for", required_argument, NULL, 'f' }, { "measure", no_argument, NULL, 'm' }, \
	{ "max-age", required_argument, NULL, 'a' }, { "reps", required_argument, NULL, 'r' }, \
	{ "run-ms", required_argument, NULL, 'R' }, { "json", required_argument, NULL, 'j' }, \
	{ "store", required_argument, NULL, 's' }, { "no-store", no_argument, NULL, 'O' }, \
	{ "wait", required_argument, NULL, 'W' }, { "no-wait", no_argument, NULL, 'N' }, \
	{ "quiet", no_argument, NULL, 'q' }

/* Their defaults into @o */
void budget_common_init(struct budget_common *o);
/* getopt's @c with @arg into @o when it is one of them: true; false: not one */
bool budget_common_opt(int c, const char *arg, struct budget_common *o);

struct budget_args {
	BUDGET_COMMON;
	/* -t and -w add up when repeated, as run's do: each passed on to run's
	 * parser (argc of each: room for every one) */
	const char **tracers, **workloads;
	int ntracers, nworkloads;
	const char *cgroup, *target, *audit_rules;
	const char *audit_path_wl;  /* audit:rules' walk of a call that names a path: stat; NULL: none */
	struct audit_ruleset rs;  /* --audit-rules FILE, parsed at once (a bad file: exit 2) */
	pid_t pid;
	bool accept_residue;      /* --accept-audit-residue, passed on to run */
};

/* argv's options into @a (exit 2 on a bad one; --help: exit 0) */
void budget_parse(int argc, char **argv, struct budget_args *a);
/*
 * The run's options as `tracetax run` takes them: its parser checks them.
 * @lead: a workload of the load before the user's -w (NULL: none); with
 * neither, getpid.
 */
void budget_run_args(const struct budget_args *a, const char *lead, struct run_args *r);

#endif
