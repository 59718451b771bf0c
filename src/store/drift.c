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
#include "store/stand.h"
#include "store/store.h"

/* @started less @days, in its own ISO 8601 UTC form; "" when it is not one. */
static void days_before(const char *started, int days, char *buf, size_t len)
{
	time_t t;

	buf[0] = '\0';
	if (!utc_parse(started, &t))
		utc_iso(t - (time_t)days * 86400, buf, len);
}

/*
 * The cells seen so far, by what makes one a rerun of another (tracer,
 * workload, threads and target; audit:rules', its rule set: another set's
 * walk is another cost): a group number each, @r's cells first.
 */
struct groups {
	char **key;
	int n, cap;
};

static int group_of(struct groups *g, const struct cell *c)
{
	char *key;

	if (asprintf(&key, "%s|%s|%d|%s|%s", c->tracer, c->workload, c->threads, c->target,
		     c->audit_rules.digest) < 0)
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

static void add_obs(struct groups *g, const struct cell *c, long long run,
		    struct repeat_obs **o, size_t *n, size_t *cap)
{
	double se, df;

	if (!results_overhead_se(c, &se, &df))
		return;
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 64;
		*o = realloc(*o, *cap * sizeof(**o));
		if (!*o)
			die("out of memory");
	}
	(*o)[(*n)++] = (struct repeat_obs){ .group = group_of(g, c), .run = run,
					    .mean = c->overhead.mean, .se = se, .aa = c->aa };
}

/* The cells that stand (store/stand.h), by run: their indexes in its document. */
struct standing {
	int64_t *run;
	int *idx;
	size_t n, cap;
};

static int collect(const struct stand_cell *c, void *arg)
{
	struct standing *w = arg;

	if (w->n == w->cap) {
		w->cap = w->cap ? 2 * w->cap : 64;
		w->run = realloc(w->run, w->cap * sizeof(*w->run));
		w->idx = realloc(w->idx, w->cap * sizeof(*w->idx));
		if (!w->run || !w->idx)
			die("out of memory");
	}
	w->run[w->n] = c->run_id;
	w->idx[w->n++] = c->idx;
	return 0;
}

/*
 * The standing cells of run @id [from, to) of @w, read from its document
 * (the tables hold no rounds, so no standard error). A document the
 * reader refuses is not one to learn from: skipped.
 */
static int add_run(struct store *s, const struct standing *w, size_t from, size_t to,
		   struct groups *g, struct repeat_obs **o, size_t *n, size_t *cap, char *err,
		   size_t errlen)
{
	struct doc d = { .run_id = w->run[from] };
	char *text, e[256];
	size_t len;

	if (store_document(s, d.run_id, &text, &len, err, errlen))
		return -1;
	snprintf(d.name, sizeof(d.name), "run %lld", (long long)d.run_id);
	if (!doc_parse(&d, text, len, e, sizeof(e)))
		for (size_t k = from; k < to; k++)
			if (w->idx[k] >= 0 && w->idx[k] < d.r.ncells)
				add_obs(g, &d.r.cells[w->idx[k]], (long long)d.run_id, o, n, cap);
	doc_release(&d);
	return 0;
}

int store_repeat_drift(struct store *s, const struct results *r, const char *host,
		       bool any_version, double *tau, int *runs, int *cells, char *err,
		       size_t errlen)
{
	struct repeat_obs *o = NULL;
	struct groups g = { 0 };
	struct standing w = { 0 };
	size_t n = 0, cap = 0;
	char since[32];
	int ret = 0;

	*tau = 0;
	*runs = *cells = 0;
	days_before(r->env.started, REPEAT_WINDOW_DAYS, since, sizeof(since));
	/*
	 * Whatever the plan (the drift is the host's: a run's costs move
	 * together, docs/method.md §5c), every target: a rerun of a
	 * collateral cell is keyed by its target (group_of).
	 */
	struct stand_query q = {
		.hostname = r->env.hostname, .kernel = r->env.kernel, .host_id = host,
		.version = any_version ? NULL : r->env.tracetax_version, .since = since,
		.until = r->env.started, .any_target = true, .runs = REPEAT_MAX_RUNS,
		/* a rerun is one with this run's settings */
		.tracer_cpu = r->opts.tracer_cpu, .msg_size = r->opts.msg_size,
		.latency = r->opts.latency,
	};

	for (int i = 0; i < r->ncells; i++)
		group_of(&g, &r->cells[i]);
	if (store_stand_walk(s, &q, collect, &w, err, errlen))
		ret = -1;
	for (size_t i = 0, j; !ret && i < w.n; i = j) {
		for (j = i; j < w.n && w.run[j] == w.run[i]; j++)
			;
		ret = add_run(s, &w, i, j, &g, &o, &n, &cap, err, errlen);
	}
	/*
	 * This run is one of the runs whose levels differ: with it, a second
	 * run already has a drift to learn from (its level against the first
	 * one's), where earlier runs alone would give it none. A sentinel id
	 * no stored run has; its cells by the same rule.
	 */
	if (!ret && n && !*r->env.vm)
		for (int i = 0; i < r->ncells; i++)
			if (r->cells[i].status == CELL_OK && !r->cells[i].disturbed)
				add_obs(&g, &r->cells[i], LLONG_MAX, &o, &n, &cap);
	if (!ret)
		*tau = sqrt(stats_repeat_tau2(o, n, cells, runs));
	free(o);
	free(w.run);
	free(w.idx);
	groups_free(&g);
	return ret;
}
