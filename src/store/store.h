/*
 * The results store: every run's document in an SQLite database, or a
 * PostgreSQL one that several hosts share, with normalised tables beside
 * it for queries (docs/schema.md, "the store").
 * The document is the source of truth; the tables are derived from it and
 * can be rebuilt from it, which is how a migration adds one.
 */
#ifndef TRACETAX_STORE_H
#define TRACETAX_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "results/results.h"

/* The schema version this tracetax writes (SQLite: PRAGMA user_version). */
#define STORE_SCHEMA 5

struct store;

/*
 * Where the store is: @opt (--store), else $TRACETAX_DB (a path, or a
 * postgresql:// URI), else
 * $XDG_DATA_HOME/tracetax/results.db, else ~/.local/share/tracetax/results.db.
 * 0, or -1 with one line in @err (no HOME to put it in).
 */
int store_path(const char *opt, char *buf, size_t len, char *err, size_t errlen);

/*
 * Opens the store at @path, migrated to STORE_SCHEMA. @create: make it and
 * its directory when missing (recording); otherwise a missing store is an
 * error (reading). NULL, with one line in @err, on any failure: not a
 * database, a newer schema, a disk that refuses.
 */
struct store *store_open(const char *path, bool create, char *err, size_t errlen);
void store_close(struct store *s);
/* What messages call it: the path, or the URI without its password. */
const char *store_name(const struct store *s);

/*
 * Records a run in one transaction: @doc (its results document, as
 * --json writes it), the rows @r gives, and @host_id, the identity of the
 * machine that measured it (base/hostid.h; NULL: not known, an imported
 * document). 0 and its id in *id, or -1 with one line in @err and the
 * database as it was.
 */
int store_record(struct store *s, const struct results *r, const char *doc, const char *host_id,
		 int64_t *id, char *err, size_t errlen);

/* The id of run @spec: "12", "last", "last~N". 0, 1 (no such run), or -1 (store error). */
int store_resolve(struct store *s, const char *spec, int64_t *id, char *err, size_t errlen);
/* The document of run @id, malloc'd. 0, or -1 with @err. */
int store_document(struct store *s, int64_t id, char **doc, size_t *len, char *err, size_t errlen);

/* One line of `tracetax history`. */
struct store_run {
	int64_t id;
	char started[32], host[64], kernel[128];
	char host_id[32];         /* the machine-id's hash; "": not known (imported) */
	char vm[16];              /* "kvm", "tcg", "tcg icount" (figures in instructions):
	                             measured in a VM of --kernel; "" */
	int ok, skipped, failed;
	int ntracers;
	char tracers[256];        /* comma separated, in the plan's order; cut with "..." */
};

/* One cell of a run, for `history -t`: the overhead over time. */
struct store_cell {
	char tracer[TT_NAME_MAX], workload[TT_NAME_MAX];
	int threads;
	char status[16];
	char reason[256];
	double overhead, lo, hi;  /* NaN when not ok */
	bool disturbed;
};

/* What `history` asks for; NULL fields match everything. */
struct store_filter {
	const char *workload;     /* runs with a cell of this workload */
	const char *tracer;       /* runs with a cell of a tracer matching this glob */
	const char *kernel;       /* runs on a kernel matching this glob */
	int limit;                /* the last N runs */
};

/*
 * The runs @f selects, oldest first; for each, @fn is called once with
 * the run and, when f->tracer is set, once per matching cell. -1 with @err
 * on a store error; @fn's non-zero return stops the walk and is returned.
 */
int store_history(struct store *s, const struct store_filter *f,
		  int (*fn)(const struct store_run *run, const struct store_cell *cell, void *arg),
		  void *arg, char *err, size_t errlen);

#endif

/*
 * The between-run drift for @r's repeat intervals (docs/method.md §5c,
 * "The repeat interval"): the newest REPEAT_MAX_RUNS runs that started in
 * the REPEAT_WINDOW_DAYS before @r and whose cells stand for this host's
 * costs (store/stand.h: its hostname, and machine @host where both are
 * known, and kernel; not a VM guest's; ok and undisturbed), of @r's
 * tracetax version or, @any_version, of any; their cells, whatever the
 * plan (the drift is the host's), with @r's own when there is an earlier
 * one, pooled by stats_repeat_tau2(). *tau (0 with no earlier such run),
 * *runs (the runs that gave a cell to tau, @r included; 0: none) and
 * *cells as it says; 0, or -1 with @err.
 */
int store_repeat_drift(struct store *s, const struct results *r, const char *host,
		       bool any_version, double *tau, int *runs, int *cells, char *err,
		       size_t errlen);

/* `tracetax budget`: a tracer's cost per event measured here before. */
struct store_cost_query {
	const char *tracer, *workload;
	const char *hostname, *kernel, *version;  /* must all match */
	const char *host_id;      /* this machine's (base/hostid.h); NULL: any of that hostname */
	const char *since;        /* ISO 8601 UTC: runs started at or after it */
	const char *target;       /* NULL: the workload's own event, not a --target collateral */
	/*
	 * audit:rules: the digest of the rule set asked about (audit/audit_nl.h).
	 * The newest cell of that set is preferred; without one, the newest of
	 * any set, and store_cost.rules_match says so. NULL: the newest.
	 */
	const char *rules_digest;
};

struct store_cost {
	int64_t run_id;
	int idx;                  /* the cell's index in its run's document */
	char started[32];
	int reps;
	int64_t events;
	double ns, lo, hi;        /* overhead per event and its 95% CI */
	double consumer_ns;       /* NaN: none */
	struct cell_rules rules;  /* an audit:rules cell's rule set; file "": not known */
	bool rules_match;         /* rules.digest is q->rules_digest */
};

/*
 * The newest single-threaded cell of q->tracer on q->workload that stands
 * for this host's cost (store/stand.h: ok, undisturbed, not a VM guest's,
 * not a collateral unless q->target asks for it) from a run that matches.
 * 0 (found), 1 (none), -1 with @err.
 */
int store_find_cost(struct store *s, const struct store_cost_query *q, struct store_cost *out,
		    char *err, size_t errlen);

/*
 * Budget documents (`tracetax budget`, docs/budget.md), in a table of
 * their own made when the first is recorded: no runs' rows, no migration.
 * Record: 0 and its id, or -1 with @err. Walk: the last @limit, oldest
 * first, @fn on each (its non-zero return stops the walk); a store with
 * none is 0.
 */
int store_record_budget(struct store *s, const char *doc, int64_t *id, char *err, size_t errlen);
int store_budgets(struct store *s, int limit,
		  int (*fn)(int64_t id, const char *doc, size_t len, void *arg), void *arg,
		  char *err, size_t errlen);
