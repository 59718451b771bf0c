/*
 * The store's connection (db.h): the engine a path names, what may be
 * printed of it, and the calls both engines answer.
 */
#include <ctype.h>
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

bool db_is_pg(const char *path)
{
	if (!strncmp(path, "postgresql://", 13) || !strncmp(path, "postgres://", 11))
		return true;
	/* libpq's test is a '=' alone; a file name may hold one: every word a keyword too */
	return strchr(path, '=') && db_pg_conninfo(path);
}

/* A secret of libpq's: the password, or the SSL key's. */
static bool secret_key(const char *key, size_t n)
{
	return (n == 8 && !strncmp(key, "password", 8)) || (n == 11 && !strncmp(key, "sslpassword", 11));
}

/* libpq percent-decodes a URI's parameter names too: "pass%77ord" is "password". */
static bool secret_param(const char *key, size_t n)
{
	char dec[16];
	size_t o = 0;

	for (size_t i = 0; i < n; i++) {
		if (o + 1 >= sizeof(dec))
			return false;
		if (key[i] == '%' && i + 2 < n && isxdigit((unsigned char)key[i + 1]) &&
		    isxdigit((unsigned char)key[i + 2])) {
			char hex[3] = { key[i + 1], key[i + 2], '\0' };

			dec[o++] = (char)strtol(hex, NULL, 16);
			i += 2;
		} else {
			dec[o++] = key[i];
		}
	}
	return secret_key(dec, o);
}

/*
 * Where the userinfo of a URI ends (its '@'), or NULL. libpq takes the
 * userinfo up to the first '@', if one comes before any '/': a '?' may
 * stand in a password as it is ("user:pa?ss@host"). A raw '@' or '/' in a
 * password is not libpq's syntax (it wants %40, %2F), but printing one is
 * still a leak: the userinfo is taken to run to the last '@' before the
 * path or the query that follows, and with a '/' first, to the last '@'
 * before any query.
 */
static const char *userinfo_end(const char *auth)
{
	const char *p = auth + strcspn(auth, "@/"), *at = NULL, *stop;

	if (*p == '@') {
		stop = p + 1 + strcspn(p + 1, "/?");
		for (; p < stop; p++)
			if (*p == '@')
				at = p;
		return at;
	}
	stop = auth + strcspn(auth, "?");
	for (p = auth; p < stop; p++)
		if (*p == '@')
			at = p;
	return at;
}

/*
 * postgresql://user:secret@host/db?password=secret&x=y ->
 * postgresql://user@host/db?x=y.
 */
static void redact_uri(const char *uri, const char *auth, char *buf, size_t len)
{
	const char *at = userinfo_end(auth), *colon = NULL, *rest, *query;
	size_t o;

	if (at)
		colon = memchr(auth, ':', (size_t)(at - auth));
	/* up to the password, then from '@' to the query */
	rest = at ? at : auth;
	query = strchr(rest, '?');
	o = (size_t)snprintf(buf, len, "%.*s%.*s", (int)((colon ? colon : rest) - uri), uri,
			     (int)(query ? (size_t)(query - rest) : strlen(rest)), rest);
	for (const char *p = query; p && *p && o < len;) {
		const char *param = p + 1, *next = strchr(param, '&');
		size_t n = next ? (size_t)(next - param) : strlen(param);

		if (n && !secret_param(param, strcspn(param, "=&")))
			o += (size_t)snprintf(buf + o, len - o, "%c%.*s", strchr(buf, '?') ? '&' : '?',
					      (int)n, param);
		p = next;
	}
}

/*
 * libpq's key=value conninfo: "host=h password = 'a b\'c' dbname=d" ->
 * "host=h dbname=d". A value is a single-quoted string (backslash escapes)
 * or runs to the next white space (a backslash escapes there too).
 */
static void redact_conninfo(const char *s, char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = '\0';
	while (*s) {
		const char *start, *key, *p;
		size_t klen;

		s += strspn(s, " \t\n\r\f\v");
		if (!*s)
			break;
		start = key = s;
		klen = strcspn(key, "= \t\n\r\f\v");
		p = key + klen;
		p += strspn(p, " \t\n\r\f\v");
		if (*p == '=') {
			p++;
			p += strspn(p, " \t\n\r\f\v");
			if (*p == '\'') {
				for (p++; *p && *p != '\''; p++)
					if (*p == '\\' && p[1])
						p++;
				if (*p)
					p++;
			} else {
				for (; *p && !isspace((unsigned char)*p); p++)
					if (*p == '\\' && p[1])
						p++;
			}
		}
		s = p;
		if (secret_key(key, klen) || o >= len)
			continue;
		o += (size_t)snprintf(buf + o, len - o, "%s%.*s", o ? " " : "", (int)(p - start), start);
	}
}

void db_redact(const char *uri, char *buf, size_t len)
{
	const char *auth = strstr(uri, "://");

	if (auth && (!strncmp(uri, "postgresql://", 13) || !strncmp(uri, "postgres://", 11)))
		redact_uri(uri, auth + 3, buf, len);
	else if (db_is_pg(uri))
		redact_conninfo(uri, buf, len);
	else
		snprintf(buf, len, "%s", uri);
}

int db_connect(struct store *s, const char *path, bool create, char *err, size_t errlen)
{
	s->engine = db_is_pg(path) ? DB_PG : DB_SQLITE;
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
