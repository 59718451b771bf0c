/*
 * Intervals over rounds (stats_rounds.h). Why round means and not the
 * pooled reps: on a shared VM the machine's speed drifts over seconds and
 * minutes, and every rep of a round shares that round's speed. Treating
 * the reps as independent (a t over all of them with n - 1 df) gave
 * intervals that held the cost in far fewer than 95% of simulated runs
 * under the drift measured on the development VM; the t over round means
 * kept 95% (docs/method.md §5c, tests/unit/test_coverage.c).
 */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "results/stats.h"
#include "results/stats_rounds.h"

struct rsum { int id; size_t n; double sum, ss; };

static int cmp_rsum(const void *a, const void *b)
{
	int x = ((const struct rsum *)a)->id, y = ((const struct rsum *)b)->id;

	return (x > y) - (x < y);
}

void stats_rounds_ci(const double *x, const int *round, size_t n, double level,
		     struct rounds_est *e)
{
	struct rsum *r;
	size_t R = 0, nw = 0;
	double shift, *means, ssw = 0, ssb = 0, sum_n2 = 0, grand, n0, msb, msw;

	memset(e, 0, sizeof(*e));
	e->mean = e->se = e->df = e->within_var = e->between_var = e->between_share = NAN;
	e->ci[0] = e->ci[1] = NAN;
	e->n = n;
	if (n == 0)
		return;
	r = calloc(n, sizeof(*r));
	means = calloc(n, sizeof(*means));
	if (!r || !means)
		die("out of memory");
	/* shifted by x[0], as stats_mean() is: the sums keep their digits */
	shift = x[0];
	for (size_t i = 0; i < n; i++) {
		size_t j;

		for (j = 0; j < R && r[j].id != round[i]; j++)
			;
		if (j == R)
			r[R++].id = round[i];
		r[j].n++;
		r[j].sum += x[i] - shift;
	}
	qsort(r, R, sizeof(*r), cmp_rsum);
	for (size_t i = 0; i < n; i++) {
		struct rsum key = { .id = round[i] }, *s = bsearch(&key, r, R, sizeof(*r), cmp_rsum);
		double d = x[i] - shift - s->sum / (double)s->n;

		s->ss += d * d;
	}
	for (size_t j = 0; j < R; j++) {
		means[j] = shift + r[j].sum / (double)r[j].n;
		ssw += r[j].ss;
		nw += r[j].n - 1;
		sum_n2 += (double)r[j].n * (double)r[j].n;
	}
	e->rounds = R;
	e->mean = stats_mean(means, R);
	grand = 0;
	for (size_t i = 0; i < n; i++)
		grand += x[i] - shift;
	grand = shift + grand / (double)n;
	for (size_t j = 0; j < R; j++)
		ssb += (double)r[j].n * (means[j] - grand) * (means[j] - grand);
	msw = nw > 0 ? ssw / (double)nw : NAN;
	e->within_var = msw;
	if (R >= 2) {
		double t;

		e->df = (double)(R - 1);
		e->se = stats_stddev(means, R) / sqrt((double)R);
		t = stats_t_quantile((1 + level) / 2, e->df);
		if (level > 0 && level < 1) {
			e->ci[0] = e->mean - t * e->se;
			e->ci[1] = e->mean + t * e->se;
		}
		msb = ssb / (double)(R - 1);
		n0 = ((double)n - sum_n2 / (double)n) / (double)(R - 1);
		if (isfinite(msw) && n0 > 0) {
			e->between_var = fmax(0, (msb - msw) / n0);
			if (e->between_var + msw > 0)
				e->between_share = e->between_var / (e->between_var + msw);
		}
	}
	free(means);
	free(r);
}

void stats_welch_diff(double ma, double sea, double dfa, double mb, double seb, double dfb,
		      double level, double ci[2], double *p, double *df)
{
	double va = sea * sea, vb = seb * seb, se = sqrt(va + vb), d = mb - ma, t;

	ci[0] = ci[1] = *p = *df = NAN;
	if (!isfinite(se) || !(dfa > 0) || !(dfb > 0) || !(level > 0 && level < 1))
		return;
	if (se == 0) {
		ci[0] = ci[1] = d;
		*p = d == 0 ? 1 : 0;
		*df = dfa + dfb;
		return;
	}
	*df = (va + vb) * (va + vb) / (va * va / dfa + vb * vb / dfb);
	t = stats_t_quantile((1 + level) / 2, *df);
	ci[0] = d - t * se;
	ci[1] = d + t * se;
	*p = fmin(1, 2 * stats_t_upper(fabs(d) / se, *df));
}

void stats_repeat_pi(double m, double se, double df, double tau2, double tau_df, double level,
		     double pi[2])
{
	double a = 2 * se * se, b = 2 * fmax(tau2, 0) * m * m, var = a + b, t;

	pi[0] = pi[1] = NAN;
	if (!isfinite(m) || !isfinite(var) || !(df > 0) || !(level > 0 && level < 1))
		return;
	/*
	 * Welch-Satterthwaite: tau^2 from K runs is a variance with about
	 * K - 1 df, no better known from 2 runs than se^2 from 2 rounds.
	 * Taken as known, tau from 2 runs held a third run's mean in ~77%.
	 */
	if (b > 0 && tau_df > 0)
		df = var * var / (a * a / df + b * b / tau_df);
	t = stats_t_quantile((1 + level) / 2, df);
	pi[0] = m - t * sqrt(var);
	pi[1] = m + t * sqrt(var);
}

static int cmp_obs(const void *a, const void *b)
{
	const struct repeat_obs *x = a, *y = b;

	if (x->group != y->group)
		return (x->group > y->group) - (x->group < y->group);
	return (x->run > y->run) - (x->run < y->run);
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

static int cmp_obs_run(const void *a, const void *b)
{
	const struct repeat_obs *x = a, *y = b;

	return (x->run > y->run) - (x->run < y->run);
}

/*
 * The shift that all cells of a run share: per run, the mean over its
 * qualifying cells of m / mb (@mb by group, NaN: not qualifying), with
 * sampling variance mean((se / mb)^2) / cells; tau^2 is the variance of
 * those run means less the mean of their sampling variances. On the VM a
 * run's costs moved together (one run of the default plan 15% above the
 * others in 30 of 30 cells) while each cell's own interval was +-13%:
 * cell by cell the shift drowned (tau 0), over 30 cells it is plain.
 */
static double common_tau2(struct repeat_obs *o, size_t n, const double *mb)
{
	double sum = 0, sum2 = 0, sv = 0;
	size_t nr = 0;

	if (n)
		qsort(o, n, sizeof(*o), cmp_obs_run);
	for (size_t i = 0, j; i < n; i = j) {
		double r = 0, v = 0;
		size_t k = 0;

		for (j = i; j < n && o[j].run == o[i].run; j++) {
			double b = o[j].group >= 0 ? mb[o[j].group] : NAN;

			if (isnan(b))
				continue;
			r += o[j].mean / b;
			v += (o[j].se / b) * (o[j].se / b);
			k++;
		}
		if (!k)
			continue;
		r /= (double)k;
		sum += r;
		sum2 += r * r;
		sv += v / ((double)k * (double)k);
		nr++;
	}
	if (nr < 2)
		return 0;
	/* var of the run means, n - 1 denominator, less their mean sampling variance */
	return fmax(0, (sum2 - sum * sum / (double)nr) / (double)(nr - 1) - sv / (double)nr);
}

static int runs_given(const struct repeat_obs *o, size_t n, const double *mb)
{
	long long *ids = calloc(n + 1, sizeof(*ids));
	size_t k = 0;
	int runs = 0;

	if (!ids)
		die("out of memory");
	for (size_t i = 0; i < n; i++)
		if (o[i].group >= 0 && !isnan(mb[o[i].group]))
			ids[k++] = o[i].run;
	qsort(ids, k, sizeof(*ids), cmp_ll);
	for (size_t i = 0; i < k; i++)
		runs += i == 0 || ids[i] != ids[i - 1];
	free(ids);
	return runs;
}

double stats_repeat_tau2(struct repeat_obs *o, size_t n, int *cells, int *runs)
{
	double num = 0, den = 0, *mbg, common;
	int maxg = 0;

	*cells = *runs = 0;
	for (size_t i = 0; i < n; i++)
		if (o[i].group > maxg)
			maxg = o[i].group;
	mbg = malloc(((size_t)maxg + 1) * sizeof(*mbg));
	if (!mbg)
		die("out of memory");
	for (int g = 0; g <= maxg; g++)
		mbg[g] = NAN;
	if (n)	/* qsort's base may not be NULL, even for no element */
		qsort(o, n, sizeof(*o), cmp_obs);
	for (size_t i = 0, j; i < n; i = j) {
		double mb = 0, mse = 0, v = 0, s2 = 0;
		size_t k;
		bool ok = !o[i].aa && o[i].group >= 0;

		for (j = i; j < n && o[j].group == o[i].group; j++) {
			ok = ok && !o[j].aa && isfinite(o[j].mean) && isfinite(o[j].se) && o[j].se >= 0;
			mb += o[j].mean;
			mse += o[j].se;
		}
		k = j - i;
		if (!ok || k < 2)
			continue;
		mb /= (double)k;
		mse /= (double)k;
		if (!(fabs(mb) >= 4 * mse) || mb == 0)
			continue;
		mbg[o[i].group] = mb;
		for (size_t q = i; q < j; q++) {
			double d = o[q].mean / mb - 1, r = o[q].se / mb;

			v += d * d;
			s2 += r * r;
		}
		/* var(m/mb), n - 1 denominator, less mean((se/mb)^2): weighted by K - 1 */
		num += v - (double)(k - 1) * s2 / (double)k;
		den += (double)(k - 1);
		(*cells)++;
	}
	/* tau's df come from these runs alone: a run that gave no cell says nothing of it */
	*runs = runs_given(o, n, mbg);
	common = *cells ? common_tau2(o, n, mbg) : 0;
	free(mbg);
	/* the larger: a drift of each cell's own, or one that all cells share */
	return fmax(den > 0 ? fmax(0, num / den) : 0, common);
}
