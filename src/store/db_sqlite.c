/*
 * The SQLite engine of the store (db.h): the embedded default, a file.
 *
 * Two tracetax processes may write at once (a run finishing while another
 * machine's document is imported): WAL lets readers go on during a write,
 * BEGIN IMMEDIATE takes the write lock before anything is read, so two
 * writers queue on the busy timeout instead of deadlocking on an upgrade.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "base/util.h"
#include "store/db.h"

/* Long enough for another process's whole recording; a stuck one is an error. */
#define BUSY_TIMEOUT_MS 30000

#define DB(s) ((sqlite3 *)(s)->conn)
#define ST(st) ((sqlite3_stmt *)(st)->h)

/* sqlite's "unable to open database file" says not why: the system's errno does. */
static const char *sq_message(struct store *s)
{
	int code, e;

	if (!DB(s))
		return "out of memory";
	code = sqlite3_errcode(DB(s)) & 0xff;
	e = sqlite3_system_errno(DB(s));
	if ((code == SQLITE_CANTOPEN || code == SQLITE_IOERR) && e)
		snprintf(s->msg, sizeof(s->msg), "%s (%s)", sqlite3_errmsg(DB(s)), strerror(e));
	else
		snprintf(s->msg, sizeof(s->msg), "%s", sqlite3_errmsg(DB(s)));
	return s->msg;
}

/* mkdir -p of @path's directory. */
static int make_parents(const char *path, char *err, size_t errlen)
{
	char dir[4096];

	snprintf(dir, sizeof(dir), "%s", path);
	for (char *p = dir + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
			snprintf(err, errlen, "cannot create '%s' for the results store: %s", dir,
				 strerror(errno));
			return -1;
		}
		*p = '/';
	}
	return 0;
}

/*
 * Before a write: sqlite says only "unable to open database file" when the
 * WAL's files cannot be made beside the database (a read-only mount, a
 * directory of someone else's); access(2) says why.
 */
static int check_writable(const char *path, char *err, size_t errlen)
{
	char dir[4096];
	char *slash;

	if (!access(path, F_OK) && access(path, W_OK) < 0) {
		snprintf(err, errlen, "cannot write results store '%s': %s", path, strerror(errno));
		return -1;
	}
	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash == dir)
		slash[1] = '\0';
	else if (slash)
		*slash = '\0';
	else
		snprintf(dir, sizeof(dir), ".");
	if (access(dir, W_OK) < 0) {
		snprintf(err, errlen, "cannot write results store '%s': %s (its directory '%s')", path,
			 strerror(errno), dir);
		return -1;
	}
	return 0;
}

static int sq_connect(struct store *s, const char *path, bool create, char *err, size_t errlen)
{
	struct stat st;
	sqlite3 *db = NULL;

	if (!create && stat(path, &st) < 0) {
		if (errno == ENOENT)
			snprintf(err, errlen, "no results store at '%s' (tracetax run records there)", path);
		else
			snprintf(err, errlen, "cannot open results store '%s': %s", path, strerror(errno));
		return -1;
	}
	/* a FIFO would block SQLite's first read, a device take its writes */
	if (!stat(path, &st) && !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "results store '%s' is not a regular file", path);
		return -1;
	}
	if (create && (make_parents(path, err, errlen) || check_writable(path, err, errlen)))
		return -1;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0),
			    NULL) != SQLITE_OK) {
		s->conn = db;
		store_fail(s, "cannot open results store", err, errlen);
		return -1;
	}
	s->conn = db;
	sqlite3_busy_timeout(db, BUSY_TIMEOUT_MS);
	sqlite3_extended_result_codes(db, 1);
	return 0;
}

static void sq_disconnect(struct store *s)
{
	sqlite3_close(DB(s));
}

static int sq_exec(struct store *s, const char *sql)
{
	return sqlite3_exec(DB(s), sql, NULL, NULL, NULL) == SQLITE_OK ? 0 : -1;
}

static int sq_begin(struct store *s, bool schema)
{
	(void)schema;
	return sq_exec(s, "BEGIN IMMEDIATE");
}

static int sq_schema_version(struct store *s, int *v)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(DB(s), "PRAGMA user_version", -1, &st, NULL);

	if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW)
		*v = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : -1;
}

static int sq_set_schema_version(struct store *s, int v)
{
	char sql[64];

	snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", v);
	return sq_exec(s, sql);
}

static int sq_is_empty(struct store *s, bool *empty)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(DB(s), "SELECT count(*) FROM sqlite_master", -1, &st, NULL);

	if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW)
		*empty = sqlite3_column_int(st, 0) == 0;
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : -1;
}

static struct db_stmt *sq_prepare(struct store *s, const char *sql)
{
	struct db_stmt *st = calloc(1, sizeof(*st));
	sqlite3_stmt *h;

	if (!st)
		die("out of memory");
	if (sqlite3_prepare_v2(DB(s), sql, -1, &h, NULL) != SQLITE_OK) {
		free(st);
		return NULL;
	}
	st->s = s;
	st->h = h;
	return st;
}

static int sq_bind_text(struct db_stmt *st, int i, const char *v)
{
	return sqlite3_bind_text(ST(st), i, v, -1, SQLITE_TRANSIENT) == SQLITE_OK ? 0 : -1;
}

static int sq_bind_int64(struct db_stmt *st, int i, int64_t v)
{
	return sqlite3_bind_int64(ST(st), i, v) == SQLITE_OK ? 0 : -1;
}

static int sq_bind_double(struct db_stmt *st, int i, double v)
{
	return sqlite3_bind_double(ST(st), i, v) == SQLITE_OK ? 0 : -1;
}

static int sq_bind_null(struct db_stmt *st, int i)
{
	return sqlite3_bind_null(ST(st), i) == SQLITE_OK ? 0 : -1;
}

static int sq_step(struct db_stmt *st)
{
	int rc = sqlite3_step(ST(st));

	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

static void sq_reset(struct db_stmt *st)
{
	sqlite3_reset(ST(st));
	sqlite3_clear_bindings(ST(st));
}

static void sq_finalize(struct db_stmt *st)
{
	sqlite3_finalize(ST(st));
	free(st);
}

static bool sq_col_null(struct db_stmt *st, int i)
{
	return sqlite3_column_type(ST(st), i) == SQLITE_NULL;
}

static const char *sq_col_text(struct db_stmt *st, int i)
{
	return (const char *)sqlite3_column_text(ST(st), i);
}

static size_t sq_col_bytes(struct db_stmt *st, int i)
{
	return (size_t)sqlite3_column_bytes(ST(st), i);
}

static int64_t sq_col_int64(struct db_stmt *st, int i)
{
	return sqlite3_column_int64(ST(st), i);
}

static double sq_col_double(struct db_stmt *st, int i)
{
	return sqlite3_column_double(ST(st), i);
}

const struct db_ops db_sqlite_ops = {
	.connect = sq_connect,
	.disconnect = sq_disconnect,
	.exec = sq_exec,
	.begin = sq_begin,
	.schema_version = sq_schema_version,
	.set_schema_version = sq_set_schema_version,
	.is_empty = sq_is_empty,
	.prepare = sq_prepare,
	.message = sq_message,
	.bind_text = sq_bind_text,
	.bind_int64 = sq_bind_int64,
	.bind_double = sq_bind_double,
	.bind_null = sq_bind_null,
	.step = sq_step,
	.reset = sq_reset,
	.finalize = sq_finalize,
	.col_null = sq_col_null,
	.col_text = sq_col_text,
	.col_bytes = sq_col_bytes,
	.col_int64 = sq_col_int64,
	.col_double = sq_col_double,
};
