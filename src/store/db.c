/*
 * The store's connection (db.h): the engine a path names, what may be
 * printed of it, and the calls both engines answer.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "store/db.h"

static const struct db_ops *ops(const struct store *s)
{
	return s->engine == DB_PG ? &db_pg_ops : &db_sqlite_ops;
}

bool db_is_uri(const char *path)
{
	return !strncmp(path, "postgresql://", 13) || !strncmp(path, "postgres://", 11);
}

/*
 * postgresql://user:secret@host/db?password=secret&x=y ->
 * postgresql://user@host/db?x=y. The userinfo ends at the last '@' before
 * the path.
 */
void db_redact(const char *uri, char *buf, size_t len)
{
	const char *auth = strstr(uri, "://"), *end, *at = NULL, *colon = NULL, *query;
	size_t o = 0;

	if (!auth || !db_is_uri(uri)) {
		snprintf(buf, len, "%s", uri);
		return;
	}
	auth += 3;
	end = auth + strcspn(auth, "/?");
	for (const char *p = auth; p < end; p++)
		if (*p == '@')
			at = p;
	if (at)
		colon = memchr(auth, ':', (size_t)(at - auth));
	query = strchr(end, '?');
	/* up to the password, then from '@' to the query */
	o += (size_t)snprintf(buf + o, len - o, "%.*s", (int)((colon ? colon : at ? at : auth) - uri), uri);
	if (o < len)
		o += (size_t)snprintf(buf + o, len - o, "%.*s", (int)((query ? query : end + strlen(end)) -
								(colon ? at : at ? at : auth)),
				      colon ? at : at ? at : auth);
	for (const char *p = query; p && *p && o < len;) {
		const char *param = p + 1, *next = strchr(param, '&');
		size_t n = next ? (size_t)(next - param) : strlen(param);

		if (strncmp(param, "password=", 9) && n)
			o += (size_t)snprintf(buf + o, len - o, "%c%.*s", strchr(buf, '?') ? '&' : '?',
					      (int)n, param);
		p = next;
	}
}

int db_connect(struct store *s, const char *path, bool create, char *err, size_t errlen)
{
	s->engine = db_is_uri(path) ? DB_PG : DB_SQLITE;
	if (s->engine == DB_PG)
		db_redact(path, s->path, sizeof(s->path));
	else
		snprintf(s->path, sizeof(s->path), "%s", path);
	return ops(s)->connect(s, path, create, err, errlen);
}

void db_disconnect(struct store *s)
{
	if (s->conn)
		ops(s)->disconnect(s);
	s->conn = NULL;
}

int db_exec(struct store *s, const char *sql) { return ops(s)->exec(s, sql); }
int db_begin(struct store *s, bool schema) { return ops(s)->begin(s, schema); }
int db_commit(struct store *s) { return ops(s)->exec(s, "COMMIT"); }
int db_schema_version(struct store *s, int *v) { return ops(s)->schema_version(s, v); }
int db_set_schema_version(struct store *s, int v) { return ops(s)->set_schema_version(s, v); }
int db_is_empty(struct store *s, bool *empty) { return ops(s)->is_empty(s, empty); }
struct db_stmt *db_prepare(struct store *s, const char *sql) { return ops(s)->prepare(s, sql); }

/* The error of the failed statement stays what store_fail says. */
void db_rollback(struct store *s)
{
	char keep[sizeof(s->msg)];

	memcpy(keep, s->msg, sizeof(keep));
	ops(s)->exec(s, "ROLLBACK");
	memcpy(s->msg, keep, sizeof(keep));
}

int db_bind_text(struct db_stmt *st, int i, const char *v)
{
	return v && *v ? ops(st->s)->bind_text(st, i, v) : ops(st->s)->bind_null(st, i);
}

int db_bind_string(struct db_stmt *st, int i, const char *v) { return ops(st->s)->bind_text(st, i, v); }
int db_bind_int64(struct db_stmt *st, int i, int64_t v) { return ops(st->s)->bind_int64(st, i, v); }
int db_bind_null(struct db_stmt *st, int i) { return ops(st->s)->bind_null(st, i); }

int db_bind_double(struct db_stmt *st, int i, double v)
{
	return isfinite(v) ? ops(st->s)->bind_double(st, i, v) : ops(st->s)->bind_null(st, i);
}

/*
 * SQLite's GLOB takes the glob; PostgreSQL's `~` a POSIX regular
 * expression: '*' '.*', '?' '.', a bracket expression as it is ([!...]
 * as [^...]), every other character literal.
 */
int db_bind_glob(struct db_stmt *st, int i, const char *glob)
{
	char *re, *o;
	int ret;

	if (!glob || st->s->engine == DB_SQLITE)
		return db_bind_text(st, i, glob);
	re = malloc(strlen(glob) * 2 + 3);
	if (!re)
		die("out of memory");
	o = re;
	*o++ = '^';
	for (const char *p = glob; *p; p++) {
		if (*p == '*') {
			*o++ = '.';
			*o++ = '*';
		} else if (*p == '?') {
			*o++ = '.';
		} else if (*p == '[' && strchr(p + 1, ']')) {
			const char *close = strchr(p + 2, ']') ? strchr(p + 2, ']') : strchr(p + 1, ']');

			*o++ = '[';
			p++;
			if (*p == '!') {
				*o++ = '^';
				p++;
			}
			while (p < close)
				*o++ = *p++;
			*o++ = ']';
		} else {
			if (strchr("\\.^$|()+{}[]", *p))
				*o++ = '\\';
			*o++ = *p;
		}
	}
	*o++ = '$';
	*o = '\0';
	ret = ops(st->s)->bind_text(st, i, re);
	free(re);
	return ret;
}

int db_step(struct db_stmt *st) { return ops(st->s)->step(st); }
void db_reset(struct db_stmt *st) { ops(st->s)->reset(st); }

void db_finalize(struct db_stmt *st)
{
	if (st)
		ops(st->s)->finalize(st);
}

const char *db_col_text(struct db_stmt *st, int i)
{
	return ops(st->s)->col_null(st, i) ? NULL : ops(st->s)->col_text(st, i);
}

size_t db_col_bytes(struct db_stmt *st, int i) { return ops(st->s)->col_bytes(st, i); }

int64_t db_col_int64(struct db_stmt *st, int i)
{
	return ops(st->s)->col_null(st, i) ? 0 : ops(st->s)->col_int64(st, i);
}

double db_col_double(struct db_stmt *st, int i)
{
	return ops(st->s)->col_null(st, i) ? NAN : ops(st->s)->col_double(st, i);
}

int store_fail(struct store *s, const char *what, char *err, size_t errlen)
{
	snprintf(err, errlen, "%s '%s': %s", what, s->path, ops(s)->message(s));
	return -1;
}
