/* The store's history (store.h): runs and their cells, filtered, oldest first. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "base/util.h"
#include "store/db.h"
#include "store/rows.h"
#include "store/stand.h"
#include "store/store.h"

static void col_text(struct db_stmt *st, int i, char *dst, size_t len)
{
	const char *t = db_col_text(st, i);

	snprintf(dst, len, "%s", t ? t : "");
}

#define COUNT(status) "(SELECT count(*) FROM cells WHERE run_id = r.id AND status = '" status "')"

/* Both engines (db.h): CAST(? AS TEXT) IS NULL, GLOB, an alias for the subquery. */
static const char runs_sql[] =
	"SELECT * FROM (SELECT r.id, " STORE_ENV("started") ", " STORE_ENV("hostname") ", " STORE_ENV("kernel") ", "
	COUNT("ok") ", " COUNT("skipped") ", " COUNT("failed") ", r.host_id, "
	/* a guest under qemu's -icount: "tcg icount", its figures instructions */
	"COALESCE(" STORE_ENV("vm") ", '') || CASE WHEN COALESCE(" STORE_ENV("unit") ", '') = "
	"'instructions' THEN ' icount' ELSE '' END FROM runs r WHERE "
	"(CAST(?1 AS TEXT) IS NULL OR EXISTS (SELECT 1 FROM cells c WHERE c.run_id = r.id AND c.workload = ?1)) AND "
	"(CAST(?2 AS TEXT) IS NULL OR EXISTS (SELECT 1 FROM cells c WHERE c.run_id = r.id AND c.tracer GLOB ?2)) AND "
	"(CAST(?3 AS TEXT) IS NULL OR " STORE_ENV("kernel") " GLOB ?3) ORDER BY r.id DESC LIMIT ?4) AS h ORDER BY 1";

static const char cells_sql[] =
	"SELECT tracer, workload, threads, status, reason, overhead_ns, overhead_lo, overhead_hi, "
	"disturbed FROM cells WHERE run_id = ?1 AND tracer GLOB ?2 AND "
	"(CAST(?3 AS TEXT) IS NULL OR workload = ?3) ORDER BY idx";

static const char tracers_sql[] =
	"SELECT tracer FROM cells WHERE run_id = ? GROUP BY tracer ORDER BY min(idx)";

static int list_tracers(struct db_stmt *st, struct store_run *run)
{
	size_t len = 0;
	bool cut = false;
	int rc;

	run->ntracers = 0;
	run->tracers[0] = '\0';
	db_bind_int64(st, 1, run->id);
	while ((rc = db_step(st)) == 1) {
		const char *t = db_col_text(st, 0);

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
	db_reset(st);
	return rc;
}

static int walk_cells(struct db_stmt *st, const struct store_filter *f, const struct store_run *run,
		      int (*fn)(const struct store_run *, const struct store_cell *, void *), void *arg,
		      int *rc)
{
	int ret = 0;

	db_bind_int64(st, 1, run->id);
	db_bind_glob(st, 2, f->tracer);
	db_bind_text(st, 3, f->workload);
	while (!ret && (*rc = db_step(st)) == 1) {
		struct store_cell c;

		col_text(st, 0, c.tracer, sizeof(c.tracer));
		col_text(st, 1, c.workload, sizeof(c.workload));
		c.threads = (int)db_col_int64(st, 2);
		col_text(st, 3, c.status, sizeof(c.status));
		col_text(st, 4, c.reason, sizeof(c.reason));
		c.overhead = db_col_double(st, 5);
		c.lo = db_col_double(st, 6);
		c.hi = db_col_double(st, 7);
		c.disturbed = db_col_int64(st, 8);
		ret = fn(run, &c, arg);
	}
	db_reset(st);
	return ret;
}

int store_history(struct store *s, const struct store_filter *f,
		  int (*fn)(const struct store_run *run, const struct store_cell *cell, void *arg),
		  void *arg, char *err, size_t errlen)
{
	struct db_stmt *runs = NULL, *cells = NULL, *tracers = NULL;
	int rc = -1, ret = 0;

	/* PostgreSQL: one query's rows are read whole, so the others may run meanwhile */
	if (!(runs = db_prepare(s, runs_sql)) || !(cells = db_prepare(s, cells_sql)) ||
	    !(tracers = db_prepare(s, tracers_sql))) {
		ret = store_fail(s, "cannot read results store", err, errlen);
		goto out;
	}
	db_bind_text(runs, 1, f->workload);
	db_bind_glob(runs, 2, f->tracer);
	db_bind_glob(runs, 3, f->kernel);
	db_bind_int64(runs, 4, f->limit > 0 ? f->limit : INT_MAX);
	while (!ret && (rc = db_step(runs)) == 1) {
		struct store_run run = { .id = db_col_int64(runs, 0) };

		col_text(runs, 1, run.started, sizeof(run.started));
		col_text(runs, 2, run.host, sizeof(run.host));
		col_text(runs, 3, run.kernel, sizeof(run.kernel));
		run.ok = (int)db_col_int64(runs, 4);
		run.skipped = (int)db_col_int64(runs, 5);
		run.failed = (int)db_col_int64(runs, 6);
		col_text(runs, 7, run.host_id, sizeof(run.host_id));
		col_text(runs, 8, run.vm, sizeof(run.vm));
		if (list_tracers(tracers, &run) < 0) {
			rc = -1;
			break;
		}
		ret = fn(&run, NULL, arg);
		if (!ret && f->tracer) {
			int crc = 0;

			ret = walk_cells(cells, f, &run, fn, arg, &crc);
			if (!ret && crc < 0) {
				rc = -1;
				break;
			}
		}
	}
	if (!ret && rc != 0)
		ret = store_fail(s, "cannot read results store", err, errlen);
out:
	db_finalize(runs);
	db_finalize(cells);
	db_finalize(tracers);
	return ret;
}

struct cost_pick {
	const char *digest;       /* the rule set preferred; NULL: none */
	struct store_cost *out;
	bool found;
};

/*
 * The first that stands: the newest run's (store_stand_walk walks newest
 * first); with a rule set asked for, the newest of that set, else the
 * newest of any.
 */
static int first_cost(const struct stand_cell *c, void *arg)
{
	struct cost_pick *p = arg;
	struct store_cost *out = p->out;
	bool match = p->digest && !strcmp(c->rules.digest, p->digest);

	if (p->found && !match)
		return 0;
	memset(out, 0, sizeof(*out));
	out->run_id = c->run_id;
	out->idx = c->idx;
	snprintf(out->started, sizeof(out->started), "%s", c->started);
	out->reps = c->reps;
	out->events = c->events;
	out->ns = c->ns;
	out->lo = c->lo;
	out->hi = c->hi;
	out->consumer_ns = c->consumer_ns;
	out->rules = c->rules;
	out->rules_match = match;
	p->found = true;
	return !p->digest || match;
}

int store_find_cost(struct store *s, const struct store_cost_query *q, struct store_cost *out,
		    char *err, size_t errlen)
{
	struct stand_query sq = {
		.hostname = q->hostname, .kernel = q->kernel, .host_id = q->host_id,
		.version = q->version, .since = q->since, .tracer = q->tracer,
		.workload = q->workload, .threads = 1, .target = q->target,
	};
	struct cost_pick p = { .digest = q->rules_digest, .out = out };
	int rc = store_stand_walk(s, &sq, first_cost, &p, err, errlen);

	return rc < 0 ? -1 : p.found ? 0 : 1;
}

/* Budget documents, in a table of their own: created when first needed, no migration. */
static int budgets_table(struct store *s)
{
	return db_exec(s, s->engine == DB_PG ?
		       "CREATE TABLE IF NOT EXISTS budgets (\n"
		       "  id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,\n"
		       "  recorded TEXT NOT NULL,\n"
		       "  document TEXT NOT NULL\n"
		       ")" :
		       "CREATE TABLE IF NOT EXISTS budgets (\n"
		       "  id INTEGER PRIMARY KEY,\n"
		       "  recorded TEXT NOT NULL,   -- when it entered the store, ISO 8601 UTC\n"
		       "  document TEXT NOT NULL    -- the budget document, as budget --json writes it\n"
		       ")");
}

int store_record_budget(struct store *s, const char *doc, int64_t *id, char *err, size_t errlen)
{
	struct db_stmt *st;
	char now[UTC_ISO_LEN];
	int ret = 0;

	utc_iso(time(NULL), now, sizeof(now));
	if (budgets_table(s) ||
	    !(st = db_prepare(s, "INSERT INTO budgets (recorded, document) VALUES (?1, ?2) RETURNING id")))
		return store_fail(s, "cannot record the budget", err, errlen);
	db_bind_string(st, 1, now);
	db_bind_string(st, 2, doc);
	if (db_step(st) != 1)
		ret = store_fail(s, "cannot record the budget", err, errlen);
	else
		*id = db_col_int64(st, 0);
	db_finalize(st);
	return ret;
}

int store_budgets(struct store *s, int limit,
		  int (*fn)(int64_t id, const char *doc, size_t len, void *arg), void *arg,
		  char *err, size_t errlen)
{
	struct db_stmt *st;
	int rc, ret = 0;

	/* a store that cannot take the table (read-only) has no budgets */
	if (budgets_table(s))
		return 0;
	if (!(st = db_prepare(s, "SELECT * FROM (SELECT id, document FROM budgets ORDER BY id "
			      "DESC LIMIT ?1) AS b ORDER BY id")))
		return store_fail(s, "cannot read results store", err, errlen);
	db_bind_int64(st, 1, limit > 0 ? limit : INT32_MAX);
	while (!ret && (rc = db_step(st)) == 1)
		ret = fn(db_col_int64(st, 0), db_col_text(st, 1), db_col_bytes(st, 1), arg);
	if (!ret && rc < 0)
		ret = store_fail(s, "cannot read results store", err, errlen);
	db_finalize(st);
	return ret;
}
