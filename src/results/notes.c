/*
 * A cell's note: what a reader must know before trusting its figures
 * (noise, hits that don't add up, lost events...), and the one rule of
 * which of the machine's notes a row carries (results.h says it).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/results.h"
#include "base/utf8.h"
#include "base/util.h"

void results_note_add(struct cell *c, const char *fmt, ...)
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
	utf8_scrub(c->note, sizeof(c->note));	/* a cut may split a character */
}

/* @c's figure of kind @k; NaN where it is not known. */
static double figure(const struct cell *c, enum run_note k)
{
	switch (k) {
	case RUN_NOTE_NOISE:
		return c->nreps >= 2 ? c->base_cv : NAN;
	case RUN_NOTE_STEAL:
		return c->steal_pct;
	case RUN_NOTE_CLOCK:
		return c->mhz_min > 0 ? 100 * (c->mhz_max / c->mhz_min - 1) : NAN;
	case RUN_NOTE_DRIFT:
		return c->between_share;
	case RUN_NOTE_OUTLIERS:
		return c->nreps > 0 ? c->outliers : NAN;
	case RUN_NOTE_FLOOR:
		return c->aa || c->nreps < 1 ? NAN : c->below_floor;
	case RUN_NOTES:
		break;
	}
	return NAN;
}

/* Whether the note of kind @k would stand on @c alone. */
static double threshold(enum run_note k)
{
	static const double above[RUN_NOTES] = {
		[RUN_NOTE_NOISE] = RESULTS_NOISY_CV, [RUN_NOTE_STEAL] = STEAL_NOTE_PCT,
		[RUN_NOTE_CLOCK] = MHZ_NOTE_PCT, [RUN_NOTE_DRIFT] = RESULTS_BETWEEN_NOTE,
		[RUN_NOTE_OUTLIERS] = 0, [RUN_NOTE_FLOOR] = 0.5,
	};

	return above[k];
}

static bool would(const struct cell *c, enum run_note k)
{
	return figure(c, k) > threshold(k);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

void results_run_note(const struct results *r, const char *workload, int threads, enum run_note k,
		      struct run_note_sum *s)
{
	double *v = calloc((size_t)r->ncells + 1, sizeof(*v));

	if (!v)
		die("out of memory");
	memset(s, 0, sizeof(*s));
	s->median = s->upper = NAN;
	for (int i = 0; i < r->ncells; i++) {
		const struct cell *x = &r->cells[i];
		double f = figure(x, k);

		if (x->status != CELL_OK || !isfinite(f))
			continue;
		if (k == RUN_NOTE_NOISE && (x->threads != threads || strcmp(x->workload, workload)))
			continue;
		v[s->cells++] = f;
		s->would += would(x, k);
		s->total += f;
	}
	if (s->cells) {
		int n = s->cells;

		qsort(v, (size_t)n, sizeof(*v), cmp_double);
		s->median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
		s->upper = v[(3 * n + 3) / 4 - 1];	/* nearest rank */
	}
	free(v);
}

/* The run's median noise (cv) of @workload at @threads, over @ncells cells. */
double results_noise_cv(const struct results *r, const char *workload, int threads, int *ncells)
{
	struct run_note_sum s;

	results_run_note(r, workload, threads, RUN_NOTE_NOISE, &s);
	if (ncells)
		*ncells = s.cells;
	return s.median;
}

bool results_run_note_wide(const struct run_note_sum *s)
{
	return s->would > 1 && RUN_NOTE_SHARE * s->would > s->cells;
}

/* The run's level of @k that a row stands out of: its upper quartile, at least the note's threshold. */
static double level(enum run_note k, const struct run_note_sum *s)
{
	return s->upper > threshold(k) ? s->upper : threshold(k);
}

double results_run_note_bar(enum run_note k, const struct run_note_sum *s)
{
	switch (k) {
	case RUN_NOTE_NOISE:
	case RUN_NOTE_STEAL:
	case RUN_NOTE_CLOCK:
		return RESULTS_NOISY_STANDOUT * level(k, s);
	case RUN_NOTE_DRIFT:
		/* a share is at most 1: what the drift leaves is a fraction of the run's */
		return 1 - (1 - level(k, s)) / RESULTS_NOISY_STANDOUT;
	default:
		return NAN;
	}
}

/* Where a run-wide note still goes on @c's row: it stands out of the run (@s). */
static bool stands_out(const struct cell *c, enum run_note k, const struct run_note_sum *s)
{
	const struct summary *o = &c->overhead;

	switch (k) {
	case RUN_NOTE_NOISE:
	case RUN_NOTE_STEAL:
	case RUN_NOTE_CLOCK:
	case RUN_NOTE_DRIFT:
		return figure(c, k) > results_run_note_bar(k, s);
	case RUN_NOTE_OUTLIERS:
		/*
		 * the median and the mean tell different stories: the median is
		 * outside the interval the row gives the mean (a rep or two pull
		 * a mean within it; a disturbance that hit a quarter of the
		 * reps does not)
		 */
		return o->median < o->ci95[0] || o->median > o->ci95[1];
	case RUN_NOTE_FLOOR:	/* a row below the floor is like any other below it */
	case RUN_NOTES:
		break;
	}
	return false;
}

bool results_note_stands(const struct results *r, const struct cell *c, enum run_note k)
{
	struct run_note_sum s;

	if (!would(c, k))
		return false;
	if (!r)
		return true;
	results_run_note(r, c->workload, c->threads, k, &s);
	return !results_run_note_wide(&s) || stands_out(c, k, &s);
}

bool results_run_note_text(const struct results *r, enum run_note k, char *buf, size_t len)
{
	struct run_note_sum s;

	if (k == RUN_NOTE_NOISE || !r->ncells)
		return false;
	results_run_note(r, "", 0, k, &s);
	if (!results_run_note_wide(&s))
		return false;
	switch (k) {
	case RUN_NOTE_STEAL:
		snprintf(buf, len, "steal: over %.0f%% of the time in %d of %d cells; a row notes one "
			 "over %.1f%%", STEAL_NOTE_PCT, s.would, s.cells, results_run_note_bar(k, &s));
		break;
	case RUN_NOTE_CLOCK:
		snprintf(buf, len, "cpu clock: moved over %.0f%% in %d of %d cells; a row notes one over "
			 "%.1f%%", MHZ_NOTE_PCT, s.would, s.cells, results_run_note_bar(k, &s));
		break;
	case RUN_NOTE_DRIFT:
		snprintf(buf, len, "drift between rounds: over %.0f%% of the variance in %d of %d cells; "
			 "a row notes one over %.0f%%", 100 * RESULTS_BETWEEN_NOTE, s.would, s.cells,
			 100 * results_run_note_bar(k, &s));
		break;
	case RUN_NOTE_OUTLIERS:
		snprintf(buf, len, "outlier reps (MAD): %.0f in %d of %d cells; a row notes its median "
			 "where outside the mean's CI", s.total, s.would, s.cells);
		break;
	case RUN_NOTE_FLOOR:
		snprintf(buf, len, "below the noise floor: %d of %d cells; their rows do not say it",
			 s.would, s.cells);
		break;
	default:
		return false;
	}
	return true;
}

/* The machine's notes that stand on @c's row, with the run's figure where it is the run's. */
static void machine_notes(const struct results *r, struct cell *c, enum run_note k)
{
	struct run_note_sum s = { .median = NAN };
	bool wide;

	if (!results_note_stands(r, c, k))
		return;
	if (r)
		results_run_note(r, c->workload, c->threads, k, &s);
	wide = r && results_run_note_wide(&s) && level(k, &s) > 0;
	switch (k) {
	case RUN_NOTE_NOISE:
		if (wide)
			results_note_add(c, "noisy baseline (cv %.1f%%, %.1fx the run's %.1f%%)",
					 c->base_cv * 100, c->base_cv / level(k, &s), level(k, &s) * 100);
		else
			results_note_add(c, "noisy baseline (cv %.1f%%)", c->base_cv * 100);
		break;
	case RUN_NOTE_STEAL:
		if (wide)
			results_note_add(c, "steal %.1f%% of the time, %.1fx the run's %.1f%%",
					 c->steal_pct, c->steal_pct / level(k, &s), level(k, &s));
		else
			results_note_add(c, "steal %.1f%% of the time", c->steal_pct);
		break;
	case RUN_NOTE_CLOCK:
		results_note_add(c, "cpu clock moved %.0f-%.0f MHz", c->mhz_min, c->mhz_max);
		break;
	case RUN_NOTE_DRIFT:
		results_note_add(c, "drift between rounds: %.0f%% of the variance",
				 100 * c->between_share);
		break;
	case RUN_NOTE_OUTLIERS: {
		/* the mean's interval does not hold 95% when reps are hit: quote the median too */
		char m[24], lo[24], hi[24];

		format_ns(m, sizeof(m), c->overhead.median);
		format_ns(lo, sizeof(lo), c->overhead.median_ci95[0]);
		format_ns(hi, sizeof(hi), c->overhead.median_ci95[1]);
		results_note_add(c, "%d outlier rep%s: median %s [%s, %s]", c->outliers,
				 c->outliers == 1 ? "" : "s", m, lo, hi);
		break;
	}
	case RUN_NOTE_FLOOR: {
		const struct noise_floor *f = r ? results_floor(r, c) : NULL;
		char ns[24];

		format_ns(ns, sizeof(ns), f ? f->ns : NAN);
		results_note_add(c, "below the noise floor (%s ns)", ns);
		break;
	}
	case RUN_NOTES:
		break;
	}
}

void results_write_note(const struct results *r, struct cell *c)
{
	c->note[0] = '\0';
	if (c->disturbed)
		results_note_add(c, "disturbed: %s", c->disturbed_by);
	if (c->nreps == 0)
		return;
	machine_notes(r, c, RUN_NOTE_NOISE);
	if (!results_hits_ok(c, c->hits, c->events) && results_hits_rule(c) == HITS_NONE)
		results_note_add(c, "hits %lld on untargeted events", (long long)c->hits);
	else if (results_hits_rule(c) == HITS_UPTO && c->hits >= 0 && c->hits < c->events)
		results_note_add(c, "the rules made records for %lld of %lld events: their filters decide",
				 (long long)c->hits, (long long)c->events);
	else if (!results_hits_ok(c, c->hits, c->events) && results_hits_rule(c) == HITS_UPTO)
		results_note_add(c, "hits %lld > events %lld", (long long)c->hits, (long long)c->events);
	else if (!results_hits_ok(c, c->hits, c->events))
		results_note_add(c, "hits %lld != events %lld", (long long)c->hits, (long long)c->events);
	if (c->lost > 0)
		results_note_add(c, "lost %lld events", (long long)c->lost);
	machine_notes(r, c, RUN_NOTE_OUTLIERS);
	if (c->precision_pct > 0 && c->ended_by != END_PRECISION)
		results_note_add(c, "precision %.3g%% not reached (%.3g%% after %d reps in %d rounds)",
				 c->precision_pct, c->reached_pct, c->nreps, c->rounds);
	machine_notes(r, c, RUN_NOTE_DRIFT);
	machine_notes(r, c, RUN_NOTE_STEAL);
	machine_notes(r, c, RUN_NOTE_CLOCK);
	if (c->tracer_note[0])
		results_note_add(c, "%s", c->tracer_note);
	if (c->cpus_differ) {
		char buf[256];
		size_t n = 0;

		for (int k = 0; k < c->nper_cpu && n < sizeof(buf); k++)
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%scpu%d %.0f [%.0f, %.0f]",
					      k ? ", " : "", c->per_cpu[k].cpu, c->per_cpu[k].mean,
					      c->per_cpu[k].ci95[0], c->per_cpu[k].ci95[1]);
		results_note_add(c, "CPUs differ (paired by round): %s ns/event", buf);
	}
	if (c->cmd.events_per_run > 0 && c->cmd.events_cv > CMDLOAD_EVENTS_CV_NOTE)
		results_note_add(c, "the command's events vary: cv %.1f%% over %d counting runs",
				 100 * c->cmd.events_cv, CMDLOAD_COUNT_RUNS);
	/* tracers that filter on one pid (bpf, bpftrace) see the first process only */
	if (c->cmd.events_per_run > 0 && c->cmd.main_events < c->cmd.events_per_run)
		results_note_add(c, "the command's first process made %lld of its %lld events: a tracer "
				 "filtering on its pid misses the rest", (long long)c->cmd.main_events,
				 (long long)c->cmd.events_per_run);
	if (c->lat && !results_hits_ok(c, c->lat->hits, c->lat->events))
		results_note_add(c, "latency runs: hits %lld != events %lld", (long long)c->lat->hits,
				 (long long)c->lat->events);
	machine_notes(r, c, RUN_NOTE_FLOOR);
}
