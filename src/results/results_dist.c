/*
 * How a cell's cost spreads: each thread's figures (not only their mean),
 * the spread between threads, the aggregate throughput, and the latency
 * runs' histograms. Called from results_finish_cell().
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "results/results.h"
#include "base/util.h"

/* (slowest - fastest) / mean of the threads' ns/op, in %; NaN with one thread. */
static double spread_pct(const struct thread_fig *t, int n, bool traced)
{
	double lo = INFINITY, hi = 0, sum = 0;

	if (n < 2)
		return NAN;
	for (int i = 0; i < n; i++) {
		double v = traced ? t[i].traced_ns_per_op : t[i].base_ns_per_op;

		lo = v < lo ? v : lo;
		hi = v > hi ? v : hi;
		sum += v;
	}
	return sum > 0 ? 100 * (hi - lo) / (sum / n) : NAN;
}

static int distinct_cpus(const struct thread_fig *t, int n)
{
	int count = 0;

	for (int i = 0; i < n; i++) {
		bool seen = false;

		if (t[i].cpu < 0)
			return 0;	/* not pinned: where it ran is unknown */
		for (int j = 0; j < i && !seen; j++)
			seen = t[j].cpu == t[i].cpu;
		count += !seen;
	}
	return count;
}

void results_finish_threads(struct cell *c)
{
	int n = c->threads, reps = 0;
	double bs = 0, ts = 0;

	free(c->per_thread);
	c->per_thread = NULL;
	c->base_spread_pct = c->traced_spread_pct = c->base_mops = c->traced_mops = NAN;
	c->cpus_used = 0;
	for (int r = 0; r < c->nreps; r++)
		if (!c->reps[r].threads)
			return;	/* reps made by hand (unit tests) */
	if (n < 1 || c->nreps < 1)
		return;
	c->per_thread = calloc((size_t)n, sizeof(*c->per_thread));
	if (!c->per_thread)
		die("out of memory");
	c->base_mops = c->traced_mops = 0;
	for (int r = 0; r < c->nreps; r++) {
		const struct rep *rep = &c->reps[r];

		for (int i = 0; i < n; i++) {
			struct thread_fig *t = &c->per_thread[i];

			t->cpu = rep->threads[i].cpu;
			t->base_ns_per_op += rep->threads[i].base_ns_per_op / c->nreps;
			t->traced_ns_per_op += rep->threads[i].traced_ns_per_op / c->nreps;
			t->events += rep->threads[i].events;
		}
		c->base_mops += rep->base_mops / c->nreps;
		c->traced_mops += rep->traced_mops / c->nreps;
		if (n > 1) {
			bs += spread_pct(rep->threads, n, false);
			ts += spread_pct(rep->threads, n, true);
			reps++;
		}
	}
	if (reps) {
		c->base_spread_pct = bs / reps;
		c->traced_spread_pct = ts / reps;
	}
	c->cpus_used = distinct_cpus(c->per_thread, n);
}

struct cell_latency *results_latency_new(void)
{
	struct cell_latency *l = calloc(1, sizeof(*l));

	if (!l || !(l->base = malloc(sizeof(*l->base))) || !(l->traced = malloc(sizeof(*l->traced)))) {
		if (l)
			free(l->base);
		free(l);
		return NULL;
	}
	hist_init(l->base);
	hist_init(l->traced);
	l->timing_cost_ns = NAN;
	return l;
}

/* What the timing costs the loop: the latency runs' baseline against the reps'. */
void results_finish_latency(struct cell *c)
{
	struct cell_latency *l = c->lat;

	if (!l)
		return;
	l->timing_cost_ns = l->pairs && c->nreps ? l->base_ns_per_op - c->base.mean : NAN;
}

void results_release_cell(struct cell *c)
{
	/* a document refused half-read has a rep count without its reps */
	for (int i = 0; c->reps && i < c->nreps; i++)
		free(c->reps[i].threads);
	free(c->reps);
	free(c->per_thread);
	results_latency_drop(c);
	c->reps = NULL;
	c->per_thread = NULL;
	c->nreps = 0;
}

void results_latency_drop(struct cell *c)
{
	if (c->lat) {
		free(c->lat->base);
		free(c->lat->traced);
		free(c->lat);
	}
	c->lat = NULL;
}
