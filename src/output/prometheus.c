/*
 * Prometheus text exposition format (0.0.4) of a run: what a fleet's
 * dashboards read, through node_exporter's textfile collector
 * (run --prometheus-textfile DIR) or a file of its own (export --format
 * prometheus). Metric names are in docs/schema.md, "Prometheus metrics".
 *
 * Base units, as Prometheus wants them: seconds, not ns. Every figure is
 * a gauge: a run's counts of hits and lost events are totals of that run,
 * which the next run replaces, not counters that only grow (a _total
 * name would tell rate() otherwise). No sample carries a timestamp: the
 * textfile collector refuses them; the run's start is a gauge instead.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "base/util.h"
#include "output/export.h"

static const char *const status_name[] = { "ok", "skipped", "failed" };

/* A label value: backslash, double quote and line feed escaped. */
void output_prom_label(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\\\", f);
		else if (*s == '"')
			fputs("\\\"", f);
		else if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

static void run_labels(FILE *f, const struct results *r)
{
	fputs("kernel=", f);
	output_prom_label(f, r->env.kernel);
	fputs(",host=", f);
	output_prom_label(f, r->env.hostname);
}

/* @status: a label of its own (the cell_info series), or NULL */
static void cell_labels(FILE *f, const struct results *r, const struct cell *c, const char *status)
{
	fputs("{tracer=", f);
	output_prom_label(f, c->tracer);
	fputs(",workload=", f);
	output_prom_label(f, c->workload);
	fprintf(f, ",threads=\"%d\",target=", c->threads);
	output_prom_label(f, c->target);
	fputc(',', f);
	run_labels(f, r);
	if (status)
		fprintf(f, ",status=\"%s\"", status);
	fputc('}', f);
}

/* Samples as Go's strconv formats them: NaN, +Inf, or 17 digits (exact). */
static void value(FILE *f, double v)
{
	if (isnan(v))
		fputs(" NaN\n", f);
	else if (isinf(v))
		fputs(v > 0 ? " +Inf\n" : " -Inf\n", f);
	else
		fprintf(f, " %.17g\n", v);
}

/* ISO 8601 UTC "2025-01-02T03:04:05Z" to seconds since the epoch; NaN if not. */
static double epoch_of(const char *iso)
{
	time_t t;

	return utc_parse(iso, &t) ? NAN : (double)t;
}

enum kind { NS, COUNT };

/* One metric family: every ok cell's figure @field (ns are sent as seconds). */
struct family {
	const char *name, *help;
	enum kind kind;
	double (*get)(const struct cell *c);
};

static double overhead(const struct cell *c) { return c->overhead.mean; }
static double overhead_lo(const struct cell *c) { return c->overhead.ci95[0]; }
static double overhead_hi(const struct cell *c) { return c->overhead.ci95[1]; }
static double base_ns(const struct cell *c) { return c->base.mean; }
static double traced_ns(const struct cell *c) { return c->traced.mean; }
static double slowdown(const struct cell *c) { return c->slowdown; }
static double reps(const struct cell *c) { return c->nreps; }
static double events(const struct cell *c) { return (double)c->events; }
static double hits(const struct cell *c) { return c->hits < 0 ? NAN : (double)c->hits; }
static double lost(const struct cell *c) { return (double)c->lost; }
static double disturbed(const struct cell *c) { return c->disturbed; }
static double below_floor(const struct cell *c) { return c->below_floor; }

static const struct family families[] = {
	{ "tracetax_overhead_per_event_seconds", "What the tracer adds to each event: "
	  "traced - baseline time per op, paired per rep, mean of the cell's round means.", NS,
	  overhead },
	{ "tracetax_overhead_per_event_ci95_lower_seconds", "Lower bound of the 95% confidence "
	  "interval of the overhead per event (Student's t over the round means).", NS, overhead_lo },
	{ "tracetax_overhead_per_event_ci95_upper_seconds", "Upper bound of the 95% confidence "
	  "interval of the overhead per event (Student's t over the round means).", NS, overhead_hi },
	{ "tracetax_baseline_per_op_seconds", "Time per op of the workload untraced, mean over reps.",
	  NS, base_ns },
	{ "tracetax_traced_per_op_seconds", "Time per op of the workload traced, mean over reps.",
	  NS, traced_ns },
	{ "tracetax_slowdown_ratio", "Traced / baseline time per op.", COUNT, slowdown },
	{ "tracetax_reps", "Reps completed (pairs of a baseline and a traced run).", COUNT, reps },
	{ "tracetax_events", "Target events the workload made in all traced runs.", COUNT, events },
	{ "tracetax_hits", "Events the tracer reports it saw in all traced runs "
	  "(none when it cannot count).", COUNT, hits },
	{ "tracetax_lost_events", "Events the tracer saw but dropped or overwrote, "
	  "in all traced runs.", COUNT, lost },
	{ "tracetax_disturbed", "1: other tracing on the machine changed during the cell.",
	  COUNT, disturbed },
	{ "tracetax_below_noise_floor", "1: the overhead is under the run's noise floor "
	  "(an A/A cell's interval).", COUNT, below_floor },
};

int output_prometheus(const struct results *r, FILE *f)
{
	double started = epoch_of(r->env.started);

	fputs("# HELP tracetax_run_start_timestamp_seconds When the run started, "
	      "seconds since the epoch.\n"
	      "# TYPE tracetax_run_start_timestamp_seconds gauge\n"
	      "tracetax_run_start_timestamp_seconds{", f);
	run_labels(f, r);
	fputs(",version=", f);
	output_prom_label(f, r->env.tracetax_version);
	fputc('}', f);
	value(f, started);
	fputs("# HELP tracetax_run_duration_seconds Wall time of the whole run, set-up and "
	      "skipped cells included.\n# TYPE tracetax_run_duration_seconds gauge\n"
	      "tracetax_run_duration_seconds{", f);
	run_labels(f, r);
	fputc('}', f);
	value(f, r->elapsed_s);

	/* one series per cell and status: a skipped cell is visible, with no figures */
	fputs("# HELP tracetax_cell_info A cell of the run (1), and its status: ok, skipped "
	      "or failed.\n# TYPE tracetax_cell_info gauge\n", f);
	for (int i = 0; i < r->ncells; i++) {
		const struct cell *c = &r->cells[i];

		fputs("tracetax_cell_info", f);
		cell_labels(f, r, c, status_name[c->status]);
		fputs(" 1\n", f);
	}
	for (size_t k = 0; k < sizeof(families) / sizeof(families[0]); k++) {
		const struct family *m = &families[k];
		/* under qemu's -icount a figure is instructions: a metric of its own, unscaled */
		bool instr = m->kind == NS && results_in_instructions(&r->env);
		char name[128];
		size_t n = strlen(m->name);

		if (instr)
			snprintf(name, sizeof(name), "%.*s_instructions", (int)(n - 8), m->name);
		else
			snprintf(name, sizeof(name), "%s", m->name);
		fprintf(f, "# HELP %s %s%s\n# TYPE %s gauge\n", name,
			instr ? "In guest instructions (qemu -icount), not time. " : "", m->help, name);
		for (int i = 0; i < r->ncells; i++) {
			const struct cell *c = &r->cells[i];
			double v;

			if (c->status != CELL_OK || c->nreps < 1)
				continue;
			v = m->get(c);
			if (isnan(v))	/* undefined (hits a tracer cannot count): no sample */
				continue;
			fputs(name, f);
			cell_labels(f, r, c, NULL);
			value(f, m->kind == NS && !instr ? v * 1e-9 : v);
		}
	}
	return ferror(f) ? -1 : 0;
}
