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

/* A figure in its unit: ns as the tables give them, a ratio as x1.23. */
static void fmt_value(char *buf, size_t len, double v, const char *unit)
{
	if (!strcmp(unit, "x"))
		snprintf(buf, len, v < 10 ? "x%.2f" : "x%.1f", v);
	else if (!strcmp(unit, "%"))
		snprintf(buf, len, "%.1f%%", v);
	else if (!strcmp(unit, "events"))
		snprintf(buf, len, "%.0f", v);
	else
		format_ns(buf, len, v);
}

static void fmt_today(char *buf, size_t len, const struct claim_row *r)
{
	const char *u = pf_field_unit(r->c->field, r->c->vs[0]);
	char v[32], lo[32], hi[32];

	if (!r->have) {
		snprintf(buf, len, "-");
		return;
	}
	fmt_value(v, sizeof(v), r->value, u);
	if (isfinite(r->ci95[0]) && isfinite(r->ci95[1])) {
		fmt_value(lo, sizeof(lo), r->ci95[0], u);
		fmt_value(hi, sizeof(hi), r->ci95[1], u);
		snprintf(buf, len, "%s [%s, %s]", v, lo, hi);
	} else
		snprintf(buf, len, "%s", v);
}

void claims_print(const struct claim_row *rows, int n, FILE *f)
{
	int wc = 5, ws = 6, wo = 8, wt = 5;
	char orig[48], today[96], ratio[16];

	for (int i = 0; i < n; i++) {
		const struct pf_claim *c = rows[i].c;

		fmt_today(today, sizeof(today), &rows[i]);
		snprintf(orig, sizeof(orig), "%g %s", c->was, c->unit);
		wc = (int)strlen(c->text) > wc ? (int)strlen(c->text) : wc;
		ws = (int)strlen(c->source) > ws ? (int)strlen(c->source) : ws;
		wo = (int)strlen(orig) > wo ? (int)strlen(orig) : wo;
		wt = (int)strlen(today) > wt ? (int)strlen(today) : wt;
	}
	fprintf(f, "\nclaims\n%-*s  %-*s  %*s  %*s  %7s\n", wc, "claim", ws, "source", wo,
		"original", wt, "today", "ratio");
	for (int i = 0; i < n; i++) {
		const struct claim_row *r = &rows[i];

		fmt_today(today, sizeof(today), r);
		snprintf(orig, sizeof(orig), "%g %s", r->c->was, r->c->unit);
		if (isfinite(r->ratio))
			snprintf(ratio, sizeof(ratio), r->ratio < 10 ? "x%.2f" : "x%.1f", r->ratio);
		else
			snprintf(ratio, sizeof(ratio), "-");
		fprintf(f, "%-*s  %-*s  %*s  %*s  %7s\n", wc, r->c->text, ws, r->c->source, wo, orig,
			wt, today, ratio);
		if (r->have)
			fprintf(f, "    today: %s, %s (%s)\n", pf_field_names[r->c->field], r->cell,
				pf_field_unit(r->c->field, r->c->vs[0]));
		else
			fprintf(f, "    no figure: %s\n", r->why);
	}
}

static json_t *num_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* JSON holds UTF-8 only: a plan file's words or a cell's reason may not be */
static json_t *str(const char *s)
{
	char *v = utf8_scrubbed(s);
	json_t *o = json_string(v);

	free(v);
	return o;
}

json_t *claims_json(const struct claim_row *rows, int n)
{
	json_t *a;

	if (!rows || n <= 0)
		return json_null();
	a = json_array();
	for (int i = 0; i < n; i++) {
		const struct claim_row *r = &rows[i];
		const struct pf_claim *c = r->c;
		bool ci = r->have && isfinite(r->ci95[0]) && isfinite(r->ci95[1]);

		json_array_append_new(a, json_pack("{s:o, s:o, s:o, s:f, s:o, s:o, s:o, s:o, s:s, s:o, s:o}",
			"experiment", str(r->pf->name), "claim", str(c->text), "source", str(c->source),
			"original", c->was, "unit", str(c->unit),
			"today", r->have ? json_real(r->value) : json_null(),
			"today_ci95", ci ? json_pack("[f, f]", r->ci95[0], r->ci95[1]) : json_null(),
			"ratio", num_or_null(r->ratio), "field", pf_field_names[c->field],
			"cell", r->have ? str(r->cell) : json_null(),
			"reason", r->have ? json_null() : str(r->why)));
	}
	return a;
}
