/*
 * The repeat interval: where a rerun's mean should land, from a cell's
 * interval and the drift between runs (docs/method.md 5c).
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>

#include "results/results.h"
#include "results/stats.h"
#include "results/stats_rounds.h"

bool results_overhead_se(const struct cell *c, double *se, double *df)
{
	const double *ci = c->overhead.ci95;

	*se = *df = NAN;
	if (c->status != CELL_OK || !isfinite(ci[0]) || !isfinite(ci[1]))
		return false;
	*df = c->rounds >= 2 ? c->rounds - 1 : c->overhead.n > 1 ? (double)c->overhead.n - 1 : NAN;
	if (!(*df > 0))
		return false;
	*se = (ci[1] - ci[0]) / 2 / stats_t_quantile(0.975, *df);
	return true;
}

const char *repeat_basis_name(enum repeat_basis b)
{
	switch (b) {
	case REPEAT_THIS_VERSION:
		return "this_version";
	case REPEAT_OTHER_VERSIONS:
		return "other_versions";
	case REPEAT_ASSUMED:
		return "assumed";
	case REPEAT_NONE:
		break;
	}
	return NULL;
}

void results_set_repeat(struct results *r, enum repeat_basis basis, double tau, int runs,
			int cells, const char *note)
{
	struct repeat_drift *d = &r->drift;

	d->known = true;
	d->basis = basis;
	d->tau = isfinite(tau) && tau > 0 ? tau : 0;
	d->runs = runs;
	d->cells = cells;
	snprintf(d->note, sizeof(d->note), "%s", note ? note : "");
	for (int i = 0; i < r->ncells; i++) {
		struct cell *c = &r->cells[i];
		double se, df;

		c->repeat95[0] = c->repeat95[1] = NAN;
		if (basis != REPEAT_NONE && results_overhead_se(c, &se, &df))
			stats_repeat_pi(c->overhead.mean, se, df, d->tau * d->tau, d->runs - 1.0, 0.95,
					c->repeat95);
	}
}

void results_drop_repeat(struct results *r, const char *note)
{
	results_set_repeat(r, REPEAT_NONE, 0, 0, 0, note);
}
