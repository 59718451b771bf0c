/*
 * CSV: one row per cell, every cell (skipped and failed ones with their
 * reason), a header whose names carry the units. RFC 4180 quoting; an
 * undefined figure is an empty field, as it is null in the document.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "output/export.h"

static const char header[] =
	"workload,tracer,threads,target,status,reason,reps,"
	"base_ns_per_op,traced_ns_per_op,overhead_ns_per_event,"
	"overhead_ci95_lo_ns,overhead_ci95_hi_ns,overhead_median_ns,"
	"slowdown,slowdown_ci95_lo,slowdown_ci95_hi,events,hits,lost,"
	"consumer_ns_per_event,kernel_consumer_ns_per_event,below_noise_floor,disturbed,note\n";

/* Quoted only when it must be: a comma, a quote, a line break, edge spaces. */
static void text(FILE *f, const char *s, bool last)
{
	size_t n = strlen(s);

	if (strpbrk(s, ",\"\r\n") || (n && (s[0] == ' ' || s[n - 1] == ' '))) {
		fputc('"', f);
		for (; *s; s++) {
			if (*s == '"')
				fputc('"', f);
			fputc(*s, f);
		}
		fputc('"', f);
	} else {
		fputs(s, f);
	}
	fputc(last ? '\n' : ',', f);
}

/* 15 significant digits, as in the document. */
static void num(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, "%.15g", v);
	fputc(',', f);
}

static void count(FILE *f, int64_t v)
{
	if (v >= 0)
		fprintf(f, "%lld", (long long)v);
	fputc(',', f);
}

static void row(FILE *f, const struct cell *c)
{
	bool ok = c->status == CELL_OK && c->nreps > 0;
	double nan = NAN;

	text(f, c->workload, false);
	text(f, c->tracer, false);
	fprintf(f, "%d,", c->threads);
	text(f, c->target, false);
	text(f, cell_status_name(c->status), false);
	text(f, c->reason, false);
	fprintf(f, "%d,", c->nreps);
	num(f, ok ? c->base.mean : nan);
	num(f, ok ? c->traced.mean : nan);
	num(f, ok ? c->overhead.mean : nan);
	num(f, ok ? c->overhead.ci95[0] : nan);
	num(f, ok ? c->overhead.ci95[1] : nan);
	num(f, ok ? c->overhead.median : nan);
	num(f, ok ? c->slowdown : nan);
	num(f, ok ? c->slowdown_ci95[0] : nan);
	num(f, ok ? c->slowdown_ci95[1] : nan);
	count(f, c->events);
	count(f, c->hits);
	count(f, c->lost);
	num(f, ok ? c->consumer_ns_per_event : nan);
	num(f, ok ? c->kernel_consumer_ns_per_event : nan);
	fprintf(f, "%s,%s,", ok && c->below_floor ? "true" : "false", c->disturbed ? "true" : "false");
	text(f, c->note, true);
}

int output_csv(const struct results *r, FILE *f)
{
	/* under qemu's -icount the names carry the unit they hold: instructions */
	if (results_in_instructions(&r->env)) {
		for (const char *p = header; *p; p++)
			if (p[0] == 'n' && p[1] == 's' && (p[2] == '_' || p[2] == ',') && p[-1] == '_')
				fputs("instructions", f), p++;
			else
				fputc(*p, f);
	} else {
		fputs(header, f);
	}
	for (int i = 0; i < r->ncells; i++)
		row(f, &r->cells[i]);
	return ferror(f) ? -1 : 0;
}
