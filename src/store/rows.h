/* The normalised rows of a run (rows.c): what history and SQL queries read. */
#ifndef TRACETAX_STORE_ROWS_H
#define TRACETAX_STORE_ROWS_H

#include <stdint.h>

#include "results/results.h"
#include "store/db.h"

/* The normalised rows of run @id from @r (inside the caller's transaction). */
int store_insert_rows(struct store *s, int64_t id, const struct results *r);
/* Version 2's normalised tables, created empty. */
extern const char store_tables_v2[];

#endif
