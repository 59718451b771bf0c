/* Inside the store: store.c opens and migrates, store_rows.c fills and queries. */
#ifndef TRACETAX_STORE_INT_H
#define TRACETAX_STORE_INT_H

#include <sqlite3.h>

#include "store.h"

struct store {
	sqlite3 *db;
	char path[4096];
};

/* "what '%s': sqlite's message" into @err; returns -1. */
int store_fail(struct store *s, const char *what, char *err, size_t errlen);
/* The normalised rows of run @id from @r (inside the caller's transaction). */
int store_insert_rows(struct store *s, int64_t id, const struct results *r);
/* Version 2's normalised tables, created empty. */
extern const char store_tables_v2[];

#endif
