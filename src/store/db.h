/*
 * Inside the store: the connection (db.c, and one file per engine:
 * db_sqlite.c, db_pg.c), under store.c, rows.c and history.c.
 *
 * The SQL of rows.c and history.c is shared by both engines: `?` and `?N`
 * parameters (PostgreSQL's `$N` are made from them), `CAST(?N AS TEXT) IS
 * NULL` for an optional filter (PostgreSQL cannot type a bare `$N IS
 * NULL`), `GLOB` with db_bind_glob() (a POSIX regular expression and `~`
 * on PostgreSQL). Only the tables' definitions differ (db_ddl): the
 * column types each engine needs for 64-bit counts and doubles.
 */
#ifndef TRACETAX_STORE_DB_H
#define TRACETAX_STORE_DB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum db_engine { DB_SQLITE, DB_PG };

struct store {
	enum db_engine engine;
	void *conn;               /* sqlite3 * or PGconn * */
	char path[4096];          /* what messages name: the file, or the URI without its password */
	char msg[512];            /* PostgreSQL: the last error, one line */
};

struct db_stmt;

/*
 * A PostgreSQL connection string: a postgresql:// or postgres:// URI, or a
 * key=value conninfo string ("host=db password=... dbname=tt") whose every
 * key is one of libpq's. Anything else is a SQLite file's name.
 */
bool db_is_pg(const char *path);
/* @s parses as a conninfo string of libpq's keywords (db_pg.c). */
bool db_pg_conninfo(const char *s);
/*
 * @uri without its secrets, as libpq reads them: a URI's user:PASSWORD@ and
 * ?password= / ?sslpassword= (names percent-decoded), a key=value conninfo
 * string's password= and sslpassword=. What may be printed.
 */
void db_redact(const char *uri, char *buf, size_t len);

/*
 * Connects @s to @path (s->engine set from it). @create: make a missing
 * SQLite file and its directory. 0, or -1 with one line in @err.
 */
int db_connect(struct store *s, const char *path, bool create, char *err, size_t errlen);
void db_disconnect(struct store *s);

/* One or more statements without parameters. 0 or -1. */
int db_exec(struct store *s, const char *sql);
/*
 * A write transaction: SQLite takes the write lock before anything is
 * read (BEGIN IMMEDIATE); PostgreSQL holds tracetax's advisory lock for a
 * migration (@schema), so that two first runs do not both create tables.
 */
int db_begin(struct store *s, bool schema);
int db_commit(struct store *s);
void db_rollback(struct store *s);

/* The schema version: 0 for an empty database, -1 for tables that are not ours. */
int db_schema_version(struct store *s, int *v);
int db_set_schema_version(struct store *s, int v);
/* The database has no tables at all. */
int db_is_empty(struct store *s, bool *empty);

struct db_stmt *db_prepare(struct store *s, const char *sql);
/* NULL for NULL or "". */
int db_bind_text(struct db_stmt *st, int i, const char *v);
/* The string as it is, "" included. */
int db_bind_string(struct db_stmt *st, int i, const char *v);
int db_bind_int64(struct db_stmt *st, int i, int64_t v);
/* NULL when not finite. */
int db_bind_double(struct db_stmt *st, int i, double v);
int db_bind_null(struct db_stmt *st, int i);
/* A shell glob for `col GLOB ?`; NULL for NULL. */
int db_bind_glob(struct db_stmt *st, int i, const char *glob);
/* 1: a row; 0: done; -1: an error (store_fail says it). */
int db_step(struct db_stmt *st);
/* Ready for the next execution: bindings cleared. */
void db_reset(struct db_stmt *st);
void db_finalize(struct db_stmt *st);
/* Columns of the current row: NULL (text), 0, NaN when NULL. */
const char *db_col_text(struct db_stmt *st, int i);
size_t db_col_bytes(struct db_stmt *st, int i);
int64_t db_col_int64(struct db_stmt *st, int i);
double db_col_double(struct db_stmt *st, int i);

/* "what 'PATH': the engine's message" into @err; returns -1. */
int store_fail(struct store *s, const char *what, char *err, size_t errlen);

/* The engines (db_sqlite.c, db_pg.c), which db.c dispatches to. */
struct db_ops {
	int (*connect)(struct store *s, const char *path, bool create, char *err, size_t errlen);
	void (*disconnect)(struct store *s);
	int (*exec)(struct store *s, const char *sql);
	int (*begin)(struct store *s, bool schema);
	int (*schema_version)(struct store *s, int *v);
	int (*set_schema_version)(struct store *s, int v);
	int (*is_empty)(struct store *s, bool *empty);
	struct db_stmt *(*prepare)(struct store *s, const char *sql);
	const char *(*message)(struct store *s);
	int (*bind_text)(struct db_stmt *st, int i, const char *v);
	int (*bind_int64)(struct db_stmt *st, int i, int64_t v);
	int (*bind_double)(struct db_stmt *st, int i, double v);
	int (*bind_null)(struct db_stmt *st, int i);
	int (*step)(struct db_stmt *st);
	void (*reset)(struct db_stmt *st);
	void (*finalize)(struct db_stmt *st);
	bool (*col_null)(struct db_stmt *st, int i);
	const char *(*col_text)(struct db_stmt *st, int i);
	size_t (*col_bytes)(struct db_stmt *st, int i);
	int64_t (*col_int64)(struct db_stmt *st, int i);
	double (*col_double)(struct db_stmt *st, int i);
};
extern const struct db_ops db_sqlite_ops, db_pg_ops;

/* A statement: the engine's, behind one shape. */
struct db_stmt {
	struct store *s;
	void *h;                  /* sqlite3_stmt * */
	/* PostgreSQL: the SQL with $N, the values as text, the result and its row */
	char *sql;
	int nparams;
	char *values[64];
	void *res;
	int row, nrows;
};

#endif
