/*
 * A cell's overhead on each CPU its reps ran on (--placement rotate), and
 * whether the CPUs differ, paired by round.
 */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include "results/results.h"
#include "results/stats.h"
#include "results/stats_rounds.h"
#include "base/util.h"

/* Rep @i's CPU (of its thread 0), -1 when not known. */
static int rep_cpu(const struct cell *c, int i)
{
	return c->reps[i].threads ? c->reps[i].threads[0].cpu : -1;
}

/* The mean overhead of @cpu's reps in @round; NaN when it has none there. */
static double cpu_round_mean(const struct cell *c, int cpu, int round)
{
	double sum = 0;
	int n = 0;

	for (int i = 0; i < c->nreps; i++)
		if (rep_cpu(c, i) == cpu && c->reps[i].round == round) {
			sum += c->reps[i].traced_ns_per_op - c->reps[i].base_ns_per_op;
			n++;
		}
	return n ? sum / n : NAN;
}

/*
 * Whether CPUs @a and @b differ: paired by round, the difference of their
 * round means (the drift between rounds falls on both and cancels), a t
 * interval over the rounds both ran in, at a level that keeps the chance
 * of a false "differ" over all @npairs pairs of CPUs at 5% (Bonferroni).
 * Fewer than 2 such rounds: nothing to say.
 */
static bool cpus_differ(const struct cell *c, int a, int b, const int *rounds, int nrounds,
			int npairs)
{
	double *d = calloc((size_t)nrounds + 1, sizeof(*d)), ci[2];
	size_t n = 0;
	bool differ;

	if (!d)
		die("out of memory");
	for (int r = 0; r < nrounds; r++) {
		double ma = cpu_round_mean(c, a, rounds[r]), mb = cpu_round_mean(c, b, rounds[r]);

		if (isfinite(ma) && isfinite(mb))
			d[n++] = ma - mb;
	}
	stats_t_ci(d, n, 1 - 0.05 / npairs, ci);
	differ = n >= 2 && (ci[0] > 0 || ci[1] < 0);
	free(d);
	return differ;
}

/*
 * The reps grouped by the CPU their thread 0 ran on: one group when
 * placement never moved them (nper_cpu stays 0 then), else the overhead
 * per CPU and whether CPUs differ. A CPU's mean and interval are over its
 * round means (docs/method.md §5c: the round is the unit the drift acts
 * on, rounds - 1 degrees of freedom), as the cell's own are; with one
 * round, over its reps. --placement rotate runs every CPU in every round
 * (plan.h), which is what lets two CPUs be compared within a round.
 */
void results_per_cpu(struct cell *c)
{
	size_t n = c->nreps > 0 ? (size_t)c->nreps : 0;
	double *x = calloc(n + 1, sizeof(*x));
	int *round = calloc(n + 1, sizeof(*round)), *rounds = calloc(n + 1, sizeof(*rounds));
	int nrounds = 0;

	if (!x || !round || !rounds)
		die("out of memory");
	c->nper_cpu = 0;
	c->cpus_differ = false;
	for (int i = 0; i < c->nreps; i++) {
		int cpu = rep_cpu(c, i), k;

		for (k = 0; k < nrounds && rounds[k] != c->reps[i].round; k++)
			;
		if (k == nrounds)
			rounds[nrounds++] = c->reps[i].round;
		for (k = 0; k < c->nper_cpu && c->per_cpu[k].cpu != cpu; k++)
			;
		if (k == c->nper_cpu) {
			if (k == CELL_MAX_CPUS)	/* rotate covers no more (plan_rotate_cpus) */
				continue;
			c->per_cpu[c->nper_cpu++] = (struct cpu_overhead){ .cpu = cpu };
		}
	}
	if (c->nper_cpu < 2 || c->per_cpu[0].cpu < 0)
		c->nper_cpu = 0;
	for (int k = 0; k < c->nper_cpu; k++) {
		struct cpu_overhead *o = &c->per_cpu[k];
		struct rounds_est e;
		size_t m = 0;

		for (int i = 0; i < c->nreps; i++)
			if (rep_cpu(c, i) == o->cpu) {
				x[m] = c->reps[i].traced_ns_per_op - c->reps[i].base_ns_per_op;
				round[m++] = c->reps[i].round;
			}
		stats_rounds_ci(x, round, m, 0.95, &e);
		o->n = (int)m;
		o->rounds = (int)e.rounds;
		if (e.rounds >= 2) {
			o->mean = e.mean;
			o->ci95[0] = e.ci[0];
			o->ci95[1] = e.ci[1];
		} else {
			o->mean = stats_mean(x, m);
			stats_t_ci(x, m, 0.95, o->ci95);
			if (m < 2)
				o->ci95[0] = o->ci95[1] = NAN;
		}
	}
	for (int a = 0; a < c->nper_cpu; a++)
		for (int b = a + 1; b < c->nper_cpu; b++)
			if (cpus_differ(c, c->per_cpu[a].cpu, c->per_cpu[b].cpu, rounds, nrounds,
					c->nper_cpu * (c->nper_cpu - 1) / 2))
				c->cpus_differ = true;
	free(rounds);
	free(round);
	free(x);
}
