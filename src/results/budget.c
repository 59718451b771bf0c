/* budget.h: what rates x cost predict, and a prediction against a measured cell. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "results/budget.h"

/* % of the machine's CPU that @events in the window cost at @ns each. */
static double pct(const struct budget_rates *r, double events, double ns)
{
	if (r->seconds <= 0 || r->cpus <= 0)
		return NAN;
	return 100.0 * events * ns * 1e-9 / (r->seconds * r->cpus);
}

/* One more zeroed element of @size at the end of *@arr, of *@n: it. */
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
	for (int i = 0; i < b->ntracers; i++)
		free(b->tracers[i].cpu_share);
	free(b->tracers);
	free(b->checks);
	free(b->rates.per_cpu);
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

void budget_finish(struct budget *b)
{
	const struct budget_rates *r = &b->rates;

	for (int i = 0; i < b->ntracers; i++) {
		struct budget_tracer *t = &b->tracers[i];
		const struct budget_cost *c = &t->cost;
		bool have = c->source[0] != '\0';
		double ns = 0, lo = 0, hi = 0, weighted = 0;

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
