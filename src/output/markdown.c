/*
 * Markdown: a GitHub-flavoured table that pastes into an issue, a pull
 * request or a mailing-list post as it is (it reads as plain text too):
 * one line of environment, one row per cell, the noise floors.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "output/export.h"
#include "base/util.h"

/* A '|' would end the cell, a backslash or backtick start markup. */
static void cell_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (strchr("|\\`*_<>[]", *s))
			fputc('\\', f);
		fputc(*s, f);
	}
}

static void header(FILE *f, const struct results *r)
{
	const struct environment *e = &r->env;
	char reps[32];
	int rounds;

	fputs("**tracetax ", f);
	cell_text(f, e->tracetax_version);
	fputs("**: kernel ", f);
	cell_text(f, e->kernel);
	fprintf(f, " %s, %d x ", e->arch, e->cpus);
	cell_text(f, e->cpu_model);
	fputs(", clocksource ", f);
	cell_text(f, e->clocksource);
	fputs(", virt ", f);
	cell_text(f, e->virtualization);
	fprintf(f, ", %s reps, started %s\n\n", results_reps_ran(r, reps, sizeof(reps), &rounds),
		e->started);
	if (results_in_instructions(e))
		fputs("In a VM under qemu's -icount: every figure is guest **instructions**, not ns "
		      "(docs/vm.md).\n\n", f);
	fprintf(f, "| tracer | workload | threads | base %s | traced %s | +%s/event [95%% CI] | "
		"slowdown | hits/events | lost | note |\n"
		"|---|---|--:|--:|--:|--:|--:|--:|--:|---|\n", results_unit(e), results_unit(e),
		results_unit(e));
}

static void row(FILE *f, const struct cell *c)
{
	char b[24], t[24], m[24], lo[24], hi[24], h[24], ev[24];

	fputs("| ", f);
	cell_text(f, c->tracer);
	fputs(" | ", f);
	cell_text(f, c->workload);
	fprintf(f, " | %d | ", c->threads);
	if (c->status != CELL_OK || c->nreps <= 0) {
		fprintf(f, "| | | | | | %s: ", c->status == CELL_SKIPPED ? "skipped" : "failed");
		cell_text(f, c->reason);
		fputs(" |\n", f);
		return;
	}
	format_ns(b, sizeof(b), c->base.mean);
	format_ns(t, sizeof(t), c->traced.mean);
	format_ns(m, sizeof(m), c->overhead.mean);
	format_ns(lo, sizeof(lo), c->overhead.ci95[0]);
	format_ns(hi, sizeof(hi), c->overhead.ci95[1]);
	format_count(ev, sizeof(ev), c->events);
	format_count(h, sizeof(h), c->hits);
	fprintf(f, "%s | %s | %s \\[%s, %s\\] | ", b, t, m, lo, hi);
	if (isfinite(c->slowdown))
		fprintf(f, "x%.3g", c->slowdown);
	fprintf(f, " | %s%s%s | %lld | ", c->hits < 0 ? "n/a" : h, c->hits < 0 ? "" : "/",
		c->hits < 0 ? "" : ev, (long long)c->lost);
	cell_text(f, c->note);
	fputs(" |\n", f);
}

int output_markdown(const struct results *r, FILE *f)
{
	header(f, r);
	for (int i = 0; i < r->ncells; i++)
		row(f, &r->cells[i]);
	if (r->nfloors)
		fputc('\n', f);
	for (int i = 0; i < r->nfloors; i++) {
		char ns[24];

		format_ns(ns, sizeof(ns), r->floors[i].ns);
		fputs("- noise floor, ", f);
		cell_text(f, r->floors[i].workload);
		fprintf(f, " %d thread%s: %s %s/event (A/A cell)\n", r->floors[i].threads,
			r->floors[i].threads == 1 ? "" : "s", ns, results_unit(&r->env));
	}
	return ferror(f) ? -1 : 0;
}
