/* `tracetax run --dry-run`: the plan's cells, their rep orders, an estimate. */
#include <stdio.h>

#include "measure/plan.h"
#include "output/plan.h"

void plan_print(const struct plan *p, const struct measure_opts *a, FILE *f)
{
	char order[64];

	fprintf(f, "plan: %d cell%s, %d rep%s each%s, seed %llu: about %.0f s%s\n", p->n,
		p->n == 1 ? "" : "s", a->reps, a->reps == 1 ? "" : "s",
		a->latency ? " and 2 pairs of --latency runs" : "",
		(unsigned long long)a->seed, plan_estimate_s(p, a),
		a->iterations ? " plus the timed loops (fixed --iterations)" :
		a->precision > 0 ? " before --precision adds reps" : "");
	fprintf(f, "%4s  %-12s %-24s %3s  %-10s  %s\n", "cell", "workload", "tracer", "thr",
		"target", "reps (T: traced run first, B: baseline first)");
	for (int i = 0; i < p->n; i++) {
		const struct plan_cell *c = &p->cells[i];
		int n = a->reps < (int)sizeof(order) - 4 ? a->reps : (int)sizeof(order) - 4;

		for (int r = 0; r < n; r++)
			order[r] = plan_traced_first(c, r) ? 'T' : 'B';
		snprintf(order + n, sizeof(order) - (size_t)n, "%s", n < a->reps ? "..." : "");
		fprintf(f, "%4d  %-12s %-24s %3d  %-10s  %s\n", i + 1, c->workload, c->tracer,
			c->threads, *c->target ? c->target : "-", order);
	}
	fprintf(f, "nothing was run: tracers are probed, and may skip, only when the plan runs\n");
}
