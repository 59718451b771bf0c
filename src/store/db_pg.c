/*
 * The PostgreSQL engine of the store (db.h): one database that several
 * hosts record in at once. Statements are sent with their values as text
 * (PQexecParams): the server types each `$N` from where it stands, as it
 * would a literal.
 *
 * A run is one transaction: a tracetax killed in the middle leaves an
 * open transaction on a connection that closes, which the server rolls
 * back; nothing of it is ever seen. The schema lives in a table of its
 * own (tracetax_schema), and its creation or migration is serialised by a
 * transaction-scoped advisory lock, as SQLite's BEGIN IMMEDIATE does.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libpq-fe.h>

#include "base/util.h"
#include "store/db.h"

#define PG(s) ((PGconn *)(s)->conn)
#define RES(st) ((PGresult *)(st)->res)

/* pg_advisory_xact_lock's key: "tracetax" in ASCII, for the schema's changes. */
#define SCHEMA_LOCK "7526676369036195960"

/* libpq's messages end in a newline and may run over lines: one line. */
static void keep_message(struct store *s, const char *m)
{
	char *p;

	snprintf(s->msg, sizeof(s->msg), "%s", m && *m ? m : "unknown error");
	for (p = s->msg; *p; p++)
		if (*p == '\n' || *p == '\t')
			*p = ' ';
	while (p > s->msg && p[-1] == ' ')
		*--p = '\0';
	/* "ERROR:  relation ..." -> "relation ..." */
	if (!strncmp(s->msg, "ERROR:  ", 8))
		memmove(s->msg, s->msg + 8, strlen(s->msg + 8) + 1);
}

static const char *pg_message(struct store *s)
{
	return s->msg;
}

static void quiet(void *arg, const char *message)
{
	(void)arg;
	(void)message;
}

static int pg_connect(struct store *s, const char *path, bool create, char *err, size_t errlen)
{
	/*
	 * The URI expands over the keywords before it: its own
	 * connect_timeout wins over ours, which bounds an unreachable server.
	 */
	const char *const keys[] = { "connect_timeout", "application_name", "dbname", NULL };
	const char *const vals[] = { "10", "tracetax", path, NULL };
	PGconn *c = PQconnectdbParams(keys, vals, 1);

	(void)create;
	if (!c)
		die("out of memory");
	s->conn = c;
	if (PQstatus(c) != CONNECTION_OK) {
		keep_message(s, PQerrorMessage(c));
		snprintf(err, errlen, "cannot connect to results store '%s': %s", s->path, s->msg);
		return -1;
	}
	/* notices (IF NOT EXISTS...) are not ours to print */
	PQsetNoticeProcessor(c, quiet, NULL);
	return 0;
}

bool db_pg_conninfo(const char *s)
{
	char *msg = NULL;
	PQconninfoOption *o = PQconninfoParse(s, &msg);

	PQfreemem(msg);
	if (!o)
		return false;
	PQconninfoFree(o);
	return true;
}

static void pg_disconnect(struct store *s)
{
	PQfinish(PG(s));
}

/* Keeps the result only when it has rows to read; -1 on an error. */
static int pg_check(struct store *s, PGresult *r)
{
	ExecStatusType st = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;

	if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK)
		return 0;
	keep_message(s, r ? PQresultErrorMessage(r) : PQerrorMessage(PG(s)));
	return -1;
}

static int pg_exec(struct store *s, const char *sql)
{
	PGresult *r = PQexec(PG(s), sql);
	int ret = pg_check(s, r);

	PQclear(r);
	return ret;
}

static int pg_begin(struct store *s, bool schema)
{
	if (pg_exec(s, "BEGIN"))
		return -1;
	if (schema && pg_exec(s, "SELECT pg_advisory_xact_lock(" SCHEMA_LOCK ")")) {
		pg_exec(s, "ROLLBACK");
		return -1;
	}
	return 0;
}

/* One value of a one-row query into @out; 1 when there is no row. */
static int pg_scalar(struct store *s, const char *sql, long long *out)
{
	PGresult *r = PQexec(PG(s), sql);
	int ret = pg_check(s, r);

	if (!ret && PQntuples(r) < 1)
		ret = 1;
	else if (!ret)
		*out = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
	PQclear(r);
	return ret;
}

static int pg_schema_version(struct store *s, int *v)
{
	long long n = 0, ver = 0;
	int rc;

	if (pg_scalar(s, "SELECT count(*) FROM pg_tables WHERE schemaname = current_schema() "
		      "AND tablename = 'tracetax_schema'", &n))
		return -1;
	if (!n) {
		*v = 0;
		return 0;
	}
	rc = pg_scalar(s, "SELECT max(version) FROM tracetax_schema", &ver);
	if (rc < 0)
		return -1;
	*v = (int)ver;
	return 0;
}

static int pg_set_schema_version(struct store *s, int v)
{
	char sql[128];

	snprintf(sql, sizeof(sql), "DELETE FROM tracetax_schema; INSERT INTO tracetax_schema VALUES (%d)", v);
	return pg_exec(s, sql);
}

static int pg_is_empty(struct store *s, bool *empty)
{
	long long n = 0;

	/* other tables of the database are not ours to mind: only those of our names */
	if (pg_scalar(s, "SELECT count(*) FROM pg_tables WHERE schemaname = current_schema() AND "
		      "tablename IN ('runs', 'environment', 'cells', 'reps', 'tracetax_schema')", &n))
		return -1;
	*empty = n == 0;
	return 0;
}

/* `?` and `?N` to `$N`, and GLOB to `~` (db_bind_glob makes the pattern a regex). */
static struct db_stmt *pg_prepare(struct store *s, const char *sql)
{
	struct db_stmt *st = calloc(1, sizeof(*st));
	char *o;
	int next = 1;

	if (!st || !(st->sql = malloc(strlen(sql) * 3 + 1)))
		die("out of memory");
	st->s = s;
	o = st->sql;
	for (const char *p = sql; *p;) {
		if (*p == '?') {
			int n;

			p++;
			if (*p >= '0' && *p <= '9')
				n = (int)strtol(p, (char **)&p, 10);
			else
				n = next;
			next = n + 1;
			if (n > st->nparams)
				st->nparams = n;
			o += sprintf(o, "$%d", n);
		} else if (!strncmp(p, " GLOB ", 6)) {
			o += sprintf(o, " ~ ");
			p += 6;
		} else {
			*o++ = *p++;
		}
	}
	*o = '\0';
	if (st->nparams > (int)(sizeof(st->values) / sizeof(st->values[0]))) {
		snprintf(s->msg, sizeof(s->msg), "too many parameters");
		free(st->sql);
		free(st);
		return NULL;
	}
	return st;
}

static int pg_bind(struct db_stmt *st, int i, char *v)
{
	if (i < 1 || i > st->nparams) {
		free(v);
		return -1;
	}
	free(st->values[i - 1]);
	st->values[i - 1] = v;
	return 0;
}

static int pg_bind_text(struct db_stmt *st, int i, const char *v)
{
	char *copy = strdup(v);

	if (!copy)
		die("out of memory");
	return pg_bind(st, i, copy);
}

static int pg_bind_int64(struct db_stmt *st, int i, int64_t v)
{
	char *t;

	if (asprintf(&t, "%lld", (long long)v) < 0)
		die("out of memory");
	return pg_bind(st, i, t);
}

/* 17 significant digits: the double itself, as SQLite keeps it. */
static int pg_bind_double(struct db_stmt *st, int i, double v)
{
	char *t;

	if (asprintf(&t, "%.17g", v) < 0)
		die("out of memory");
	return pg_bind(st, i, t);
}

static int pg_bind_null(struct db_stmt *st, int i)
{
	return pg_bind(st, i, NULL);
}

static int pg_step(struct db_stmt *st)
{
	if (!st->res) {
		PGresult *r = PQexecParams(PG(st->s), st->sql, st->nparams, NULL,
					   (const char *const *)st->values, NULL, NULL, 0);

		if (pg_check(st->s, r)) {
			PQclear(r);
			return -1;
		}
		st->res = r;
		st->row = -1;
		st->nrows = PQntuples(r);
	}
	if (st->row + 1 >= st->nrows) {
		st->row = st->nrows;
		return 0;
	}
	st->row++;
	return 1;
}

static void pg_reset(struct db_stmt *st)
{
	PQclear(RES(st));
	st->res = NULL;
	for (int i = 0; i < st->nparams; i++) {
		free(st->values[i]);
		st->values[i] = NULL;
	}
}

static void pg_finalize(struct db_stmt *st)
{
	pg_reset(st);
	free(st->sql);
	free(st);
}

static bool pg_col_null(struct db_stmt *st, int i)
{
	return !st->res || st->row < 0 || st->row >= st->nrows || PQgetisnull(RES(st), st->row, i);
}

static const char *pg_col_text(struct db_stmt *st, int i)
{
	return PQgetvalue(RES(st), st->row, i);
}

static size_t pg_col_bytes(struct db_stmt *st, int i)
{
	return pg_col_null(st, i) ? 0 : (size_t)PQgetlength(RES(st), st->row, i);
}

static int64_t pg_col_int64(struct db_stmt *st, int i)
{
	return strtoll(PQgetvalue(RES(st), st->row, i), NULL, 10);
}

static double pg_col_double(struct db_stmt *st, int i)
{
	return strtod(PQgetvalue(RES(st), st->row, i), NULL);
}

const struct db_ops db_pg_ops = {
	.connect = pg_connect,
	.disconnect = pg_disconnect,
	.exec = pg_exec,
	.begin = pg_begin,
	.schema_version = pg_schema_version,
	.set_schema_version = pg_set_schema_version,
	.is_empty = pg_is_empty,
	.prepare = pg_prepare,
	.message = pg_message,
	.bind_text = pg_bind_text,
	.bind_int64 = pg_bind_int64,
	.bind_double = pg_bind_double,
	.bind_null = pg_bind_null,
	.step = pg_step,
	.reset = pg_reset,
	.finalize = pg_finalize,
	.col_null = pg_col_null,
	.col_text = pg_col_text,
	.col_bytes = pg_col_bytes,
	.col_int64 = pg_col_int64,
	.col_double = pg_col_double,
};
