/* The tables of the store and the normalised rows of a run (rows.c). */
#ifndef TRACETAX_STORE_ROWS_H
#define TRACETAX_STORE_ROWS_H

#include <stdint.h>

#include "results/results.h"
#include "store/db.h"

/* A run's environment field @name, for a query whose runs are `r` (both engines). */
#define STORE_ENV(name) "(SELECT value FROM environment WHERE run_id = r.id AND name = '" name "')"

/* The normalised rows of run @id from @r (inside the caller's transaction). */
int store_insert_rows(struct store *s, int64_t id, const struct results *r);
/*
 * A recorded run's audit:rules cells' rule sets from @r, into the columns
 * version 4 added (its migration, from the documents).
 */
int store_update_rules(struct store *s, int64_t id, const struct results *r);
/*
 * The run's settings that change a cell's cost (--tracer-cpu, --msg-size,
 * --latency) as rows of its environment: recorded with it, and by
 * version 5's migration, from the documents.
 */
int store_insert_settings(struct store *s, int64_t id, const struct results *r);
/* SQLite's tables, version by version (each migration adds the next; 4: PostgreSQL's too). */
extern const char store_runs_v1[], store_tables_v2[], store_runs_v3[], store_cells_v4[];
/* PostgreSQL's, created at the current version. */
extern const char store_tables_pg[];

#endif
