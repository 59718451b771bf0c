/* budget.h: what rates x cost predict, and a prediction against a measured cell. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "load/syscalls.h"
#include "load/workloads.h"
#include "results/budget.h"

double budget_pace(const struct budget_rates *r)
{
	return r->pace > 0 ? r->pace : 1;
}

double budget_rate(const struct budget_rates *r, double events)
{
	if (r->seconds <= 0)
		return NAN;
	return events / r->seconds * budget_pace(r);
}

/* % of the machine's CPU that @events in the window cost at @ns each (at the box's pace). */
static double pct(const struct budget_rates *r, double events, double ns)
{
	if (r->seconds <= 0 || r->cpus <= 0)
		return NAN;
	return 100.0 * budget_rate(r, events) * ns * 1e-9 / r->cpus;
}

/* One more zeroed element of @size at the end of *@arr, of *@n: it. */
static void budget_audit_finish(struct budget *b, struct budget_tracer *t);

static void *push(void *arr, int *n, size_t size)
{
	void **a = arr;
	char *p = realloc(*a, (size_t)(*n + 1) * size);

	if (!p)
		die("out of memory");
	*a = p;
	p += (size_t)(*n)++ * size;
	memset(p, 0, size);
	return p;
}

struct budget_tracer *budget_add_tracer(struct budget *b)
{
	return push(&b->tracers, &b->ntracers, sizeof(*b->tracers));
}

struct budget_check *budget_add_check(struct budget *b)
{
	return push(&b->checks, &b->nchecks, sizeof(*b->checks));
}

void budget_release(struct budget *b)
{
	for (int i = 0; i < b->ntracers; i++) {
		free(b->tracers[i].cpu_share);
		budget_audit_release(b->tracers[i].audit);
	}
	free(b->tracers);
	free(b->checks);
	free(b->rates.per_cpu);
	free(b->rates.auid_nr);
	memset(b, 0, sizeof(*b));
}

/*
 * A cell's overhead on each CPU (run --placement rotate) into @cost: its
 * mean and interval over the CPU's round means (results.c), the cell's own
 * method, so that summing the CPUs' ends (budget_finish) carries the same
 * drift between rounds as the cell's interval does. A CPU seen in fewer
 * than 2 rounds has no such interval; a stored document without rounds per
 * CPU is from before every round visited every CPU, when a CPU's figure
 * was its rounds' drift: neither is used, the CPU costs the cell's figure.
 */
void budget_cost_per_cpu(struct budget_cost *cost, const struct cell *c)
{
	cost->ncpu = 0;
	for (int k = 0; k < c->nper_cpu && cost->ncpu < CELL_MAX_CPUS; k++)
		if (c->per_cpu[k].rounds >= 2)
			cost->cpu[cost->ncpu++] = (struct budget_cpu_cost){
				.cpu = c->per_cpu[k].cpu, .ns = c->per_cpu[k].mean,
				.lo = c->per_cpu[k].ci95[0], .hi = c->per_cpu[k].ci95[1] };
}

/* CPU @k's cost per event: its own when measured there (with an interval), else the cell's. */
static bool cpu_cost(const struct budget_cost *c, int k, double *ns, double *lo, double *hi)
{
	for (int i = 0; i < c->ncpu; i++)
		if (c->cpu[i].cpu == k && isfinite(c->cpu[i].ns) && isfinite(c->cpu[i].lo) &&
		    isfinite(c->cpu[i].hi)) {
			*ns = c->cpu[i].ns;
			*lo = c->cpu[i].lo;
			*hi = c->cpu[i].hi;
			return true;
		}
	*ns = c->ns;
	*lo = c->lo;
	*hi = c->hi;
	return false;
}

bool budget_cost_weighted(const struct budget_cost *c, const int64_t *per_cpu, int ncpu,
			  double *ns, double *lo, double *hi)
{
	double n = 0, l = 0, h = 0, events = 0, own = 0;

	for (int k = 0; per_cpu && k < ncpu; k++) {
		double cn, cl, ch;

		if (per_cpu[k] <= 0)
			continue;
		own += cpu_cost(c, k, &cn, &cl, &ch) ? (double)per_cpu[k] : 0;
		n += (double)per_cpu[k] * cn;
		l += (double)per_cpu[k] * cl;
		h += (double)per_cpu[k] * ch;
		events += (double)per_cpu[k];
	}
	if (!(events > 0) || !(own > 0)) {
		*ns = c->ns;
		*lo = c->lo;
		*hi = c->hi;
		return false;
	}
	*ns = n / events;
	*lo = l / events;
	*hi = h / events;
	return true;
}

/*
 * With a target: the scope's other syscalls at the tracer's collateral
 * cost (its --target close cell on getpid), added to the share; the
 * share of the target's events alone stays in seen_share
 */
static void budget_collateral(const struct budget_rates *r, struct budget_tracer *t)
{
	const struct budget_cost *k = &t->coll;

	t->seen_share = t->share;
	t->coll_share = t->coll_lo = t->coll_hi = NAN;
	if (r->others < 0 || !k->source[0])
		return;
	t->coll_share = pct(r, (double)r->others, k->ns);
	t->coll_lo = pct(r, (double)r->others, k->lo);
	t->coll_hi = pct(r, (double)r->others, k->hi);
	if (!isfinite(t->share))
		return;
	t->share += t->coll_share;
	t->share_lo += t->coll_lo;
	t->share_hi += t->coll_hi;
}

void budget_finish(struct budget *b)
{
	const struct budget_rates *r = &b->rates;

	for (int i = 0; i < b->ntracers; i++) {
		struct budget_tracer *t = &b->tracers[i];
		const struct budget_cost *c = &t->cost;
		bool have = c->source[0] != '\0';
		double ns = 0, lo = 0, hi = 0, weighted = 0;

		if (t->audit) {
			budget_audit_finish(b, t);
			continue;
		}
		free(t->cpu_share);
		t->cpu_share = calloc((size_t)r->ncpu + 1, sizeof(*t->cpu_share));
		if (!t->cpu_share)
			die("out of memory");

		/*
		 * Each CPU's events at that CPU's cost; the interval adds the ends
		 * (conservative: the CPUs' errors are not assumed to cancel).
		 */
		for (int k = 0; have && k < r->ncpu; k++) {
			double n, l, h;

			bool own = cpu_cost(c, k, &n, &l, &h);

			ns += (double)r->per_cpu[k] * n;
			lo += (double)r->per_cpu[k] * l;
			hi += (double)r->per_cpu[k] * h;
			/* % of that one CPU: its events over its own time */
			t->cpu_share[k] = pct(r, (double)r->per_cpu[k], n) * r->cpus;
			weighted += own ? (double)r->per_cpu[k] : 0;
		}
		for (int k = 0; !have && k < r->ncpu; k++)
			t->cpu_share[k] = NAN;
		t->share = have ? pct(r, 1, ns) : NAN;
		t->share_lo = have ? pct(r, 1, lo) : NAN;
		t->share_hi = have ? pct(r, 1, hi) : NAN;
		t->per_cpu_weighted = have && weighted > 0;
		/* the mean cost per event the shares imply */
		t->ns_weighted = have && r->events ? ns / (double)r->events : NAN;
		for (int k = 0; k < r->ntop; k++)
			t->proc_share[k] = have ? pct(r, (double)r->top[k].events, t->ns_weighted) : NAN;
		t->consumer_share = have && c->consumer_ns > 0 ?
			pct(r, (double)r->events, c->consumer_ns) : NAN;
		budget_collateral(r, t);
	}
}

void budget_check_fill(struct budget_check *k, const struct budget_cost *cost,
		       const struct cell *c)
{
	double run_ns;

	snprintf(k->status, sizeof(k->status), "%s",
		 c->status == CELL_OK ? "ok" : c->status == CELL_SKIPPED ? "skipped" : "failed");
	snprintf(k->reason, sizeof(k->reason), "%s", c->reason);
	k->events_per_run = c->cmd.events_per_run;
	k->pred_ns = cost->ns;
	k->pred_lo = cost->lo;
	k->pred_hi = cost->hi;
	k->meas_ns = k->meas_lo = k->meas_hi = NAN;
	k->pred_pct = k->pred_pct_lo = k->pred_pct_hi = NAN;
	k->meas_pct = k->meas_pct_lo = k->meas_pct_hi = NAN;
	k->error_pct = NAN;
	k->base_ms = NAN;
	k->within = false;
	if (c->status != CELL_OK || c->cmd.events_per_run <= 0)
		return;
	/* the cell's ns/op are per event: a run is events_per_run of them */
	run_ns = c->base.mean * (double)c->cmd.events_per_run;
	k->base_ms = run_ns / 1e6;
	k->meas_ns = c->overhead.mean;
	k->meas_lo = c->overhead.ci95[0];
	k->meas_hi = c->overhead.ci95[1];
	k->meas_pct = 100.0 * (c->slowdown - 1.0);
	k->meas_pct_lo = 100.0 * (c->slowdown_ci95[0] - 1.0);
	k->meas_pct_hi = 100.0 * (c->slowdown_ci95[1] - 1.0);
	if (!cost->source[0] || c->base.mean <= 0)
		return;
	k->pred_pct = 100.0 * cost->ns / c->base.mean;
	k->pred_pct_lo = 100.0 * cost->lo / c->base.mean;
	k->pred_pct_hi = 100.0 * cost->hi / c->base.mean;
	if (k->meas_ns != 0)
		k->error_pct = 100.0 * (k->pred_ns - k->meas_ns) / fabs(k->meas_ns);
	k->within = k->pred_hi >= k->meas_lo && k->pred_lo <= k->meas_hi;
}

/* ---- audit:rules ---- */

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

static int push_nr(int **v, int *n, int nr)
{
	for (int i = 0; i < *n; i++)
		if ((*v)[i] == nr)
			return 0;
	*(int *)push(v, n, sizeof(int)) = nr;
	return 0;
}

void budget_audit_sets(struct budget_audit *a)
{
	a->exit_rules = a->fs_rules = a->other_arch = 0;
	a->all_syscalls = a->task_never = false;
	for (int i = 0; i < a->nrules; i++) {
		const struct audit_rule_sum *r = &a->rules[i];

		a->task_never |= r->task_never;
		if (!r->exit)
			continue;
		a->exit_rules++;
		a->fs_rules += r->fs;
		a->other_arch += !r->native;
		if (!r->native || r->never)
			continue;
		if (!r->fs && r->all)
			a->all_syscalls = true;
		for (int nr = 0; nr < AUDIT_BITMASK_SIZE * 32; nr++)
			if (audit_sum_names(r, nr))
				push_nr(r->fs ? &a->fs_syscalls : &a->syscalls,
					r->fs ? &a->nfs_syscalls : &a->nsyscalls, nr);
	}
	/* a rule set without syscall (or file) rules has no array: qsort's base may not be NULL */
	if (a->nsyscalls)
		qsort(a->syscalls, (size_t)a->nsyscalls, sizeof(int), cmp_int);
	if (a->nfs_syscalls)
		qsort(a->fs_syscalls, (size_t)a->nfs_syscalls, sizeof(int), cmp_int);
}

static struct budget_audit_auid *auid_slot(struct budget_audit *a, uint32_t auid)
{
	for (int i = 0; i < a->nauids; i++)
		if (a->auids[i].auid == auid)
			return &a->auids[i];
	if (a->nauids == BUDGET_AUDIT_AUIDS)
		return NULL;
	a->auids[a->nauids] = (struct budget_audit_auid){ .auid = auid };
	return &a->auids[a->nauids++];
}

/* @n calls at @ns each: none at all costs 0, whatever @ns (NaN: no cost known) */
static double times(double n, double ns)
{
	return n ? n * ns : 0;
}

void budget_audit_estimate(struct budget_audit *a, const struct budget_auid_nr *c, int n,
			   int64_t unknown, const struct budget_audit_cost *record,
			   struct budget_audit_est *e, bool per_auid)
{
	const struct budget_audit_cost *w = &a->walk, *r = record ? record : &a->record;
	/* a call that names a path walks at walk_path's cost, when it was measured */
	const struct budget_audit_cost *wp = a->walk_path.source[0] ? &a->walk_path : w;
	/* and records at record_path's, unless @record prices every record */
	const struct budget_audit_cost *rp = !record && a->record_path.source[0] ? &a->record_path : r;
	int64_t walked_path[AUDIT_LEVELS] = { 0 };

	memset(e, 0, sizeof(*e));
	for (int i = 0; i < n; i++) {
		struct budget_audit_auid *s = per_auid ? auid_slot(a, c[i].auid) : NULL;
		bool rec[AUDIT_LEVELS], named = false, by_sys = false, excluded = true;

		/* loaded now, a task without an audit context walks nothing (kernel's audit_alloc) */
		if (a->live && c[i].no_ctx) {
			e->events += c[i].events;
			e->no_ctx += c[i].events;
			if (s)
				s->events += c[i].events;
			continue;
		}
		/* excluded: named by syscall rules, each failing on the call's auid
		 * (a file rule may still record it, at the upper bound) */
		for (int k = 0; k < a->nrules; k++) {
			enum audit_odds o = audit_sum_odds(&a->rules[k], c[i].nr, c[i].auid, c[i].known);

			if (o == ODDS_NA || a->rules[k].never)
				continue;
			named = true;
			if (a->rules[k].fs)
				continue;
			by_sys = true;
			excluded &= o == ODDS_NO;
		}
		excluded &= by_sys;
		bool path = c[i].nr >= 0 && c[i].nr < AUDIT_BITMASK_SIZE * 32 &&
			    (a->path_mask[c[i].nr / 32] & (1u << (c[i].nr % 32)));

		audit_sum_records(a->rules, a->nrules, c[i].nr, c[i].auid, c[i].known, rec);
		for (int l = 0; l < AUDIT_LEVELS; l++)
			if (!rec[l])
				walked_path[l] += path ? c[i].events : 0;
		e->path += path ? c[i].events : 0;
		e->events += c[i].events;
		e->named += named ? c[i].events : 0;
		e->excluded += excluded ? c[i].events : 0;
		e->named_sys += by_sys ? c[i].events : 0;
		for (int l = 0; l < AUDIT_LEVELS; l++) {
			e->records[l] += rec[l] ? c[i].events : 0;
			e->records_path[l] += rec[l] && path ? c[i].events : 0;
		}
		if (s) {
			s->events += c[i].events;
			s->named += named ? c[i].events : 0;
			s->excluded += excluded ? c[i].events : 0;
			for (int l = 0; l < AUDIT_LEVELS; l++)
				s->records[l] += rec[l] ? c[i].events : 0;
		}
	}
	/* calls of no known syscall or login uid: walked at the lower and point, records at the upper */
	e->events += unknown;
	e->records[AUDIT_UPPER] += unknown;
	for (int l = 0; l < AUDIT_LEVELS; l++) {
		double wp_n = (double)walked_path[l], rp_n = (double)e->records_path[l];
		double recs = (double)e->records[l] - rp_n;
		double walked = (double)(e->events - e->no_ctx - e->records[l]) - wp_n;
		/* calls of tasks with no audit context alone: 0, with no cost needed */
		bool have = (w->source[0] || (e->no_ctx && !walked && !wp_n)) &&
			    (!recs || r->source[0]) && (!rp_n || rp->source[0]);

		e->ns[l] = have ? times(walked, w->ns) + times(wp_n, wp->ns) + times(recs, r->ns) +
				  times(rp_n, rp->ns) : NAN;
		e->lo[l] = have ? times(walked, w->lo) + times(wp_n, wp->lo) + times(recs, r->lo) +
				  times(rp_n, rp->lo) : NAN;
		e->hi[l] = have ? times(walked, w->hi) + times(wp_n, wp->hi) + times(recs, r->hi) +
				  times(rp_n, rp->hi) : NAN;
	}
}


/* Which bound the box's figures stand on, in words. */
static void audit_bound(struct budget_audit *a)
{
	const struct budget_audit_est *e = &a->box;
	size_t n = 0, len = sizeof(a->bound);

	if (!e->named) {
		snprintf(a->bound, len, "no call counted is of a syscall the rules name: every one "
			 "pays the walk, and the three estimates are one");
		return;
	}
	n += (size_t)snprintf(a->bound + n, len - n, "%.1f%% of the calls are of syscalls the "
			      "rules name", 100.0 * (double)e->named / (double)e->events);
	if (e->named_sys && n < len)
		n += (size_t)snprintf(a->bound + n, len - n, "; of the calls its syscall rules name,"
				      " %.1f%% were made with a login uid their auid filters exclude"
				      " (unset: a shell started as root, a daemon): those rules record"
				      " them at no bound", 100.0 * (double)e->excluded /
				      (double)e->named_sys);
	if (e->records[AUDIT_UPPER] > e->records[AUDIT_POINT] && n < len)
		n += (size_t)snprintf(a->bound + n, len - n, "; the upper bound adds the calls a file"
				      " rule or an undecided filter (exit, a file, an argument) could"
				      " record, which budget cannot know before the call");
	if (n < len)
		snprintf(a->bound + n, len - n, "; records: lower %" PRId64 " (every filter budget cannot"
			 " decide fails), point %" PRId64 " (success=1 passes, the rest fail), upper %"
			 PRId64 " (every one passes)", e->records[AUDIT_LOWER], e->records[AUDIT_POINT],
			 e->records[AUDIT_UPPER]);
}

static void budget_audit_finish(struct budget *b, struct budget_tracer *t)
{
	struct budget_audit *a = t->audit;
	const struct budget_rates *r = &b->rates;
	double ev = (double)r->events;

	a->nauids = 0;
	budget_audit_estimate(a, r->auid_nr, r->nauid_nr, r->auid_unnamed, NULL, &a->box, true);
	for (int l = 0; l < AUDIT_LEVELS; l++) {
		a->share[l] = pct(r, 1, a->box.ns[l]);
		a->share_lo[l] = pct(r, 1, a->box.lo[l]);
		a->share_hi[l] = pct(r, 1, a->box.hi[l]);
		double rp_n = a->record_path.consumer_ns > 0 ? (double)a->box.records_path[l] : 0;

		a->consumer_share[l] = a->record.consumer_ns > 0 ?
			pct(r, (double)a->box.records[l] - rp_n, a->record.consumer_ns) +
			(rp_n ? pct(r, rp_n, a->record_path.consumer_ns) : 0) : NAN;
	}
	audit_bound(a);
	/* the tracer's own figures are the point estimate, with its cost's CI */
	snprintf(t->cost.source, sizeof(t->cost.source), "%s", a->walk.source);
	snprintf(t->cost.reason, sizeof(t->cost.reason), "%s", a->walk.reason);
	snprintf(t->cost.workload, sizeof(t->cost.workload), "%s", a->walk.workload);
	snprintf(t->cost.started, sizeof(t->cost.started), "%s", a->walk.started);
	t->cost.run_id = a->walk.run_id;
	t->cost.reps = a->walk.reps;
	t->cost.ncpu = 0;
	t->cost.ns = ev ? a->box.ns[AUDIT_POINT] / ev : NAN;
	t->cost.lo = ev ? a->box.lo[AUDIT_POINT] / ev : NAN;
	t->cost.hi = ev ? a->box.hi[AUDIT_POINT] / ev : NAN;
	if (!isfinite(t->cost.ns) && a->walk.source[0]) {
		t->cost.source[0] = '\0';
		snprintf(t->cost.reason, sizeof(t->cost.reason), "no record's cost (audit:rule): %s",
			 a->record.reason);
	}
	free(t->cpu_share);
	t->cpu_share = calloc((size_t)r->ncpu + 1, sizeof(*t->cpu_share));
	if (!t->cpu_share)
		die("out of memory");
	for (int k = 0; k < r->ncpu; k++)	/* the walk and the records are not per CPU */
		t->cpu_share[k] = NAN;
	t->share = a->share[AUDIT_POINT];
	t->share_lo = a->share_lo[AUDIT_POINT];
	t->share_hi = a->share_hi[AUDIT_POINT];
	t->per_cpu_weighted = false;
	t->ns_weighted = t->cost.ns;
	for (int k = 0; k < r->ntop; k++)
		t->proc_share[k] = NAN;
	t->consumer_share = a->consumer_share[AUDIT_POINT];
}

void budget_audit_check_fill(struct budget_check *k, struct budget_audit *a,
			     const struct budget_auid_nr *mix, int nmix, const struct cell *c)
{
	struct budget_audit_est e;
	double run_ns;

	budget_check_fill(k, &(struct budget_cost){ .ns = NAN, .lo = NAN, .hi = NAN }, c);
	k->audit = true;
	k->lower_ns = k->upper_ns = NAN;
	k->named_per_run = -1;
	for (int l = 0; l < AUDIT_LEVELS; l++)
		k->records_per_run[l] = -1;
	budget_audit_estimate(a, mix, nmix, 0, NULL, &e, false);
	if (c->status != CELL_OK || c->cmd.events_per_run <= 0 || e.events <= 0)
		return;
	/* the mix is one run of the command as budget's counter saw it (its execve too) */
	k->named_per_run = e.named;
	for (int l = 0; l < AUDIT_LEVELS; l++)
		k->records_per_run[l] = e.records[l];
	k->pred_ns = e.ns[AUDIT_POINT] / (double)e.events;
	k->pred_lo = e.lo[AUDIT_POINT] / (double)e.events;
	k->pred_hi = e.hi[AUDIT_POINT] / (double)e.events;
	k->lower_ns = e.ns[AUDIT_LOWER] / (double)e.events;
	k->upper_ns = e.ns[AUDIT_UPPER] / (double)e.events;
	if (!isfinite(k->pred_ns) || c->base.mean <= 0)
		return;
	run_ns = c->base.mean;	/* ns per event of a run untraced */
	k->pred_pct = 100.0 * k->pred_ns / run_ns;
	k->pred_pct_lo = 100.0 * k->pred_lo / run_ns;
	k->pred_pct_hi = 100.0 * k->pred_hi / run_ns;
	if (k->meas_ns != 0)
		k->error_pct = 100.0 * (k->pred_ns - k->meas_ns) / fabs(k->meas_ns);
	k->within = k->pred_hi >= k->meas_lo && k->pred_lo <= k->meas_hi;
}

void budget_audit_release(struct budget_audit *a)
{
	if (!a)
		return;
	free(a->rules);
	free(a->syscalls);
	free(a->fs_syscalls);
	free(a);
}

struct budget_audit *budget_audit_new(const struct audit_rule_sum *rules, int n)
{
	struct budget_audit *au = calloc(1, sizeof(*au));

	if (!au || !(au->rules = calloc((size_t)n + 1, sizeof(*au->rules))))
		die("out of memory");
	memcpy(au->rules, rules, sizeof(*au->rules) * (size_t)n);
	au->nrules = n;
	audit_path_syscalls(au->path_mask);
	budget_audit_sets(au);
	return au;
}

static bool in_set(const int *v, int n, int nr)
{
	for (int i = 0; i < n; i++)
		if (v[i] == nr)
			return true;
	return false;
}

bool budget_audit_names(const struct budget_audit *au, const struct workload *w)
{
	const struct tt_syscall *s = w->syscall ? tt_syscall_find(w->syscall) : NULL;

	return !s || in_set(au->syscalls, au->nsyscalls, (int)s->nr) ||
	       in_set(au->fs_syscalls, au->nfs_syscalls, (int)s->nr);
}
