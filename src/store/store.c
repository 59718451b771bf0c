/*
 * The results store (store.h): where it is, opening it, migrating it
 * forward, recording a run, finding one again. The connection and its
 * engines are in store/db*.c, rows in store/rows.c, queries in
 * store/history.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "doc/read.h"
#include "store/db.h"
#include "store/rows.h"
#include "store/store.h"
#include "base/util.h"

/* Switching a new store to WAL while another process creates it: 5 s at most. */
#define WAL_TRIES 100
#define WAL_RETRY_US 50000

int store_path(const char *opt, char *buf, size_t len, char *err, size_t errlen)
{
	const char *env = getenv("TRACETAX_DB"), *xdg = getenv("XDG_DATA_HOME");
	const char *home = getenv("HOME");

	if (opt && *opt)
		snprintf(buf, len, "%s", opt);
	else if (env && *env)
		snprintf(buf, len, "%s", env);
	else if (xdg && *xdg == '/')	/* the spec ignores relative values */
		snprintf(buf, len, "%s/tracetax/results.db", xdg);
	else if (home && *home)
		snprintf(buf, len, "%s/.local/share/tracetax/results.db", home);
	else {
		snprintf(err, errlen, "no place for the results store: HOME is not set "
			 "(set TRACETAX_DB, or give --store or --no-store)");
		return -1;
	}
	return 0;
}

/*
 * The runs whose document @like matches (SQL LIKE; NULL: every run), each
 * document read back and @fill given its rows. A document the reader
 * refuses (it cannot be one we wrote, but a store is a file anyone can
 * edit) stops the migration: nothing is half done.
 */
static int fill_from_documents(struct store *s, const char *like,
			       int (*fill)(struct store *s, int64_t id, const struct results *r),
			       char *err, size_t errlen)
{
	struct db_stmt *st;
	int rc = 0, ret = 0;

	if (!(st = db_prepare(s, like ? "SELECT id, document FROM runs WHERE document LIKE ?1 ORDER BY id"
			      : "SELECT id, document FROM runs ORDER BY id")) ||
	    (like && db_bind_text(st, 1, like))) {
		db_finalize(st);
		return store_fail(s, "cannot migrate results store", err, errlen);
	}
	while (!ret && (rc = db_step(st)) == 1) {
		struct doc d = { .run_id = db_col_int64(st, 0) };
		size_t len = db_col_bytes(st, 1);
		char *text = malloc(len + 1);

		if (!text)
			die("out of memory");
		memcpy(text, db_col_text(st, 1), len);
		text[len] = '\0';
		snprintf(d.name, sizeof(d.name), "run %lld of '%s'", (long long)d.run_id, s->path);
		if (doc_parse(&d, text, len, err, errlen))
			ret = -1;
		else if (fill(s, d.run_id, &d.r))
			ret = store_fail(s, "cannot migrate results store", err, errlen);
		doc_release(&d);
	}
	if (!ret && rc != 0)
		ret = store_fail(s, "cannot migrate results store", err, errlen);
	db_finalize(st);
	return ret;
}

/*
 * Under the write lock: another tracetax may have migrated meanwhile.
 * SQLite steps through the versions; PostgreSQL stores began at 3. The
 * tables first, then the rows from the documents: 1 -> 2 fills the
 * normalised tables, 3 -> 4 the rule sets of audit:rules cells (recorded
 * by an older tracetax from a newer one's document: `import`), 4 -> 5 the
 * settings that change a cost (store_insert_settings).
 */
static int migrate(struct store *s, char *err, size_t errlen)
{
	bool empty;
	int v;

	if (db_begin(s, true))
		return store_fail(s, "cannot open results store", err, errlen);
	if (db_schema_version(s, &v) || db_is_empty(s, &empty))
		goto fail;
	if (v == 0 && !empty) {
		snprintf(err, errlen, "'%s' is not a tracetax results store", s->path);
		goto out;
	}
	if (v == 0 && s->engine == DB_PG) {
		if (db_exec(s, store_tables_pg))
			goto fail;
		v = STORE_SCHEMA;
	}
	if (v == 0 && db_exec(s, store_runs_v1))
		goto fail;
	if (v <= 1 && db_exec(s, store_tables_v2))
		goto fail;
	if (v < 3 && db_exec(s, store_runs_v3))
		goto fail;
	if (v < 4 && db_exec(s, store_cells_v4))
		goto fail;
	if (v == 1 && fill_from_documents(s, NULL, store_insert_rows, err, errlen))
		goto out;
	if (v >= 2 && v < 4 &&
	    fill_from_documents(s, "%\"audit_rules\"%", store_update_rules, err, errlen))
		goto out;
	/* 5: no new table, the settings that change a cost beside the environment */
	if (v >= 2 && v < 5 && fill_from_documents(s, NULL, store_insert_settings, err, errlen))
		goto out;
	if (db_set_schema_version(s, STORE_SCHEMA) || db_commit(s))
		goto fail;
	return 0;
fail:
	store_fail(s, "cannot open results store", err, errlen);
out:
	db_rollback(s);
	return -1;
}

struct store *store_open(const char *path, bool create, char *err, size_t errlen)
{
	struct store *s = calloc(1, sizeof(*s));
	bool empty;
	int v;

	if (!s)
		die("out of memory");
	if (db_connect(s, path, create, err, errlen))
		goto out;
	/* the first read of the file: "file is not a database" shows here */
	if (db_schema_version(s, &v))
		goto fail;
	if (v > STORE_SCHEMA) {
		snprintf(err, errlen, "results store '%s' has schema version %d, newer than this "
			 "tracetax's %d: use a newer tracetax", s->path, v, STORE_SCHEMA);
		goto out;
	}
	if (db_is_empty(s, &empty))
		goto fail;
	if (v == 0 && !create && empty) {
		snprintf(err, errlen, "'%s' is not a tracetax results store (empty)", s->path);
		goto out;
	}
	/*
	 * WAL persists in the file; set once, on the empty database. Changing
	 * the journal mode needs the file to itself, and SQLite answers BUSY
	 * at once rather than through the busy timeout when another process
	 * (a second writer creating the same store) holds it: try again.
	 */
	if (s->engine == DB_SQLITE && v == 0 && empty) {
		int tries = 0;

		while (db_exec(s, "PRAGMA journal_mode = WAL") && ++tries < WAL_TRIES)
			usleep(WAL_RETRY_US);
		if (tries == WAL_TRIES)
			goto fail;
	}
	if (v < STORE_SCHEMA && migrate(s, err, errlen))
		goto out;
	if (s->engine == DB_SQLITE && db_exec(s, "PRAGMA foreign_keys = ON"))
		goto fail;
	return s;
fail:
	store_fail(s, "cannot open results store", err, errlen);
out:
	store_close(s);
	return NULL;
}

void store_close(struct store *s)
{
	if (!s)
		return;
	db_disconnect(s);
	free(s);
}

const char *store_name(const struct store *s)
{
	return s->path;
}

int store_record(struct store *s, const struct results *r, const char *doc, const char *host_id,
		 int64_t *id, char *err, size_t errlen)
{
	struct db_stmt *st = NULL;
	char now[32];

	utc_iso(time(NULL), now, sizeof(now));
	if (db_begin(s, false))
		return store_fail(s, "cannot record the run in", err, errlen);
	if (!(st = db_prepare(s, "INSERT INTO runs (recorded, document, host_id) VALUES (?, ?, ?) "
			      "RETURNING id")) ||
	    db_bind_text(st, 1, now) || db_bind_string(st, 2, doc) || db_bind_text(st, 3, host_id) ||
	    db_step(st) != 1)
		goto fail;
	*id = db_col_int64(st, 0);
	/* SQLite: the statement ends when stepped to its end, before the next */
	if (db_step(st) != 0 || store_insert_rows(s, *id, r) || db_commit(s))
		goto fail;
	db_finalize(st);
	return 0;
fail:
	store_fail(s, "cannot record the run in", err, errlen);
	db_finalize(st);
	db_rollback(s);
	return -1;
}

/* "last" is 0 back, "last~N" N back. -1: not of that form. */
static int64_t back_of(const char *spec)
{
	int64_t n = 0;

	if (!strcmp(spec, "last"))
		return 0;
	if (strncmp(spec, "last~", 5) || parse_i64(spec + 5, 0, INT64_MAX, &n))
		return -1;
	return n;
}

int store_resolve(struct store *s, const char *spec, int64_t *id, char *err, size_t errlen)
{
	int64_t back = back_of(spec), want = 0;
	struct db_stmt *st;
	int rc = -1;

	if (back < 0 && parse_i64(spec, 1, INT64_MAX, &want)) {
		snprintf(err, errlen, "invalid run '%s' (an id, last, last~N, or a file)", spec);
		return 1;
	}
	st = db_prepare(s, back >= 0 ? "SELECT id FROM runs ORDER BY id DESC LIMIT 1 OFFSET ?"
			: "SELECT id FROM runs WHERE id = ?");
	if (st && !db_bind_int64(st, 1, back >= 0 ? back : want))
		rc = db_step(st);
	if (rc == 1)
		*id = db_col_int64(st, 0);
	db_finalize(st);
	if (rc == 1)
		return 0;
	if (rc != 0)
		return store_fail(s, "cannot read results store", err, errlen);
	snprintf(err, errlen, "no run '%s' in results store '%s'", spec, s->path);
	return 1;
}

int store_document(struct store *s, int64_t id, char **doc, size_t *len, char *err, size_t errlen)
{
	struct db_stmt *st = db_prepare(s, "SELECT document FROM runs WHERE id = ?");
	int rc = -1;

	if (st && !db_bind_int64(st, 1, id))
		rc = db_step(st);
	if (rc == 1) {
		*len = db_col_bytes(st, 0);
		*doc = malloc(*len + 1);
		if (!*doc)
			die("out of memory");
		memcpy(*doc, db_col_text(st, 0), *len);
		(*doc)[*len] = '\0';
	}
	db_finalize(st);
	if (rc == 1)
		return 0;
	if (rc == 0)
		snprintf(err, errlen, "no run %lld in results store '%s'", (long long)id, s->path);
	else
		store_fail(s, "cannot read results store", err, errlen);
	return -1;
}
