/* The store's history (store.h): runs and their cells, filtered, oldest first. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "base/util.h"
#include "store/db.h"
#include "store/store.h"

static void col_text(sqlite3_stmt *st, int i, char *dst, size_t len)
{
	const unsigned char *t = sqlite3_column_text(st, i);

	snprintf(dst, len, "%s", t ? (const char *)t : "");
}

static double col_num(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

#define ENV(name) "(SELECT value FROM environment WHERE run_id = r.id AND name = '" name "')"
#define COUNT(status) "(SELECT count(*) FROM cells WHERE run_id = r.id AND status = '" status "')"

static const char runs_sql[] =
	"SELECT * FROM (SELECT r.id, " ENV("started") ", " ENV("hostname") ", " ENV("kernel") ", "
	COUNT("ok") ", " COUNT("skipped") ", " COUNT("failed") " FROM runs r WHERE "
	"(?1 IS NULL OR EXISTS (SELECT 1 FROM cells c WHERE c.run_id = r.id AND c.workload = ?1)) AND "
	"(?2 IS NULL OR EXISTS (SELECT 1 FROM cells c WHERE c.run_id = r.id AND c.tracer GLOB ?2)) AND "
	"(?3 IS NULL OR " ENV("kernel") " GLOB ?3) ORDER BY r.id DESC LIMIT ?4) ORDER BY 1";

static const char cells_sql[] =
	"SELECT tracer, workload, threads, status, reason, overhead_ns, overhead_lo, overhead_hi, "
	"disturbed FROM cells WHERE run_id = ?1 AND tracer GLOB ?2 AND (?3 IS NULL OR workload = ?3) "
	"ORDER BY idx";

static const char tracers_sql[] =
	"SELECT tracer FROM cells WHERE run_id = ? GROUP BY tracer ORDER BY min(idx)";

static void list_tracers(sqlite3_stmt *st, struct store_run *run)
{
	size_t len = 0;
	bool cut = false;

	run->ntracers = 0;
	run->tracers[0] = '\0';
	sqlite3_bind_int64(st, 1, run->id);
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *t = (const char *)sqlite3_column_text(st, 0);

		run->ntracers++;
		if (cut || !t)
			continue;
		/* room for this one, a comma and ",..." after it */
		if (len + strlen(t) + 6 >= sizeof(run->tracers)) {
			strcpy(run->tracers + len, len ? ",..." : "...");
			cut = true;
			continue;
		}
		len += (size_t)snprintf(run->tracers + len, sizeof(run->tracers) - len, "%s%s",
					len ? "," : "", t);
	}
	sqlite3_reset(st);
}

static int walk_cells(sqlite3_stmt *st, const struct store_filter *f, const struct store_run *run,
		      int (*fn)(const struct store_run *, const struct store_cell *, void *), void *arg)
{
	int ret = 0;

	sqlite3_bind_int64(st, 1, run->id);
	sqlite3_bind_text(st, 2, f->tracer, -1, SQLITE_STATIC);
	store_bind_text(st, 3, f->workload);
	while (!ret && sqlite3_step(st) == SQLITE_ROW) {
		struct store_cell c;

		col_text(st, 0, c.tracer, sizeof(c.tracer));
		col_text(st, 1, c.workload, sizeof(c.workload));
		c.threads = sqlite3_column_int(st, 2);
		col_text(st, 3, c.status, sizeof(c.status));
		col_text(st, 4, c.reason, sizeof(c.reason));
		c.overhead = col_num(st, 5);
		c.lo = col_num(st, 6);
		c.hi = col_num(st, 7);
		c.disturbed = sqlite3_column_int(st, 8);
		ret = fn(run, &c, arg);
	}
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return ret;
}

int store_history(struct store *s, const struct store_filter *f,
		  int (*fn)(const struct store_run *run, const struct store_cell *cell, void *arg),
		  void *arg, char *err, size_t errlen)
{
	sqlite3_stmt *runs = NULL, *cells = NULL, *tracers = NULL;
	int rc, ret = 0;

	if (sqlite3_prepare_v2(s->db, runs_sql, -1, &runs, NULL) ||
	    sqlite3_prepare_v2(s->db, cells_sql, -1, &cells, NULL) ||
	    sqlite3_prepare_v2(s->db, tracers_sql, -1, &tracers, NULL)) {
		ret = store_fail(s, "cannot read results store", err, errlen);
		goto out;
	}
	store_bind_text(runs, 1, f->workload);
	store_bind_text(runs, 2, f->tracer);
	store_bind_text(runs, 3, f->kernel);
	sqlite3_bind_int(runs, 4, f->limit > 0 ? f->limit : -1);
	while (!ret && (rc = sqlite3_step(runs)) == SQLITE_ROW) {
		struct store_run run = { .id = sqlite3_column_int64(runs, 0) };

		col_text(runs, 1, run.started, sizeof(run.started));
		col_text(runs, 2, run.host, sizeof(run.host));
		col_text(runs, 3, run.kernel, sizeof(run.kernel));
		run.ok = sqlite3_column_int(runs, 4);
		run.skipped = sqlite3_column_int(runs, 5);
		run.failed = sqlite3_column_int(runs, 6);
		list_tracers(tracers, &run);
		ret = fn(&run, NULL, arg);
		if (!ret && f->tracer)
			ret = walk_cells(cells, f, &run, fn, arg);
	}
	if (!ret && rc != SQLITE_DONE)
		ret = store_fail(s, "cannot read results store", err, errlen);
out:
	sqlite3_finalize(runs);
	sqlite3_finalize(cells);
	sqlite3_finalize(tracers);
	return ret;
}

static const char cost_sql[] =
	"SELECT r.id, " ENV("started") ", c.reps, c.events, c.overhead_ns, c.overhead_lo, "
	"c.overhead_hi, c.consumer_ns FROM cells c JOIN runs r ON r.id = c.run_id "
	"WHERE c.tracer = ?1 AND c.workload = ?2 AND c.threads = 1 AND c.status = 'ok' "
	"AND c.disturbed = 0 AND c.overhead_lo IS NOT NULL AND " ENV("hostname") " = ?3 AND "
	ENV("kernel") " = ?4 AND " ENV("tracetax_version") " = ?5 AND " ENV("started") " >= ?6 "
	"ORDER BY r.id DESC LIMIT 1";

int store_find_cost(struct store *s, const struct store_cost_query *q, struct store_cost *out,
		    char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	int rc, ret = 1;

	if (sqlite3_prepare_v2(s->db, cost_sql, -1, &st, NULL))
		return store_fail(s, "cannot read results store", err, errlen);
	store_bind_text(st, 1, q->tracer);
	store_bind_text(st, 2, q->workload);
	store_bind_text(st, 3, q->hostname);
	store_bind_text(st, 4, q->kernel);
	store_bind_text(st, 5, q->version);
	store_bind_text(st, 6, q->since);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		memset(out, 0, sizeof(*out));
		out->run_id = sqlite3_column_int64(st, 0);
		col_text(st, 1, out->started, sizeof(out->started));
		out->reps = sqlite3_column_int(st, 2);
		out->events = sqlite3_column_int64(st, 3);
		out->ns = col_num(st, 4);
		out->lo = col_num(st, 5);
		out->hi = col_num(st, 6);
		out->consumer_ns = col_num(st, 7);
		ret = 0;
	} else if (rc != SQLITE_DONE) {
		ret = store_fail(s, "cannot read results store", err, errlen);
	}
	sqlite3_finalize(st);
	return ret;
}

static const char budgets_table[] =
	"CREATE TABLE IF NOT EXISTS budgets (\n"
	"  id INTEGER PRIMARY KEY,\n"
	"  recorded TEXT NOT NULL,   -- when it entered the store, ISO 8601 UTC\n"
	"  document TEXT NOT NULL    -- the budget document, as budget --json writes it\n"
	")";

int store_record_budget(struct store *s, const char *doc, int64_t *id, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	int ret = 0;

	if (sqlite3_exec(s->db, budgets_table, NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(s->db, "INSERT INTO budgets (recorded, document) VALUES "
			       "(strftime('%Y-%m-%dT%H:%M:%SZ', 'now'), ?1)", -1, &st, NULL) != SQLITE_OK)
		return store_fail(s, "cannot record the budget", err, errlen);
	sqlite3_bind_text(st, 1, doc, -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_DONE)
		ret = store_fail(s, "cannot record the budget", err, errlen);
	else
		*id = sqlite3_last_insert_rowid(s->db);
	sqlite3_finalize(st);
	return ret;
}

int store_budgets(struct store *s, int limit,
		  int (*fn)(int64_t id, const char *doc, size_t len, void *arg), void *arg,
		  char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	int rc, ret = 0;

	if (sqlite3_prepare_v2(s->db, "SELECT count(*) FROM sqlite_master WHERE type = 'table' "
			       "AND name = 'budgets'", -1, &st, NULL) != SQLITE_OK)
		return store_fail(s, "cannot read results store", err, errlen);
	rc = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int(st, 0) : -1;
	sqlite3_finalize(st);
	if (rc <= 0)
		return rc < 0 ? store_fail(s, "cannot read results store", err, errlen) : 0;
	if (sqlite3_prepare_v2(s->db, "SELECT * FROM (SELECT id, document FROM budgets ORDER BY id "
			       "DESC LIMIT ?1) ORDER BY id", -1, &st, NULL) != SQLITE_OK)
		return store_fail(s, "cannot read results store", err, errlen);
	sqlite3_bind_int(st, 1, limit > 0 ? limit : -1);
	while (!ret && (rc = sqlite3_step(st)) == SQLITE_ROW)
		ret = fn(sqlite3_column_int64(st, 0), (const char *)sqlite3_column_text(st, 1),
			 (size_t)sqlite3_column_bytes(st, 1), arg);
	if (!ret && rc != SQLITE_DONE)
		ret = store_fail(s, "cannot read results store", err, errlen);
	sqlite3_finalize(st);
	return ret;
}
