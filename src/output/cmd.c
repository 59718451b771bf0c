/*
 * The terminal table's part for cmd: workloads: a run is one execution of
 * the command, so the main table's ns are a run's wall time / its events;
 * here are the run's own figures, and the events the counting pass found.
 */
#include <math.h>
#include <stdio.h>

#include <string.h>

#include "measure/cmdload.h"
#include "output/table.h"
#include "results/results.h"
#include "base/util.h"

static bool cmd_cell(const struct cell *c)
{
	return c->status == CELL_OK && !strncmp(c->workload, "cmd:", 4);
}

/* ns per event x events per run, as ms; the events are the same every run */
static void ms_of(char *buf, size_t len, double ns_per_event, double per)
{
	if (isfinite(ns_per_event))
		snprintf(buf, len, "%.3f", ns_per_event * per / 1e6);
	else
		snprintf(buf, len, "-");
}

void output_table_cmd(const struct results *r, FILE *out, const char *bold, const char *reset)
{
	int tw = 6;
	bool any = false;

	for (int i = 0; i < r->ncells; i++)
		if (cmd_cell(&r->cells[i])) {
			any = true;
			tw = (int)strlen(r->cells[i].tracer) > tw ? (int)strlen(r->cells[i].tracer) : tw;
		}
	if (!any)
		return;
	fprintf(out, "\n%s%-*s %10s %6s %10s %10s %21s%s  command\n", bold, tw, "tracer", "events/run",
		"cv %", "base ms", "traced ms", "+ms/run [95% CI]", reset);
	for (int i = 0; i < r->ncells; i++) {
		const struct cell *c = &r->cells[i];
		double per = c->cmd.events_per_run > 0 ? (double)c->cmd.events_per_run : 1;
		char b[24], t[24], o[24], lo[24], hi[24], ci[64];

		if (!cmd_cell(c))
			continue;
		ms_of(b, sizeof(b), c->base.mean, per);
		ms_of(t, sizeof(t), c->traced.mean, per);
		ms_of(o, sizeof(o), c->overhead.mean, per);
		ms_of(lo, sizeof(lo), c->overhead.ci95[0], per);
		ms_of(hi, sizeof(hi), c->overhead.ci95[1], per);
		snprintf(ci, sizeof(ci), "%s [%s, %s]", o, lo, hi);
		fprintf(out, "%-*s %10lld %6.2f %10s %10s %21s  %s\n", tw, c->tracer,
			(long long)c->cmd.events_per_run, 100 * c->cmd.events_cv, b, t, ci, c->workload);
	}
	fprintf(out, "a run is one execution of the command: base and traced ns above are its wall\n"
		"time / its events; events/run: the target's, counted apart in %d untraced runs\n"
		"(perf counters on the command's process tree), cv %% over them; ms: per run\n",
		CMDLOAD_COUNT_RUNS);
}
