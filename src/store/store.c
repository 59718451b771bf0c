/*
 * The results store (store.h): where it is, opening it, migrating it
 * forward, recording a run, finding one again. Rows and queries are in
 * store/rows.c.
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
#include <time.h>
#include <unistd.h>

#include "doc/read.h"
#include "store/db.h"
#include "store/rows.h"
#include "store/store.h"
#include "base/util.h"

/* Long enough for another process's whole recording; a stuck one is an error. */
#define BUSY_TIMEOUT_MS 30000

/* Version 1 was the document alone; 2 added the tables beside it. */
static const char runs_v1[] =
	"CREATE TABLE runs (\n"
	"  id INTEGER PRIMARY KEY,\n"
	"  recorded TEXT NOT NULL,   -- when it entered the store, ISO 8601 UTC\n"
	"  document TEXT NOT NULL    -- the results document, as --json writes it\n"
	");\n";

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

static int user_version(struct store *s, int *v)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(s->db, "PRAGMA user_version", -1, &st, NULL);

	if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW)
		*v = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : -1;
}

static int table_count(struct store *s)
{
	sqlite3_stmt *st;
	int n = -1;

	if (sqlite3_prepare_v2(s->db, "SELECT count(*) FROM sqlite_master", -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return n;
}

/*
 * 1 -> 2: the normalised tables, filled from the documents. A document
 * the reader refuses (it cannot be one we wrote, but a store is a file
 * anyone can edit) stops the migration: nothing is half done.
 */
static int migrate_1_2(struct store *s, char *err, size_t errlen)
{
	sqlite3_stmt *st;
	int rc, ret = 0;

	if (sqlite3_exec(s->db, store_tables_v2, NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(s->db, "SELECT id, document FROM runs ORDER BY id", -1, &st, NULL) != SQLITE_OK)
		return store_fail(s, "cannot migrate results store", err, errlen);
	while (!ret && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct doc d = { .run_id = sqlite3_column_int64(st, 0) };
		size_t len = (size_t)sqlite3_column_bytes(st, 1);
		char *text = malloc(len + 1);

		if (!text)
			die("out of memory");
		memcpy(text, sqlite3_column_blob(st, 1), len);
		text[len] = '\0';
		snprintf(d.name, sizeof(d.name), "run %lld of '%s'", (long long)d.run_id, s->path);
		if (doc_parse(&d, text, len, err, errlen))
			ret = -1;
		else if (store_insert_rows(s, d.run_id, &d.r))
			ret = store_fail(s, "cannot migrate results store", err, errlen);
		doc_release(&d);
	}
	if (!ret && rc != SQLITE_DONE)
		ret = store_fail(s, "cannot migrate results store", err, errlen);
	sqlite3_finalize(st);
	return ret;
}

/* Under the write lock: another tracetax may have migrated meanwhile. */
static int migrate(struct store *s, char *err, size_t errlen)
{
	char sql[64];
	int v;

	if (sqlite3_exec(s->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
		return store_fail(s, "cannot open results store", err, errlen);
	if (user_version(s, &v))
		goto fail;
	if (v == 0 && table_count(s) != 0) {
		snprintf(err, errlen, "'%s' is not a tracetax results store", s->path);
		goto out;
	}
	if (v == 0 && (sqlite3_exec(s->db, runs_v1, NULL, NULL, NULL) != SQLITE_OK ||
		       sqlite3_exec(s->db, store_tables_v2, NULL, NULL, NULL) != SQLITE_OK))
		goto fail;
	if (v == 1 && migrate_1_2(s, err, errlen))
		goto out;
	snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", STORE_SCHEMA);
	if (v < STORE_SCHEMA && sqlite3_exec(s->db, sql, NULL, NULL, NULL) != SQLITE_OK)
		goto fail;
	if (sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL) == SQLITE_OK)
		return 0;
fail:
	store_fail(s, "cannot open results store", err, errlen);
out:
	sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	return -1;
}

struct store *store_open(const char *path, bool create, char *err, size_t errlen)
{
	struct store *s = calloc(1, sizeof(*s));
	struct stat st;
	int v;

	if (!s)
		die("out of memory");
	snprintf(s->path, sizeof(s->path), "%s", path);
	if (!create && stat(path, &st) < 0) {
		if (errno == ENOENT)
			snprintf(err, errlen, "no results store at '%s' (tracetax run records there)", path);
		else
			snprintf(err, errlen, "cannot open results store '%s': %s", path, strerror(errno));
		free(s);
		return NULL;
	}
	if (create && (make_parents(path, err, errlen) || check_writable(path, err, errlen))) {
		free(s);
		return NULL;
	}
	if (sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0),
			    NULL) != SQLITE_OK)
		goto fail;
	sqlite3_busy_timeout(s->db, BUSY_TIMEOUT_MS);
	sqlite3_extended_result_codes(s->db, 1);
	/* the first read of the file: "file is not a database" shows here */
	if (user_version(s, &v))
		goto fail;
	if (v > STORE_SCHEMA) {
		snprintf(err, errlen, "results store '%s' has schema version %d, newer than this "
			 "tracetax's %d: use a newer tracetax", path, v, STORE_SCHEMA);
		goto out;
	}
	if (v == 0 && !create && table_count(s) == 0) {
		snprintf(err, errlen, "'%s' is not a tracetax results store (empty)", path);
		goto out;
	}
	/* WAL persists in the file; set once, on the empty database */
	if (v == 0 && table_count(s) == 0 &&
	    sqlite3_exec(s->db, "PRAGMA journal_mode = WAL", NULL, NULL, NULL) != SQLITE_OK)
		goto fail;
	if (v < STORE_SCHEMA && migrate(s, err, errlen))
		goto out;
	if (sqlite3_exec(s->db, "PRAGMA foreign_keys = ON", NULL, NULL, NULL) != SQLITE_OK)
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
	sqlite3_close(s->db);
	free(s);
}

static void utc_now(char *buf, size_t len)
{
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

int store_record(struct store *s, const struct results *r, const char *doc, int64_t *id,
		 char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	char now[32];

	utc_now(now, sizeof(now));
	if (sqlite3_exec(s->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
		return store_fail(s, "cannot record the run in", err, errlen);
	if (sqlite3_prepare_v2(s->db, "INSERT INTO runs (recorded, document) VALUES (?, ?)", -1, &st,
			       NULL) != SQLITE_OK ||
	    sqlite3_bind_text(st, 1, now, -1, SQLITE_TRANSIENT) != SQLITE_OK ||
	    sqlite3_bind_text(st, 2, doc, -1, SQLITE_STATIC) != SQLITE_OK ||
	    sqlite3_step(st) != SQLITE_DONE)
		goto fail;
	*id = sqlite3_last_insert_rowid(s->db);
	if (store_insert_rows(s, *id, r) || sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		goto fail;
	sqlite3_finalize(st);
	return 0;
fail:
	store_fail(s, "cannot record the run in", err, errlen);
	sqlite3_finalize(st);
	sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
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
	sqlite3_stmt *st;
	int rc;

	if (back < 0 && parse_i64(spec, 1, INT64_MAX, &want)) {
		snprintf(err, errlen, "invalid run '%s' (an id, last, last~N, or a file)", spec);
		return 1;
	}
	rc = sqlite3_prepare_v2(s->db, back >= 0 ? "SELECT id FROM runs ORDER BY id DESC LIMIT 1 OFFSET ?"
				: "SELECT id FROM runs WHERE id = ?", -1, &st, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_int64(st, 1, back >= 0 ? back : want);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*id = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (rc == SQLITE_ROW)
		return 0;
	if (rc != SQLITE_DONE)
		return store_fail(s, "cannot read results store", err, errlen);
	snprintf(err, errlen, "no run '%s' in results store '%s'", spec, s->path);
	return 1;
}

int store_document(struct store *s, int64_t id, char **doc, size_t *len, char *err, size_t errlen)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(s->db, "SELECT document FROM runs WHERE id = ?", -1, &st, NULL);

	if (rc == SQLITE_OK)
		rc = sqlite3_bind_int64(st, 1, id);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*len = (size_t)sqlite3_column_bytes(st, 0);
		*doc = malloc(*len + 1);
		if (!*doc)
			die("out of memory");
		memcpy(*doc, sqlite3_column_blob(st, 0), *len);
		(*doc)[*len] = '\0';
	}
	sqlite3_finalize(st);
	if (rc == SQLITE_ROW)
		return 0;
	if (rc == SQLITE_DONE)
		snprintf(err, errlen, "no run %lld in results store '%s'", (long long)id, s->path);
	else
		store_fail(s, "cannot read results store", err, errlen);
	return -1;
}
