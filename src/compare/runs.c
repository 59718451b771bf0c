/*
 * Two runs, cell by cell (compare/out.h): match, then per cell the
 * bootstrap interval, the Mann-Whitney p and, once every p is known,
 * Holm's adjustment and the verdicts.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare/out.h"
#include "base/util.h"

static bool same_cell(const struct cell *x, const struct cell *y)
{
	return x->threads == y->threads && !strcmp(x->workload, y->workload) &&
	       !strcmp(x->tracer, y->tracer) && !strcmp(x->target, y->target);
}

/* The per-rep overheads with figures; a rep with a null time has none. */
static double *overheads(const struct cell *c, size_t *n)
{
	double *x = calloc((size_t)c->nreps + 1, sizeof(*x));

	if (!x)
		die("out of memory");
	*n = 0;
	for (int i = 0; i < c->nreps; i++) {
		double d = c->reps[i].traced_ns_per_op - c->reps[i].base_ns_per_op;

		if (isfinite(d))
			x[(*n)++] = d;
	}
	return x;
}

static double floor_of(const struct results *r, const struct cell *c)
{
	const struct noise_floor *f = results_floor(r, c);

	return f && isfinite(f->ns) ? f->ns : NAN;
}

/*
 * What a change is measured against: A's overhead; for an A/A cell, whose
 * overhead is 0 by design, A's baseline (as --precision does).
 */
static void measure(struct cmp_row *w, const struct results *ra, const struct results *rb,
		    double pct)
{
	size_t na, nb;
	double *a = overheads(w->a, &na), *b = overheads(w->b, &nb);
	double fa = floor_of(ra, w->a), fb = floor_of(rb, w->b);
	double scale;

	w->compared = true;
	w->na = na;
	w->nb = nb;
	w->ma = na ? stats_mean(a, na) : NAN;
	w->mb = nb ? stats_mean(b, nb) : NAN;
	w->diff = w->mb - w->ma;
	scale = w->a->aa ? w->a->base.mean : fabs(w->ma);
	w->threshold = pct / 100 * scale;
	w->floor = isnan(fa) ? fb : isnan(fb) ? fa : fmax(fa, fb);
	w->ratio = !w->a->aa && w->ma > 0 && !(w->ma <= fa) ? w->mb / w->ma : NAN;
	w->base_shift = w->a->base.mean > 0 ? w->b->base.mean / w->a->base.mean - 1 : NAN;
	w->ci[0] = w->ci[1] = w->p_boot = w->p_mw = w->p_holm = NAN;
	if (na >= COMPARE_MIN_REPS && nb >= COMPARE_MIN_REPS) {
		compare_bootstrap_diff(a, na, b, nb, COMPARE_BOOTSTRAP_B,
				       stats_seed_of(w->a->seed, w->b->id), 0.95, w->ci, &w->p_boot);
		w->p_mw = compare_mann_whitney(a, na, b, nb, NULL);
	}
	free(a);
	free(b);
}

static struct cmp_row *add_row(struct cmp *c, int cap)
{
	if (c->nrows >= cap)
		BUG("more comparison rows than cells");
	memset(&c->rows[c->nrows], 0, sizeof(c->rows[0]));
	return &c->rows[c->nrows++];
}

/*
 * The untraced workload is the same program in both runs: when its time
 * moved, the machine did (a busy neighbour, another frequency, someone
 * else's tracer in the baselines), and overheads move with it.
 */
static void base_shift(struct cmp *c)
{
	double *s = calloc((size_t)c->nrows + 1, sizeof(*s));
	size_t n = 0;

	if (!s)
		die("out of memory");
	for (int i = 0; i < c->nrows; i++)
		if (c->rows[i].compared && isfinite(c->rows[i].base_shift))
			s[n++] = c->rows[i].base_shift;
	c->base_shift = n ? stats_median(s, n) : NAN;
	free(s);
}

static void holm_and_verdicts(struct cmp *c)
{
	double *p = calloc((size_t)c->nrows + 1, sizeof(*p)), *adj = calloc((size_t)c->nrows + 1, sizeof(*adj));
	size_t n = 0;

	if (!p || !adj)
		die("out of memory");
	for (int i = 0; i < c->nrows; i++)
		if (c->rows[i].compared && !isnan(c->rows[i].p_boot))
			p[n++] = c->rows[i].p_boot;
	compare_holm(p, n, adj);
	c->family = (int)n;
	n = 0;
	for (int i = 0; i < c->nrows; i++) {
		struct cmp_row *w = &c->rows[i];

		if (!w->compared)
			continue;
		if (!isnan(w->p_boot))
			w->p_holm = adj[n++];
		w->verdict = compare_verdict(w->na, w->nb, fmax(w->a->base_cv, w->b->base_cv), w->diff,
					     w->ci, w->p_holm, w->threshold, w->floor);
		c->worse += w->verdict == VERDICT_WORSE;
		c->better += w->verdict == VERDICT_BETTER;
		c->same += w->verdict == VERDICT_SAME;
		c->too_few += w->verdict == VERDICT_TOO_FEW;
		c->noisy += w->verdict == VERDICT_NOISY;
	}
	free(p);
	free(adj);
}

void compare_runs(const struct results *a, const struct results *b, double threshold_pct,
		  struct cmp *out)
{
	int cap = a->ncells + b->ncells;
	bool *matched = calloc((size_t)b->ncells + 1, sizeof(*matched));

	memset(out, 0, sizeof(*out));
	out->threshold_pct = threshold_pct < 0 ? COMPARE_THRESHOLD_PCT : threshold_pct;
	out->rows = calloc((size_t)cap + 1, sizeof(*out->rows));
	if (!out->rows || !matched)
		die("out of memory");
	/* A's order; B's cells that A lacks after them */
	for (int i = 0; i < a->ncells; i++) {
		struct cmp_row *w = add_row(out, cap);

		w->a = &a->cells[i];
		for (int j = 0; j < b->ncells && !w->b; j++)
			if (!matched[j] && same_cell(w->a, &b->cells[j])) {
				matched[j] = true;
				w->b = &b->cells[j];
			}
		if (w->b && w->a->status == CELL_OK && w->b->status == CELL_OK)
			measure(w, a, b, threshold_pct);
	}
	for (int j = 0; j < b->ncells; j++)
		if (!matched[j])
			add_row(out, cap)->b = &b->cells[j];
	free(matched);
	holm_and_verdicts(out);
	base_shift(out);
}

void compare_release(struct cmp *c)
{
	free(c->rows);
	c->rows = NULL;
	c->nrows = 0;
}
