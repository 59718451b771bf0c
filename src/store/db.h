/* Inside the store: the connection (db.c), under store.c, rows.c and history.c. */
#ifndef TRACETAX_STORE_DB_H
#define TRACETAX_STORE_DB_H

#include <sqlite3.h>

#include <stddef.h>
#include <stdint.h>

struct store {
	sqlite3 *db;
	char path[4096];
};

/* "what '%s': sqlite's message" into @err; returns -1. */
int store_fail(struct store *s, const char *what, char *err, size_t errlen);

/* Binds @s to parameter @i, NULL for NULL or "". */
int store_bind_text(sqlite3_stmt *st, int i, const char *s);

#endif
