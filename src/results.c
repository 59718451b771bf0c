/*
 * From the reps of a cell to its figures: summaries, overhead per event,
 * outlier flags, totals and a short note of what a reader must know before
 * trusting the numbers (noise, hits that don't add up, lost events).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "load/workloads.h"
#include "results.h"
#include "util.h"

/*
 * Above this coefficient of variation of the baseline the note warns. The
 * cheapest tracers add ~10-30% to a ~100-300 ns syscall (10-60 ns): with
 * more than 5% run-to-run noise on the baseline the smallest overheads sit
 * inside the noise of a single rep and only the CI tells them apart.
 */
#define NOISY_BASE_CV 0.05

/* Distinct streams per statistic, so that the three CIs don't reuse the
 * same resampling indices (their errors would be correlated). */
#define SEED_BASE     0x62617365ull   /* "base" */
#define SEED_TRACED   0x74726163ull   /* "trac" */
#define SEED_OVERHEAD 0x6f766572ull   /* "over" */

static void note_add(struct cell *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void note_add(struct cell *c, const char *fmt, ...)
{
	size_t len = strlen(c->note);
	va_list ap;

	if (len && len + 2 < sizeof(c->note)) {
		strcpy(c->note + len, "; ");
		len += 2;
	}
	if (len + 1 >= sizeof(c->note))
		return;
	va_start(ap, fmt);
	vsnprintf(c->note + len, sizeof(c->note) - len, fmt, ap);
	va_end(ap);
}

static void summary_empty(struct summary *s)
{
	memset(s, 0, sizeof(*s));
	s->mean = s->median = s->stddev = s->min = s->max = NAN;
	s->ci95[0] = s->ci95[1] = NAN;
}

/* -1 ("cannot tell") is sticky: a total of known and unknown is unknown. */
static int64_t add_or_unknown(int64_t total, int64_t v)
{
	return (total < 0 || v < 0) ? -1 : total + v;
}

static void sum_totals(struct cell *c)
{
	double consumer = 0;

	c->events = c->lost = 0;
	c->hits = c->stops = 0;
	for (int i = 0; i < c->nreps; i++) {
		const struct rep *r = &c->reps[i];

		c->events += r->events;
		c->lost += r->lost;
		c->hits = add_or_unknown(c->hits, r->hits);
		c->stops = add_or_unknown(c->stops, r->stops);
		consumer += r->consumer_ns;
	}
	if (c->nreps == 0)
		c->hits = c->stops = -1;
	c->consumer_ns_per_event = c->events > 0 ? consumer / (double)c->events : 0;
}

/*
 * With --target the tracer hooks a syscall the workload does not make
 * (collateral cost): it should then see none of the workload's events.
 */
static bool is_collateral(const struct cell *c)
{
	const struct workload *w = workload_find(c->workload);
	const char *own = w && w->syscall ? w->syscall : "";

	return c->target[0] && strcmp(c->target, own) != 0;
}

static void write_note(struct cell *c)
{
	c->note[0] = '\0';
	if (c->nreps == 0)
		return;
	if (c->base_cv > NOISY_BASE_CV)
		note_add(c, "noisy baseline (cv %.1f%%)", c->base_cv * 100);
	if (c->hits >= 0 && is_collateral(c) && c->hits != 0)
		note_add(c, "hits %lld on untargeted events", (long long)c->hits);
	else if (c->hits >= 0 && !is_collateral(c) && c->hits != c->events)
		note_add(c, "hits %lld != events %lld",
			 (long long)c->hits, (long long)c->events);
	if (c->lost > 0)
		note_add(c, "lost %lld events", (long long)c->lost);
	if (c->outliers > 0)
		note_add(c, "%d outlier rep%s", c->outliers, c->outliers == 1 ? "" : "s");
}

/*
 * The workload makes one target event per op, so the overhead per event is
 * traced - base ns/op. Differences are taken per rep (paired): the two runs
 * of a rep ran back to back, so slow drift of the machine cancels out of
 * the difference instead of widening its CI.
 */
void results_finish_cell(struct cell *c, uint64_t seed)
{
	size_t n = c->nreps > 0 ? (size_t)c->nreps : 0;
	double *base, *traced, *over;
	bool *flags;

	sum_totals(c);
	c->outliers = 0;
	if (n == 0) {
		summary_empty(&c->base);
		summary_empty(&c->traced);
		summary_empty(&c->overhead);
		c->slowdown = c->base_cv = NAN;
		write_note(c);
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
	c->slowdown = c->base.mean > 0 ? c->traced.mean / c->base.mean : NAN;
	c->base_cv = stats_cv(base, n);
	c->outliers = (int)stats_mad_outliers(over, n, flags);
	for (size_t i = 0; i < n; i++)
		c->reps[i].outlier = flags[i];
	write_note(c);
	free(flags);
	free(over);
	free(traced);
	free(base);
}
