/* `tracetax run --dry-run`: the plan's cells, their rep orders, an estimate. */
#include <stdio.h>
#include <stdlib.h>

#include "base/util.h"

#include "measure/plan.h"
#include "output/plan.h"

void plan_print(const struct plan *p, const struct measure_opts *a, FILE *f)
{
	char order[64];
	int R = plan_rounds(a), reps = plan_total_reps(a);
	int *ord = calloc((size_t)p->n + 1, sizeof(*ord));

	if (!ord)
		die("out of memory");
	fprintf(f, "plan: %d cell%s, %d rep%s each in %d round%s, seed %llu: about %.0f s%s\n", p->n,
		p->n == 1 ? "" : "s", reps, reps == 1 ? "" : "s", R, R == 1 ? "" : "s",
		(unsigned long long)a->seed, plan_estimate_s(p, a),
		a->iterations ? " plus the timed loops (fixed --iterations)" :
		a->precision > 0 ? " before --precision adds rounds" : "");
	if (a->latency)
		fprintf(f, "and 2 pairs of --latency runs per cell after its last round\n");
	fprintf(f, "%4s  %-12s %-24s %3s  %-10s  %s\n", "cell", "workload", "tracer", "thr",
		"target", "reps by round (T: traced run first, B: baseline first)");
	for (int i = 0; i < p->n; i++) {
		const struct plan_cell *c = &p->cells[i];
		size_t o = 0;

		for (int r = 0, rep = 0; r < R && o + 4 < sizeof(order); r++) {
			if (r)
				order[o++] = ' ';
			for (int k = plan_round_reps(a, r); k > 0 && o + 4 < sizeof(order); k--)
				order[o++] = plan_traced_first(c, rep++) ? 'T' : 'B';
		}
		snprintf(order + o, sizeof(order) - o, "%s", o + 4 >= sizeof(order) ? "..." : "");
		fprintf(f, "%4d  %-12s %-24s %3d  %-10s  %s\n", i + 1, c->workload, c->tracer,
			c->threads, *c->target ? c->target : "-", order);
	}
	if (R > 1 || a->precision > 0) {
		fprintf(f, "rounds: the cells' order in each (cell numbers as above)%s\n",
			a->precision > 0 ? "; --precision adds rounds in further orders" : "");
		for (int r = 0; r < R; r++) {
			int w = fprintf(f, "%4d ", r + 1);

			plan_round_order(p, a, r, ord);
			for (int i = 0; i < p->n; i++) {
				if (w > 72) {
					fprintf(f, "\n     ");
					w = 5;
				}
				w += fprintf(f, " %d", ord[i] + 1);
			}
			fprintf(f, "\n");
		}
	}
	free(ord);
	fprintf(f, "nothing was run: tracers are probed, and may skip, only when the plan runs\n");
}
