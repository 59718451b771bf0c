/*
 * The commands (one file each in src/cmd/) and what they share (common.c).
 * Each takes argv with argv[0] its name and returns the exit code. Bad
 * input is one line and exit 2; a measurement or a store that fails, 1.
 */
#ifndef TRACETAX_CMD_H
#define TRACETAX_CMD_H

#include <stdbool.h>
#include <stdint.h>

#include "doc/read.h"
#include "results/results.h"

int cmd_run(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_clocks(int argc, char **argv);
int cmd_pair(int argc, char **argv);
int cmd_rate(int argc, char **argv);
int cmd_cleanup(int argc, char **argv);
int cmd_history(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_budget(int argc, char **argv);
int cmd_vm(int argc, char **argv);
/* budget --attached (budget_attached.c): what is attached, not what would be */
int cmd_budget_attached(int argc, char **argv);

struct store;
struct results_args;
/* history -t TRACER --by host|kernel (history_by.c): prints, returns the exit code. */
int cmd_history_by(struct store *s, const struct results_args *a);

/*
 * RUN: an id, "last", "last~N" (from the store at @store_opt), or the path
 * of a results document. Exits 2 on a bad RUN or document, 1 on a store
 * that fails.
 */
void cmd_load_run(const char *spec, const char *store_opt, struct doc *d);

/* Whether colour is wanted on @fd for --color @setting (-1: auto). */
bool cmd_want_colour(int setting, int fd);
/* tracetax-load lives next to tracetax; TRACETAX_LOAD overrides. */
const char *cmd_find_load(void);
/* A parser's error line, exit 2, with a hint at --help unless it has one. */
__attribute__((__noreturn__)) void cmd_die_usage(const char *err, const char *hint);
/* One measurement at a time on the machine (the lock): wait up to @wait_s, or exit 2. */
void cmd_take_lock(int wait_s);
/* The default --wait ($TRACETAX_WAIT, else LOCK_WAIT_DEFAULT_S); exit 2 on a bad variable. */
int cmd_wait_default(void);
/* A --wait value, 0 to LOCK_WAIT_MAX_S seconds; -1 when it is not one. */
int cmd_parse_wait(const char *s, int *wait_s);
/* Signal handling, once per process: an experiment measures several times. */
void cmd_signals_once(void);
/* An integer option's value, @min to @max; a bad one is a usage error naming @opt. */
int cmd_num_arg(const char *s, const char *opt, int64_t min, int64_t max);
/*
 * Exits 2 with one line when one of the @n tracers (full names) would leave
 * the audit residue on a boot that never had it and the user did not accept
 * it (@accepted: --accept-audit-residue): measure/slowpath.h says when.
 */
void cmd_refuse_residue(char *const *tracers, int n, bool accepted);

struct budget_cost;
struct store_cost_query;
/*
 * A tracer's cost from the store (store_find_cost's rule, @q) into @out:
 * the cell's overhead and, read back from its run's document, its cost on
 * each CPU (run --placement rotate) and, if @prog_ns, its own program time
 * (0: no program; NaN: not measured or not readable). 0, 1 none stored,
 * -1 with @err.
 */
int cmd_stored_cost(struct store *s, const struct store_cost_query *q, struct budget_cost *out,
		    double *prog_ns, char *err, size_t len);
struct budget_audit_cost;
/*
 * An audit cost (budget_audit_cost: a record's or a walk's) from the store,
 * q->tracer on q->workload, into @ac; 0, or not 0 with @ac's reason (none
 * stored in the last @max_age_h hours, or the store's error; @s NULL: no
 * store), ending "add --measure" when @measure_hint.
 */
int cmd_stored_audit_cost(struct store *s, const struct store_cost_query *q,
			  struct budget_audit_cost *ac, int max_age_h, bool measure_hint);

#endif
