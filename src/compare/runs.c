/*
 * Two runs, cell by cell (compare/out.h): match, then per cell Welch's
 * interval and p over each run's round means (compare_units,
 * stats_welch_diff) and, once every p is known, Holm's adjustment and the
 * verdicts.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare/out.h"
#include "store/stand.h"
#include "base/util.h"
#include "results/stats.h"
#include "results/stats_rounds.h"

/* The same cell in both runs; audit:rules' of two known rule sets, two cells (two walks). */
static bool same_cell(const struct cell *x, const struct cell *y)
{
	const char *dx = x->audit_rules.digest, *dy = y->audit_rules.digest;

	return x->threads == y->threads && !strcmp(x->workload, y->workload) &&
	       !strcmp(x->tracer, y->tracer) && !strcmp(x->target, y->target) &&
	       (!*dx || !*dy || !strcmp(dx, dy));
}

/* The per-rep baseline ns/op with figures, and their rounds */
static double *baselines(const struct cell *c, size_t *n, int **round)
{
	double *x = calloc((size_t)c->nreps + 1, sizeof(*x));

	*round = calloc((size_t)c->nreps + 1, sizeof(**round));
	if (!x || !*round)
		die("out of memory");
	*n = 0;
	for (int i = 0; i < c->nreps; i++)
		if (isfinite(c->reps[i].base_ns_per_op)) {
			(*round)[*n] = c->reps[i].round;
			x[(*n)++] = c->reps[i].base_ns_per_op;
		}
	return x;
}

/*
 * Whether the untraced workload's time moved between the runs, beyond
 * @pct % and by more than its own rounds explain (Welch, 5%): the same
 * program in both, so the machine (or the kernel) differed, and the
 * overheads are not comparable. Runs of one round: the reps as units.
 */
static bool base_moved(const struct cell *a, const struct cell *b, double pct)
{
	size_t na, nb;
	int *ra, *rb;
	double *xa = baselines(a, &na, &ra), *xb = baselines(b, &nb, &rb);
	double ma = NAN, mb = NAN, sa = NAN, sb = NAN, dfa = NAN, dfb = NAN, ci[2], p = NAN, df;
	bool moved = false;

	if (na && nb && compare_units(xa, ra, na, &ma, &sa, &dfa) >= COMPARE_MIN_UNITS &&
	    compare_units(xb, rb, nb, &mb, &sb, &dfb) >= COMPARE_MIN_UNITS) {
		stats_welch_diff(ma, sa, dfa, mb, sb, dfb, 0.95, ci, &p, &df);
		moved = p < COMPARE_ALPHA && ma > 0 && fabs(mb / ma - 1) * 100 > pct;
	}
	free(xa);
	free(xb);
	free(ra);
	free(rb);
	return moved;
}

/* The per-rep overheads with figures, and their rounds; a rep with a null time has none. */
static double *overheads(const struct cell *c, size_t *n, int **round)
{
	double *x = calloc((size_t)c->nreps + 1, sizeof(*x));

	*round = calloc((size_t)c->nreps + 1, sizeof(**round));
	if (!x || !*round)
		die("out of memory");
	*n = 0;
	for (int i = 0; i < c->nreps; i++) {
		double d = c->reps[i].traced_ns_per_op - c->reps[i].base_ns_per_op;

		if (isfinite(d)) {
			(*round)[*n] = c->reps[i].round;
			x[(*n)++] = d;
		}
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
	int *rnd_a, *rnd_b;
	double *a = overheads(w->a, &na, &rnd_a), *b = overheads(w->b, &nb, &rnd_b);
	double fa = floor_of(ra, w->a), fb = floor_of(rb, w->b);
	double scale, sa = NAN, sb = NAN, dfa = NAN, dfb = NAN;
	struct rounds_est ea, eb;

	w->compared = true;
	w->na = na;
	w->nb = nb;
	w->ma = w->mb = NAN;
	w->ua = na ? compare_units(a, rnd_a, na, &w->ma, &sa, &dfa) : 0;
	w->ub = nb ? compare_units(b, rnd_b, nb, &w->mb, &sb, &dfb) : 0;
	stats_rounds_ci(a, rnd_a, na, 0.95, &ea);
	stats_rounds_ci(b, rnd_b, nb, 0.95, &eb);
	w->one_round = ea.rounds < 2 || eb.rounds < 2;
	w->diff = w->mb - w->ma;
	scale = w->a->aa ? w->a->base.mean : fabs(w->ma);
	w->threshold = pct / 100 * scale;
	w->floor = isnan(fa) ? fb : isnan(fb) ? fa : fmax(fa, fb);
	w->ratio = !w->a->aa && w->ma > 0 && !(w->ma <= fa) ? w->mb / w->ma : NAN;
	w->base_shift = w->a->base.mean > 0 ? w->b->base.mean / w->a->base.mean - 1 : NAN;
	w->base_moved = base_moved(w->a, w->b, pct);
	w->ci[0] = w->ci[1] = w->p = w->df = w->p_holm = NAN;
	/* the interval and the p of one test, Welch's t over the units: the test Holm
	 * and the verdict use, the p the table prints */
	if (w->ua >= COMPARE_MIN_UNITS && w->ub >= COMPARE_MIN_UNITS)
		stats_welch_diff(w->ma, sa, dfa, w->mb, sb, dfb, 0.95, w->ci, &w->p, &w->df);
	free(rnd_a);
	free(rnd_b);
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

bool compare_units_apart(const struct results *a, const struct results *b, char *why, size_t len)
{
	const char *ua = results_unit(&a->env), *ub = results_unit(&b->env);

	if (!strcmp(ua, ub))
		return false;
	snprintf(why, len, "A is in %s/event%s, B in %s/event%s: instructions and ns are not "
		 "comparable", ua, strcmp(ua, "ns") ? " (qemu -icount)" : "", ub,
		 strcmp(ub, "ns") ? " (qemu -icount)" : "");
	return true;
}

bool compare_emulated_apart(const struct results *a, const struct results *b, char *why,
			    size_t len)
{
	if (!strcmp(a->env.vm, "tcg") == !strcmp(b->env.vm, "tcg"))
		return false;
	stand_same_host(&a->env, &b->env, why, len);
	return true;
}

/* No verdicts: the figures stay for a reader, without an interval or a p to act on. */
static void not_comparable(struct cmp *c)
{
	for (int i = 0; i < c->nrows; i++) {
		struct cmp_row *w = &c->rows[i];

		if (!w->compared)
			continue;
		w->ci[0] = w->ci[1] = w->p = w->df = w->p_holm = NAN;
		w->verdict = VERDICT_NOT_COMPARABLE;
		c->not_comparable++;
	}
}

static void holm_and_verdicts(struct cmp *c)
{
	double *p = calloc((size_t)c->nrows + 1, sizeof(*p)), *adj = calloc((size_t)c->nrows + 1, sizeof(*adj));
	size_t n = 0;

	if (!p || !adj)
		die("out of memory");
	for (int i = 0; i < c->nrows; i++)
		if (c->rows[i].compared && !isnan(c->rows[i].p))
			p[n++] = c->rows[i].p;
	compare_holm(p, n, adj);
	c->family = (int)n;
	n = 0;
	for (int i = 0; i < c->nrows; i++) {
		struct cmp_row *w = &c->rows[i];

		if (!w->compared)
			continue;
		if (!isnan(w->p))
			w->p_holm = adj[n++];
		/* a noisy baseline blocks a verdict where an interval lacks the drift;
		 * a baseline that moved between the runs, always */
		w->verdict = compare_verdict(w->ua, w->ub, w->base_moved ? INFINITY : w->one_round ?
					     fmax(w->a->base_cv, w->b->base_cv) : NAN, w->diff,
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
			measure(w, a, b, out->threshold_pct);
	}
	for (int j = 0; j < b->ncells; j++)
		if (!matched[j])
			add_row(out, cap)->b = &b->cells[j];
	free(matched);
	if (compare_emulated_apart(a, b, out->incomparable, sizeof(out->incomparable)))
		not_comparable(out);
	else
		holm_and_verdicts(out);
	base_shift(out);
}

void compare_release(struct cmp *c)
{
	free(c->rows);
	c->rows = NULL;
	c->nrows = 0;
}
