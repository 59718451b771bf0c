/*
 * The rules the results' files share, each written once: the hits rule,
 * the overhead's interval and the share of it reached, the reps a run
 * ran, the worst exit, a cell's noise floor. They call nothing above
 * them: finish.c puts a run together from its reps with them, notes.c
 * words its notes with them.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "load/workloads.h"
#include "results/results.h"
#include "results/stats.h"
#include "results/stats_rounds.h"
#include "load/syscalls.h"
#include "base/util.h"

/*
 * The collateral rule, the one place it is written (run's note and
 * compare's flag both ask here). With --target naming a syscall the
 * workload does not make, the tracer pays for hooking it (collateral cost)
 * and should see none of the workload's events; a tracepoint --target fires
 * as often as the kernel's path does, a command's events are what its
 * --target names: nothing to check; a tracer whose own filters decide what
 * it records (the cell's hits_upto, from its TT_F_HITS_UPTO: audit:rules,
 * whose rule set's auid, success, path... filters let events through)
 * records at most one an event; otherwise hits are the events.
 */
enum hits_rule results_hits_rule(const struct cell *c)
{
	const struct workload *w = workload_find(c->workload);
	const char *own = w && w->syscall ? w->syscall : "";

	if (tt_tracepoint_split(c->target, NULL, 0, NULL, 0))
		return HITS_ANY;
	if (c->hits_upto)
		return HITS_UPTO;
	if (w && w->cmd)
		return HITS_EVENTS;
	return c->target[0] && strcmp(c->target, own) ? HITS_NONE : HITS_EVENTS;
}

bool results_hits_ok(const struct cell *c, int64_t hits, int64_t events)
{
	switch (results_hits_rule(c)) {
	case HITS_ANY:    return true;
	case HITS_UPTO:   return hits <= events;
	case HITS_NONE:   return hits <= 0;
	case HITS_EVENTS: return hits < 0 || hits == events;
	}
	return true;
}

void results_overhead_ci(const struct cell *c, double ci[2], double *mean, int *rounds,
			 double *between_share)
{
	size_t n = c->nreps > 0 ? (size_t)c->nreps : 0;
	double *d = calloc(n + 1, sizeof(*d));
	int *round = calloc(n + 1, sizeof(*round));
	struct rounds_est e;

	if (!d || !round)
		die("out of memory");
	for (size_t i = 0; i < n; i++) {
		d[i] = c->reps[i].traced_ns_per_op - c->reps[i].base_ns_per_op;
		round[i] = c->reps[i].round;
	}
	stats_rounds_ci(d, round, n, 0.95, &e);
	*rounds = (int)e.rounds;
	*between_share = e.between_share;
	if (e.rounds >= 2) {
		*mean = e.mean;
		ci[0] = e.ci[0];
		ci[1] = e.ci[1];
	} else {
		*mean = stats_mean(d, n);
		stats_t_ci(d, n, 0.95, ci);
	}
	free(round);
	free(d);
}

const char *results_reps_ran(const struct results *r, char *buf, size_t len, int *rounds)
{
	int lo = 0, hi = 0, most = 0;

	for (int i = 0; i < r->ncells; i++) {
		const struct cell *c = &r->cells[i];

		if (c->nreps < 1)
			continue;
		lo = lo && lo < c->nreps ? lo : c->nreps;
		hi = hi > c->nreps ? hi : c->nreps;
		most = most > c->rounds ? most : c->rounds;
	}
	if (!hi)
		lo = hi = r->opts.reps;
	*rounds = most ? most : r->opts.rounds > 1 ? r->opts.rounds : 1;
	if (lo == hi)
		snprintf(buf, len, "%d", hi);
	else
		snprintf(buf, len, "%d-%d", lo, hi);
	return buf;
}

double results_reached_pct(const struct cell *c)
{
	size_t n = c->nreps > 0 ? (size_t)c->nreps : 0;
	double ci[2], mean, share, ref;
	int rounds;

	if (n < 2)
		return NAN;
	results_overhead_ci(c, ci, &mean, &rounds, &share);
	if (c->aa) {
		double *b = calloc(n, sizeof(*b));

		if (!b)
			die("out of memory");
		for (size_t i = 0; i < n; i++)
			b[i] = c->reps[i].base_ns_per_op;
		ref = stats_mean(b, n);
		free(b);
	} else {
		ref = fabs(mean);
	}
	return ref > 0 ? 100 * (ci[1] - ci[0]) / 2 / ref : INFINITY;
}

int exit_worst(int a, int b)
{
	static const int rank[] = { [EXIT_OK] = 0, [EXIT_FAILED] = 1, [EXIT_USAGE] = 3,
				    [EXIT_DISTURBED] = 2 };

	if (a >= 128 || b >= 128)
		return a >= 128 ? a : b;
	if (a < 0 || a > EXIT_DISTURBED)
		return a;	/* not an outcome of ours: kept */
	if (b < 0 || b > EXIT_DISTURBED)
		return b;
	return rank[b] > rank[a] ? b : a;
}

const struct noise_floor *results_floor(const struct results *r, const struct cell *c)
{
	for (int i = 0; i < r->nfloors; i++)
		if (r->floors[i].threads == c->threads && !strcmp(r->floors[i].workload, c->workload))
			return &r->floors[i];
	return NULL;
}

bool results_slow_path_said(const struct slow_path *s)
{
	return s->probed && (!s->known || s->causes);
}
