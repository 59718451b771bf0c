/*
 * budget -t's costs (budget_cost.h): from the store, a cell that stands for
 * this host's cost (store/stand.h); measured now, a run through the same
 * runner (session.c), its cells read back by a hook.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/cmdline.h"
#include "base/hostid.h"
#include "base/signals.h"
#include "base/util.h"
#include "cmd/budget_cost.h"
#include "cmd/cmd.h"
#include "cmd/session.h"
#include "load/workloads.h"
#include "measure/rates.h"
#include "store/store.h"

const struct budget_audit *budget_audit_of(const struct budget *b)
{
	for (int i = 0; i < b->ntracers; i++)
		if (b->tracers[i].audit)
			return b->tracers[i].audit;
	return NULL;
}

/* A -w cmd: command's calls by login uid and syscall, counted once (audit:rules' checks). */
struct cmd_mix {
	const char *workload;
	struct budget_rates r;
	char reason[512];         /* why not counted */
};

struct hook_arg {
	struct budget *b;
	const char *workload;
	const char *path_wl;      /* audit:rules' walk_path workload; NULL: none */
	struct cmd_mix *mix;
	int nmix;
};

/* A measured cell into an audit cost (the walk or a record). */
static void audit_cost_of(struct budget_audit_cost *ac, const struct cell *c, const char *au_digest)
{
	if (c->status != CELL_OK) {
		snprintf(ac->reason, sizeof(ac->reason), "measured now: %s", c->reason);
		return;
	}
	snprintf(ac->source, sizeof(ac->source), "measured");
	snprintf(ac->tracer, sizeof(ac->tracer), "%s", c->tracer);
	snprintf(ac->workload, sizeof(ac->workload), "%s", c->workload);
	ac->run_id = 0;
	ac->reps = c->nreps;
	ac->ns = c->overhead.mean;
	ac->lo = c->overhead.ci95[0];
	ac->hi = c->overhead.ci95[1];
	ac->consumer_ns = c->consumer_ns_per_event;
	ac->rules = c->audit_rules;
	ac->rules_match = c->audit_rules.file[0] && au_digest && !strcmp(c->audit_rules.digest, au_digest);
}

/* audit:rules' costs from the cells on the cost's workload, its checks from the cmd: cells. */
static bool audit_hook(struct hook_arg *h, const struct cell *c)
{
	struct budget_tracer *t = NULL;
	const struct workload *w = workload_find(c->workload);

	for (int i = 0; i < h->b->ntracers; i++)
		if (h->b->tracers[i].audit)
			t = &h->b->tracers[i];
	if (!t || c->threads != 1)
		return false;
	if (h->path_wl && !strcmp(c->workload, h->path_wl)) {
		if (!strcmp(c->tracer, AUDIT_TRACER)) {
			audit_cost_of(&t->audit->walk_path, c, t->audit->digest);
			t->audit->walk_path.consumer_ns = 0;
		} else if (!strcmp(c->tracer, AUDIT_RECORD_TRACER))
			audit_cost_of(&t->audit->record_path, c, NULL);
		if (strcmp(c->workload, h->workload))
			return !strcmp(c->tracer, AUDIT_TRACER) || !strcmp(c->tracer, AUDIT_RECORD_TRACER);
	}
	if (!strcmp(c->workload, h->workload)) {
		if (!strcmp(c->tracer, AUDIT_TRACER)) {
			audit_cost_of(&t->audit->walk, c, t->audit->digest);
			t->audit->walk.consumer_ns = 0;	/* the walk makes no record */
		}
		else if (!strcmp(c->tracer, AUDIT_RECORD_TRACER))
			audit_cost_of(&t->audit->record, c, t->audit->digest);
		return !strcmp(c->tracer, AUDIT_TRACER);
	}
	if (strcmp(c->tracer, AUDIT_TRACER) || !w || !w->cmd)
		return false;
	/* the checks come after both costs are in: budget_audit_check_fill in the second pass */
	return true;
}

static const struct cmd_mix *mix_of(const struct hook_arg *h, const char *workload)
{
	for (int i = 0; i < h->nmix; i++)
		if (!strcmp(h->mix[i].workload, workload))
			return &h->mix[i];
	return NULL;
}

static struct budget_tracer *find_tracer(struct budget *b, const char *name)
{
	for (int i = 0; i < b->ntracers; i++)
		if (!strcmp(b->tracers[i].name, name))
			return &b->tracers[i];
	return NULL;
}

static void measured_hook(struct results *r, void *arg)
{
	struct hook_arg *h = arg;

	for (int i = 0; i < r->ncells; i++) {
		const struct cell *c = &r->cells[i];
		struct budget_tracer *t = find_tracer(h->b, c->tracer);

		if (audit_hook(h, c) || !t || strcmp(c->workload, h->workload) || c->threads != 1)
			continue;
		if (c->status != CELL_OK) {
			snprintf(t->cost.reason, sizeof(t->cost.reason), "measured now: %s",
				 c->reason);
			continue;
		}
		snprintf(t->cost.source, sizeof(t->cost.source), "measured");
		snprintf(t->cost.workload, sizeof(t->cost.workload), "%s", c->workload);
		t->cost.run_id = 0;
		t->cost.reps = c->nreps;
		t->cost.events = c->events;
		t->cost.ns = c->overhead.mean;
		t->cost.lo = c->overhead.ci95[0];
		t->cost.hi = c->overhead.ci95[1];
		t->cost.consumer_ns = c->consumer_ns_per_event;
		budget_cost_per_cpu(&t->cost, c);
	}
	for (int i = 0; i < r->ncells; i++) {
		const struct cell *c = &r->cells[i];
		struct budget_tracer *t = find_tracer(h->b, c->tracer);
		struct budget_check *k;

		/* every cmd: cell, skipped or failed ones too: the check says why */
		if (!t || !workload_find(c->workload) || !workload_find(c->workload)->cmd)
			continue;
		k = budget_add_check(h->b);
		snprintf(k->tracer, sizeof(k->tracer), "%s", c->tracer);
		snprintf(k->command, sizeof(k->command), "%s", c->workload);
		if (t->audit) {
			const struct cmd_mix *m = mix_of(h, c->workload);

			budget_audit_check_fill(k, t->audit, m ? m->r.auid_nr : NULL,
						m ? m->r.nauid_nr : 0, c);
			if (m && m->reason[0] && !strcmp(k->status, "ok")) {
				snprintf(k->status, sizeof(k->status), "failed");
				snprintf(k->reason, sizeof(k->reason), "%s", m->reason);
			}
		} else
			budget_check_fill(k, &t->cost, c);
	}
}

/* A walk from the store into @ac, unless what @ac has already is as good (this set's). */
static void walk_stored(struct store *s, const struct store_cost_query *q,
			struct budget_audit_cost *ac, int max_age_h)
{
	struct budget_audit_cost got = { 0 };

	if (!cmd_stored_audit_cost(s, q, &got, max_age_h, true)) {
		got.consumer_ns = 0;	/* the walk makes no record, as when measured now */
		if (!ac->source[0] || got.rules_match)
			*ac = got;
	} else if (!ac->source[0])
		*ac = got;
}

/*
 * audit:rules' costs without --measure: a record's, audit:rule's, from the
 * store as any tracer's; the walk's, audit:rules' on @q's workload (one
 * its rules do not name) and on stat (a call that looks a path up, when
 * they do not name it), of these rules where the store has them (their
 * digest), else of another set, which the cost then says.
 */
static void stored_audit(const struct budget_args *a, struct store *s, struct budget_audit *au,
			 struct store_cost_query *q)
{
	struct store_cost_query w = *q;

	w.tracer = AUDIT_TRACER;
	w.rules_digest = au->digest;
	/* the walk of a call no rule names: on a workload whose syscall they name, a record too */
	if ((!au->walk.source[0] || !au->walk.rules_match) &&
	    !budget_audit_names(au, workload_find(q->workload)))
		walk_stored(s, &w, &au->walk, a->max_age_h);
	w.workload = "stat";
	if (!budget_audit_names(au, workload_find("stat")) &&
	    (!au->walk_path.source[0] || !au->walk_path.rules_match))
		walk_stored(s, &w, &au->walk_path, a->max_age_h);
	q->tracer = AUDIT_RECORD_TRACER;
	if (!au->record.source[0])
		cmd_stored_audit_cost(s, q, &au->record, a->max_age_h, true);
	/* a record of a call that looks a path up: audit:rule's on stat (CWD, PATH more) */
	w = *q;
	w.workload = "stat";
	if (!au->record_path.source[0])
		cmd_stored_audit_cost(s, &w, &au->record_path, a->max_age_h, true);
}

/*
 * Each tracer's cost from the store: a cell that stands for this host's
 * cost (store/stand.h: this hostname, machine and kernel, not a VM guest's,
 * not a --target collateral, ok and undisturbed), of this version, recent
 * enough.
 */
void budget_stored_costs(const struct budget_args *a, struct budget *b, const char *workload)
{
	char path[4096], err[512], since[32], host[32];
	struct store *s = NULL;

	utc_iso(time(NULL) - (time_t)a->max_age_h * 3600, since, sizeof(since));
	if (!store_path(a->store, path, sizeof(path), err, sizeof(err)))
		s = store_open(path, false, err, sizeof(err));
	host_id(host, sizeof(host));
	for (int i = 0; i < b->ntracers; i++) {
		struct budget_tracer *bt = &b->tracers[i];
		struct store_cost_query q = {
			.tracer = bt->name, .workload = workload, .hostname = b->env.hostname,
			.kernel = b->env.kernel, .version = b->env.tracetax_version, .host_id = host,
			.since = since,
		};
		int rc;

		if (bt->cost.source[0])
			continue;
		if (bt->audit) {
			stored_audit(a, s, bt->audit, &q);
			continue;
		}
		rc = s ? cmd_stored_cost(s, &q, &bt->cost, NULL, err, sizeof(err)) : -1;
		if (rc > 0)
			snprintf(bt->cost.reason, sizeof(bt->cost.reason), "none stored for %s on %s,"
				 " this host, kernel and version, in the last %d h: add --measure",
				 bt->name, workload, a->max_age_h);
		else if (rc < 0)
			snprintf(bt->cost.reason, sizeof(bt->cost.reason), "%s: add --measure", err);
		if (!a->target || bt->coll.source[0])
			continue;
		/* the collateral: a hook on close, on getpid's loop */
		q.workload = COLL_WORKLOAD;
		q.target = COLL_TARGET;
		rc = s ? cmd_stored_cost(s, &q, &bt->coll, NULL, err, sizeof(err)) : -1;
		if (rc)
			snprintf(bt->coll.reason, sizeof(bt->coll.reason), "%s: add --measure", rc > 0 ?
				 "no collateral cost stored (tracetax run -w getpid --target close)" : err);
	}
	store_close(s);
}

/* The collateral run's cells (--target close, on getpid) into each tracer's coll */
static void coll_hook(struct results *r, void *arg)
{
	struct budget *b = arg;

	for (int i = 0; i < r->ncells; i++) {
		const struct cell *c = &r->cells[i];
		struct budget_tracer *t = find_tracer(b, c->tracer);

		if (!t || c->threads != 1 || strcmp(c->workload, COLL_WORKLOAD))
			continue;
		if (c->status != CELL_OK) {
			snprintf(t->coll.reason, sizeof(t->coll.reason), "measured now: %s", c->reason);
			continue;
		}
		snprintf(t->coll.source, sizeof(t->coll.source), "measured");
		snprintf(t->coll.workload, sizeof(t->coll.workload), "%s", c->workload);
		t->coll.reps = c->nreps;
		t->coll.events = c->events;
		t->coll.ns = c->overhead.mean;
		t->coll.lo = c->overhead.ci95[0];
		t->coll.hi = c->overhead.ci95[1];
	}
}

/*
 * With --target: each tracer's collateral measured now, its hook on close
 * and the load's loop on getpid (what a hook costs the calls it does not
 * see); not for audit:rules, whose every call is priced already. 0,
 * 128+signal, or the run's exit code.
 */
static int measure_collateral(const struct budget_args *a, struct budget *b)
{
	struct budget_args c = *a;
	struct run_args ra;
	int ret;

	if (!a->target || a->audit_rules)
		return 0;
	c.target = COLL_TARGET;
	c.nworkloads = 0;
	budget_run_args(&c, COLL_WORKLOAD, &ra);
	ret = signals_interrupted() ? 128 + signals_interrupted() : run_measure(&ra, coll_hook, b);
	cli_release(&ra);
	return ret;
}

/*
 * Each -w cmd: command's calls, counted once by login uid and syscall for
 * audit:rules' checks (its process, not those it starts). A command that
 * cannot be counted makes its checks fail with the reason.
 */
static struct cmd_mix *count_mixes(const struct budget_args *a, int *n)
{
	struct cmd_mix *m = calloc((size_t)a->nworkloads + 1, sizeof(*m));

	if (!m)
		die("out of memory");
	*n = 0;
	for (int i = 0; i < a->nworkloads && !signals_interrupted(); i++) {
		struct cmd_mix *x = &m[(*n)++];
		struct cmdline line;
		char err[512];
		struct rates_opts o = { .by_auid = true };

		x->workload = a->workloads[i];
		if (strncmp(x->workload, "cmd:", 4) ||
		    cmdline_split(x->workload + 4, &line, err, sizeof(err)) || !line.n) {
			snprintf(x->reason, sizeof(x->reason), "cannot split '%s'", x->workload);
			continue;
		}
		o.argv = line.w;
		if (!a->quiet)
			fprintf(stderr, "counting the calls of %s...\n", x->workload);
		if (rates_count(&o, &x->r, err, sizeof(err)))
			snprintf(x->reason, sizeof(x->reason), "its calls by syscall not counted: %s", err);
	}
	return m;
}

int budget_measure_now(struct budget_args *a, struct budget *b, const char *workload)
{
	struct hook_arg h = { b, workload, NULL, NULL, 0 };
	const struct budget_audit *au = budget_audit_of(b);
	struct run_args ra;
	int ret;

	/* a call that names a path walks at its own cost: stat's, unless the rules name it */
	if (au && !budget_audit_names(au, workload_find("stat")))
		h.path_wl = a->audit_path_wl = "stat";
	if (au)
		h.mix = count_mixes(a, &h.nmix);
	budget_run_args(a, workload, &ra);
	/* 3, a disturbed run, stays 3 whatever fails after it (exit_worst) */
	ret = signals_interrupted() ? 128 + signals_interrupted() : run_measure(&ra, measured_hook, &h);
	cli_release(&ra);
	for (int i = 0; i < h.nmix; i++)
		free(h.mix[i].r.per_cpu), free(h.mix[i].r.auid_nr);
	free(h.mix);
	if (ret < 128) {
		int rc = measure_collateral(a, b);

		ret = rc >= 128 ? rc : exit_worst(ret, rc);
	}
	return ret;
}
