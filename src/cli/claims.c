/* The claims of a plan beside today's figures (planfile.h, claims.h). */
#include <math.h>
#include <string.h>
#include <stdlib.h>

#include "cli/claims.h"
#include "base/hist.h"
#include "measure/pair.h"
#include "results/results.h"
#include "tracers/tracer.h"
#include "base/utf8.h"
#include "base/util.h"

static void row_init(const struct planfile *pf, int i, struct claim_row *row)
{
	memset(row, 0, sizeof(*row));
	row->pf = pf;
	row->c = &pf->claims[i];
	row->value = row->ratio = NAN;
	row->ci95[0] = row->ci95[1] = NAN;
}

void claims_missing(const struct planfile *pf, int i, const char *why, struct claim_row *row)
{
	row_init(pf, i, row);
	snprintf(row->why, sizeof(row->why), "%s", why);
}

/* The figure @f of a measured cell, with its interval where it has one. */
static double cell_figure(const struct cell *c, enum pf_field f, double ci[2])
{
	const double *src = NULL;
	double v = NAN;

	switch (f) {
	case PF_OVERHEAD: v = c->overhead.mean; src = c->overhead.ci95; break;
	case PF_BASE: v = c->base.mean; src = c->base.ci95; break;
	case PF_TRACED: v = c->traced.mean; src = c->traced.ci95; break;
	case PF_SLOWDOWN: v = c->slowdown; src = c->slowdown_ci95; break;
	case PF_LOST: v = (double)c->lost; break;
	case PF_NS_PER_HIT: v = c->ns_per_hit; break;
	case PF_LOSS: v = c->loss_pct; src = c->loss_ci95; break;
	case PF_CONSUMER: v = c->consumer_ns_per_event; break;
	default: break;
	}
	ci[0] = src ? src[0] : NAN;
	ci[1] = src ? src[1] : NAN;
	return v;
}

static const struct cell *find_cell(const struct results *r, const char *tracer,
				    const char *workload, int threads)
{
	for (int i = 0; i < r->ncells; i++) {
		const struct cell *c = &r->cells[i];

		if (!strcmp(c->tracer, tracer) && !strcmp(c->workload, workload) &&
		    c->threads == threads)
			return c;
	}
	return NULL;
}

/* The first of the claim's tracers that measured; else the first there is, for its reason. */
static const struct cell *pick(const struct results *r, const struct pf_claim *cl,
			       const char *w, int thr)
{
	const struct cell *first = NULL;

	for (int t = 0; t < cl->ntracers; t++) {
		const struct cell *c = find_cell(r, cl->tracers[t], w, thr);

		if (c && c->status == CELL_OK)
			return c;
		if (c && !first)
			first = c;
	}
	return first;
}

static void why_not(const struct cell *c, const char *tracer, struct claim_row *row)
{
	if (!c)
		snprintf(row->why, sizeof(row->why), "'%s' was not in the run", tracer);
	else
		snprintf(row->why, sizeof(row->why), "%s %s: %s", c->tracer,
			 c->status == CELL_SKIPPED ? "skipped" : "failed", c->reason);
}

static void from_run(const struct pf_claim *cl, const struct results *r, struct claim_row *row)
{
	const char *w = cl->workload[0] ? cl->workload : r->ncells ? r->cells[0].workload : "";
	int thr = cl->threads ? cl->threads : r->ncells ? r->cells[0].threads : 1;
	const struct cell *c = pick(r, cl, w, thr), *vs = NULL;
	double ci[2];

	if (!c || c->status != CELL_OK) {
		why_not(c, cl->tracers[0], row);
		return;
	}
	snprintf(row->cell, sizeof(row->cell), "%s, %s, %d thr", c->tracer, w, thr);
	row->value = cell_figure(c, cl->field, row->ci95);
	if (cl->vs[0]) {
		vs = find_cell(r, cl->vs, w, thr);
		if (!vs || vs->status != CELL_OK) {
			why_not(vs, cl->vs, row);
			row->value = NAN;
			return;
		}
		row->value /= cell_figure(vs, cl->field, ci);
		row->ci95[0] = row->ci95[1] = NAN;
		snprintf(row->cell + strlen(row->cell), sizeof(row->cell) - strlen(row->cell),
			 " / %s", vs->tracer);
	}
	row->have = isfinite(row->value);
	if (!row->have)
		snprintf(row->why, sizeof(row->why), "%s has no %s figure", c->tracer,
			 pf_field_names[cl->field]);
}

void claims_from_run(const struct planfile *pf, int sec, const struct results *r,
		     struct claim_row *rows)
{
	for (int i = 0; i < pf->nclaims; i++) {
		if (pf->claims[i].section != sec)
			continue;
		row_init(pf, i, &rows[i]);
		from_run(&pf->claims[i], r, &rows[i]);
		if (rows[i].have && rows[i].c->was != 0)
			rows[i].ratio = rows[i].value / rows[i].c->was;
	}
}

static void from_pair(const struct pf_claim *cl, const struct pair_results *r,
		      struct claim_row *row)
{
	int thr = cl->threads ? cl->threads : r->args.threads[0];

	for (int i = 0; i < r->ncells; i++) {
		const struct pair_cell *c = &r->cells[i];

		if (c->threads != thr || strcmp(pair_storage_names[c->storage], cl->storage))
			continue;
		if (c->status != TT_OK || !c->delay || !c->delay->count) {
			snprintf(row->why, sizeof(row->why), "%s, %d thr: %s", cl->storage, thr,
				 c->status == TT_OK ? "no delays paired" : c->reason);
			return;
		}
		snprintf(row->cell, sizeof(row->cell), "pair %s, %s, %d thr, %s", r->start_probe,
			 cl->storage, thr, pair_clock_names[r->args.clock]);
		row->value = cl->field == PF_DELAY_MEAN ? hist_mean(c->delay) :
			     cl->field == PF_DELAY_P50 ? hist_quantile(c->delay, 0.5) :
			     (double)c->delay->min;
		row->have = true;
		return;
	}
	snprintf(row->why, sizeof(row->why), "storage '%s' with %d thread(s) was not measured",
		 cl->storage, thr);
}

void claims_from_pair(const struct planfile *pf, int sec, const struct pair_results *r,
		      struct claim_row *rows)
{
	for (int i = 0; i < pf->nclaims; i++) {
		if (pf->claims[i].section != sec)
			continue;
		row_init(pf, i, &rows[i]);
		from_pair(&pf->claims[i], r, &rows[i]);
		if (rows[i].have && rows[i].c->was != 0)
			rows[i].ratio = rows[i].value / rows[i].c->was;
	}
}
