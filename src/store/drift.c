/*
 * The between-run drift of the repeat interval (store.h, docs/method.md
 * §5c "The repeat interval"): the cells of earlier runs on this host,
 * kernel and tracetax version, whatever their plan, read from their
 * documents (the tables hold no rounds, so no standard error), and this
 * run's own, reduced to tau^2 by stats_repeat_tau2().
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/util.h"
#include "doc/read.h"
#include "results/stats_rounds.h"
#include "store/db.h"
#include "store/store.h"

#define ENV(name) "(SELECT value FROM environment WHERE run_id = r.id AND name = '" name "')"

static const char drift_sql[] =
	"SELECT r.id, r.document FROM runs r WHERE " ENV("hostname") " = ?1 AND "
	ENV("kernel") " = ?2 AND " ENV("tracetax_version") " = ?3 AND " ENV("started") " >= ?4 AND "
	ENV("started") " < ?5 AND (CAST(?6 AS TEXT) IS NULL OR r.host_id IS NULL OR r.host_id = ?6) "
	"ORDER BY r.id DESC LIMIT ?7";

/* @started less @days, in its own ISO 8601 UTC form; "" when it is not one. */
static void days_before(const char *started, int days, char *buf, size_t len)
{
	struct tm tm;
	const char *end;
	time_t t;

	memset(&tm, 0, sizeof(tm));
	buf[0] = '\0';
	end = strptime(started, "%Y-%m-%dT%H:%M:%SZ", &tm);
	if (!end || *end)
		return;
	t = timegm(&tm) - (time_t)days * 86400;
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&t, &tm));
}

/*
 * The cells seen so far, by what makes one a rerun of another (tracer,
 * workload, threads and target): a group number each, @r's cells first.
 */
struct groups {
	char **key;
	int n, cap;
};

static int group_of(struct groups *g, const struct cell *c)
{
	char *key;

	if (asprintf(&key, "%s|%s|%d|%s", c->tracer, c->workload, c->threads, c->target) < 0)
		die("out of memory");
	for (int i = 0; i < g->n; i++)
		if (!strcmp(g->key[i], key)) {
			free(key);
			return i;
		}
	if (g->n == g->cap) {
		g->cap = g->cap ? 2 * g->cap : 64;
		g->key = realloc(g->key, (size_t)g->cap * sizeof(*g->key));
		if (!g->key)
			die("out of memory");
	}
	g->key[g->n] = key;
	return g->n++;
}

static void groups_free(struct groups *g)
{
	for (int i = 0; i < g->n; i++)
		free(g->key[i]);
	free(g->key);
}

/*
 * The ok, undisturbed cells of one document into @o, whatever its plan:
 * the drift between runs is the host's (a run's costs move together,
 * docs/method.md §5c), so a cell this run does not have still shows it.
 */
static void add_doc(struct groups *g, const struct results *e, int64_t id,
		    struct repeat_obs **o, size_t *n, size_t *cap)
{
	for (int i = 0; i < e->ncells; i++) {
		const struct cell *c = &e->cells[i];
		double se, df;

		if (c->disturbed || !results_overhead_se(c, &se, &df))
			continue;
		if (*n == *cap) {
			*cap = *cap ? 2 * *cap : 64;
			*o = realloc(*o, *cap * sizeof(**o));
			if (!*o)
				die("out of memory");
		}
		(*o)[(*n)++] = (struct repeat_obs){ .group = group_of(g, c), .run = (long long)id,
						    .mean = c->overhead.mean, .se = se, .aa = c->aa };
	}
}

int store_repeat_drift(struct store *s, const struct results *r, const char *host,
		       double *tau, int *runs, int *cells, char *err, size_t errlen)
{
	struct db_stmt *st = db_prepare(s, drift_sql);
	struct repeat_obs *o = NULL;
	struct groups g = { 0 };
	size_t n = 0, cap = 0;
	char since[32];
	int rc;

	*tau = 0;
	*runs = *cells = 0;
	if (!st)
		return store_fail(s, "cannot read results store", err, errlen);
	for (int i = 0; i < r->ncells; i++)
		group_of(&g, &r->cells[i]);
	days_before(r->env.started, REPEAT_WINDOW_DAYS, since, sizeof(since));
	db_bind_string(st, 1, r->env.hostname);
	db_bind_string(st, 2, r->env.kernel);
	db_bind_string(st, 3, r->env.tracetax_version);
	db_bind_string(st, 4, since);
	db_bind_string(st, 5, r->env.started);
	db_bind_text(st, 6, host);
	db_bind_int64(st, 7, REPEAT_MAX_RUNS);
	while ((rc = db_step(st)) == 1) {
		struct doc d = { .run_id = db_col_int64(st, 0) };
		size_t len = db_col_bytes(st, 1);
		char *text = malloc(len + 1), e[256];

		if (!text)
			die("out of memory");
		memcpy(text, db_col_text(st, 1), len);
		text[len] = '\0';
		snprintf(d.name, sizeof(d.name), "run %lld", (long long)d.run_id);
		/* a document the reader refuses is not one to learn from: skipped */
		if (!doc_parse(&d, text, len, e, sizeof(e)))
			add_doc(&g, &d.r, d.run_id, &o, &n, &cap);
		doc_release(&d);
	}
	db_finalize(st);
	if (rc < 0) {
		free(o);
		groups_free(&g);
		return store_fail(s, "cannot read results store", err, errlen);
	}
	/*
	 * This run is one of the runs whose levels differ: with it, a second
	 * run already has a drift to learn from (its level against the first
	 * one's), where earlier runs alone would give it none. A sentinel id
	 * no stored run has.
	 */
	if (n)
		add_doc(&g, r, LLONG_MAX, &o, &n, &cap);
	*tau = sqrt(stats_repeat_tau2(o, n, cells, runs));
	free(o);
	groups_free(&g);
	return 0;
}
