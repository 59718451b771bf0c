/*
 * From the reps of a cell to its figures (summaries, overhead per event,
 * outlier flags, totals, the spread and the per-CPU figures), then the
 * run's noise floors and every cell's note (notes.c words them); and a
 * run's release. The rules these lean on are results.c's.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/results.h"
#include "results/stats.h"
#include "base/utf8.h"
#include "base/util.h"

/* Distinct streams per statistic, so that the three CIs don't reuse the
 * same resampling indices (their errors would be correlated). */
#define SEED_BASE     0x62617365ull   /* "base" */
#define SEED_TRACED   0x74726163ull   /* "trac" */
#define SEED_OVERHEAD 0x6f766572ull   /* "over" */

static void summary_empty(struct summary *s)
{
	memset(s, 0, sizeof(*s));
	s->mean = s->median = s->stddev = s->min = s->max = NAN;
	s->ci95[0] = s->ci95[1] = s->median_ci95[0] = s->median_ci95[1] = NAN;
}

/* -1 ("cannot tell") is sticky: a total of known and unknown is unknown. */
static int64_t add_or_unknown(int64_t total, int64_t v)
{
	return (total < 0 || v < 0) ? -1 : total + v;
}

/* NaN-aware: an unknown reading leaves the total unknown only if all are. */
static void min_max(double v, double *lo, double *hi)
{
	if (isnan(v))
		return;
	if (isnan(*lo) || v < *lo)
		*lo = v;
	if (isnan(*hi) || v > *hi)
		*hi = v;
}

/* The mean of the known values of a field over the reps; NaN if none is known. */
static double mean_known(const struct cell *c, size_t off)
{
	double sum = 0;
	int n = 0;

	for (int i = 0; i < c->nreps; i++) {
		double v = *(const double *)((const char *)&c->reps[i] + off);

		if (!isnan(v)) {
			sum += v;
			n++;
		}
	}
	return n ? sum / n : NAN;
}

static void sum_totals(struct cell *c)
{
	double consumer = 0, kconsumer = 0, steal = 0, wall = 0;
	bool steal_known = false;

	c->events = c->lost = 0;
	c->hits = c->stops = 0;
	c->mhz_min = c->mhz_max = NAN;
	for (int i = 0; i < c->nreps; i++) {
		const struct rep *r = &c->reps[i];

		c->events += r->events;
		c->lost += r->lost;
		c->hits = add_or_unknown(c->hits, r->hits);
		c->stops = add_or_unknown(c->stops, r->stops);
		consumer += r->consumer_ns;
		/* NaN in any rep (not measured there) leaves the total unknown */
		kconsumer += r->kernel_consumer_ns;
		wall += r->wall_ms;
		if (!isnan(r->steal_ms)) {
			steal += r->steal_ms;
			steal_known = true;
		}
		min_max(r->mhz_min, &c->mhz_min, &c->mhz_max);
		min_max(r->mhz_max, &c->mhz_min, &c->mhz_max);
	}
	if (c->nreps == 0)
		c->hits = c->stops = -1;
	c->consumer_ns_per_event = c->events > 0 ? consumer / (double)c->events : 0;
	c->kernel_consumer_ns_per_event = c->events > 0 && c->nreps > 0 ?
		kconsumer / (double)c->events : NAN;
	c->steal_pct = steal_known && wall > 0 ? 100 * steal / wall : NAN;
	c->startup_ms = mean_known(c, offsetof(struct rep, startup_ms));
	c->shutdown_ms = mean_known(c, offsetof(struct rep, shutdown_ms));
}

/*
 * Round means of the traced and baseline ns/op, for the slowdown's
 * interval: with rounds, a round is the unit the drift acts on, as for
 * the overhead. One round: the reps themselves.
 */
static size_t round_means(const struct cell *c, double *traced, double *base)
{
	size_t n = (size_t)c->nreps, k = 0;

	for (size_t i = 0; i < n; i++) {
		size_t j, cnt = 0;
		double t = 0, b = 0;

		for (j = 0; j < i && c->reps[j].round != c->reps[i].round; j++)
			;
		if (j < i)
			continue;	/* this round is done */
		for (j = i; j < n; j++)
			if (c->reps[j].round == c->reps[i].round) {
				t += c->reps[j].traced_ns_per_op;
				b += c->reps[j].base_ns_per_op;
				cnt++;
			}
		traced[k] = t / (double)cnt;
		base[k++] = b / (double)cnt;
	}
	return k;
}

/*
 * Per hit and per byte. A tracepoint on the network path fires per segment
 * or packet, more or less often than per message: the overhead per hit is
 * the cost of the probe itself, the one per message what the workload pays.
 * Threads run a connection each, so the throughput is the sum over them.
 */
static void per_hit_and_byte(struct cell *c)
{
	double lo = c->slowdown_ci95[0], hi = c->slowdown_ci95[1];

	c->hits_per_event = c->hits >= 0 && c->events > 0 ? (double)c->hits / (double)c->events : NAN;
	c->ns_per_hit = c->hits_per_event > 0 ? c->overhead.mean / c->hits_per_event : NAN;
	c->base_mbps = c->traced_mbps = c->loss_pct = c->loss_ci95[0] = c->loss_ci95[1] = NAN;
	if (c->bytes_per_event <= 0)
		return;
	/* bytes per ns are GB/s: 1e3 MB/s */
	c->base_mbps = 1e3 * (double)c->bytes_per_event * c->threads / c->base.mean;
	c->traced_mbps = 1e3 * (double)c->bytes_per_event * c->threads / c->traced.mean;
	c->loss_pct = 100 * (1 - c->base.mean / c->traced.mean);
	c->loss_ci95[0] = lo > 0 ? 100 * (1 - 1 / lo) : NAN;
	c->loss_ci95[1] = hi > 0 ? 100 * (1 - 1 / hi) : NAN;
}

/*
 * The workload makes one target event per op, so the overhead per event is
 * traced - base ns/op. Differences are taken per rep (paired): the two runs
 * of a rep ran back to back, so slow drift of the machine cancels out of
 * the difference instead of widening its CI.
 */
/*
 * Words from outside (a tool's, a command's, a program's name) may not be
 * UTF-8: the table prints what the document keeps, so show prints it again.
 */
static void scrub_text(struct cell *c)
{
	utf8_scrub(c->workload, sizeof(c->workload));
	utf8_scrub(c->tracer, sizeof(c->tracer));
	utf8_scrub(c->id, sizeof(c->id));
	utf8_scrub(c->reason, sizeof(c->reason));
	utf8_scrub(c->disturbed_by, sizeof(c->disturbed_by));
	utf8_scrub(c->tracer_note, sizeof(c->tracer_note));
	utf8_scrub(c->prog.reason, sizeof(c->prog.reason));
	utf8_scrub(c->cmd.output, sizeof(c->cmd.output));
}

void results_finish_cell(struct cell *c, uint64_t seed)
{
	size_t n = c->nreps > 0 ? (size_t)c->nreps : 0;
	double *base, *traced, *over;
	bool *flags;

	scrub_text(c);
	sum_totals(c);
	results_finish_threads(c);
	c->outliers = 0;
	c->below_floor = false;
	if (n == 0) {
		summary_empty(&c->base);
		summary_empty(&c->traced);
		summary_empty(&c->overhead);
		c->slowdown = c->base_cv = c->reached_pct = c->between_share = NAN;
		c->rounds = 0;
		c->slowdown_ci95[0] = c->slowdown_ci95[1] = NAN;
		per_hit_and_byte(c);
		results_write_note(NULL, c);
		return;
	}
	base = calloc(n, sizeof(*base));
	traced = calloc(n, sizeof(*traced));
	over = calloc(n, sizeof(*over));
	flags = calloc(n, sizeof(*flags));
	if (!base || !traced || !over || !flags)
		die("out of memory");
	for (size_t i = 0; i < n; i++) {
		base[i] = c->reps[i].base_ns_per_op;
		traced[i] = c->reps[i].traced_ns_per_op;
		over[i] = traced[i] - base[i];
	}
	stats_summarize(base, n, seed ^ SEED_BASE, &c->base);
	stats_summarize(traced, n, seed ^ SEED_TRACED, &c->traced);
	stats_summarize(over, n, seed ^ SEED_OVERHEAD, &c->overhead);
	/* two-level: the interval (and its mean) over round means when there are rounds */
	results_overhead_ci(c, c->overhead.ci95, &c->overhead.mean, &c->rounds, &c->between_share);
	{
		double *tm = calloc(n, sizeof(*tm)), *bm = calloc(n, sizeof(*bm));
		size_t k;

		if (!tm || !bm)
			die("out of memory");
		k = round_means(c, tm, bm);
		c->slowdown = k > 1 ? stats_mean(tm, k) / stats_mean(bm, k) :
			      c->base.mean > 0 ? c->traced.mean / c->base.mean : NAN;
		if (k > 1)
			stats_ratio_ci(tm, bm, k, 0.95, c->slowdown_ci95);
		else
			stats_ratio_ci(traced, base, n, 0.95, c->slowdown_ci95);
		free(tm);
		free(bm);
	}
	c->base_cv = stats_cv(base, n);
	c->reached_pct = results_reached_pct(c);
	c->outliers = (int)stats_mad_outliers(over, n, flags);
	for (size_t i = 0; i < n; i++)
		c->reps[i].outlier = flags[i];
	/* derived: what the program's own time leaves of the cost per event */
	c->prog.dispatch_ns = c->prog.measured ? c->overhead.mean - c->prog.ns_per_run : NAN;
	results_finish_latency(c);
	per_hit_and_byte(c);
	results_per_cpu(c);
	results_write_note(NULL, c);
	free(flags);
	free(over);
	free(traced);
	free(base);
}

static void add_floor(struct results *r, const struct cell *aa)
{
	struct noise_floor *f = &r->floors[r->nfloors++];
	double lo = aa->overhead.ci95[0], hi = aa->overhead.ci95[1];

	snprintf(f->workload, sizeof(f->workload), "%s", aa->workload);
	f->threads = aa->threads;
	f->ci95[0] = lo;
	f->ci95[1] = hi;
	f->ns = fabs(lo) > fabs(hi) ? fabs(lo) : fabs(hi);
	f->excludes_zero = lo > 0 || hi < 0;
}

/*
 * The notes again, now that the run's noise is known (a row names its noise
 * only where it stands out); then the A/A cells give each (workload,
 * threads) its noise floor: the first A/A cell measured with at least two
 * reps (a CI) for it.
 */
void results_finish(struct results *r)
{
	free(r->floors);
	r->nfloors = 0;
	r->floors = calloc((size_t)r->ncells + 1, sizeof(*r->floors));
	if (!r->floors)
		die("out of memory");
	for (int i = 0; i < r->ncells; i++) {
		const struct cell *c = &r->cells[i];

		if (c->aa && c->status == CELL_OK && c->nreps >= 2 && !results_floor(r, c))
			add_floor(r, c);
	}
	for (int i = 0; i < r->ncells; i++) {
		struct cell *c = &r->cells[i];
		const struct noise_floor *f = results_floor(r, c);

		c->below_floor = !c->aa && c->status == CELL_OK && f && fabs(c->overhead.mean) < f->ns;
	}
	for (int i = 0; i < r->ncells; i++)
		results_write_note(r, &r->cells[i]);
	/* the session replaces it with the store's drift (store_set_repeat) */
	results_drop_repeat(r, "earlier runs not looked up");
}

void results_release(struct results *r)
{
	for (int i = 0; i < r->ncells; i++)
		results_release_cell(&r->cells[i]);
	free(r->cells);
	free(r->floors);
	r->cells = NULL;
	r->floors = NULL;
	r->ncells = r->nfloors = 0;
}
