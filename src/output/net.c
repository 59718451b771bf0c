/*
 * The terminal table's second part, for cells whose hits are not their
 * events or whose events move bytes: per message and per probe hit, and the
 * throughput with and without the tracer (seed 004's question: does the
 * probe change what it measures). Printed only when such a cell was
 * measured, after the main table.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "output/table.h"
#include "results/results.h"
#include "load/syscalls.h"
#include "base/util.h"

static bool per_hit_cell(const struct cell *c)
{
	return c->status == CELL_OK && strncmp(c->workload, "cmd:", 4) &&
	       (c->bytes_per_event > 0 || tt_tracepoint_split(c->target, NULL, 0, NULL, 0));
}

static void fmt_num(char *buf, size_t len, double v, const char *fmt)
{
	if (isfinite(v))
		snprintf(buf, len, fmt, v);
	else
		snprintf(buf, len, "-");
}

static void print_row(FILE *out, const struct cell *c, int tw)
{
	char hpe[24], msg[24], hit[24], base[24], traced[24], loss[24], lo[24], hi[24];

	fmt_num(hpe, sizeof(hpe), c->hits_per_event, "%.2f");
	format_ns(msg, sizeof(msg), c->overhead.mean);
	if (isfinite(c->ns_per_hit))
		format_ns(hit, sizeof(hit), c->ns_per_hit);
	else
		snprintf(hit, sizeof(hit), "-");
	fmt_num(base, sizeof(base), c->base_mbps, "%.1f");
	fmt_num(traced, sizeof(traced), c->traced_mbps, "%.1f");
	fmt_num(loss, sizeof(loss), c->loss_pct, "%.1f");
	fmt_num(lo, sizeof(lo), c->loss_ci95[0], "%.1f");
	fmt_num(hi, sizeof(hi), c->loss_ci95[1], "%.1f");
	fprintf(out, "%-*s %-8s %3d %7s %9s %9s %9s %9s  %s [%s, %s]\n", tw, c->tracer,
		c->workload, c->threads, hpe, msg, hit, base, traced, loss, lo, hi);
}

void output_table_net(const struct results *r, FILE *out, const char *bold, const char *reset)
{
	bool any = false, bytes = false;
	int tw = 6;	/* sized to the tracers, as the main table is */

	for (int i = 0; i < r->ncells; i++) {
		const struct cell *c = &r->cells[i];

		if (!per_hit_cell(c))
			continue;
		any = true;
		bytes |= c->bytes_per_event > 0;
		tw = (int)strlen(c->tracer) > tw ? (int)strlen(c->tracer) : tw;
	}
	if (!any)
		return;
	fprintf(out, "\n%s%-*s %-8s %3s %7s %9s %9s %9s %9s  %s%s\n", bold, tw, "tracer", "workload",
		"thr", "hits/ev", "+ns/ev", "+ns/hit", "base MB/s", "traced", "loss % [95% CI]", reset);
	for (int i = 0; i < r->ncells; i++)
		if (per_hit_cell(&r->cells[i]))
			print_row(out, &r->cells[i], tw);
	fprintf(out, "hits/ev: probe hits per event (a tracepoint fires per segment or packet,\n"
		"not per message); +ns/hit: the overhead per event / hits/ev");
	if (bytes)
		fprintf(out, "; MB/s: payload sent by all\nthreads (%d bytes an event), and lost to "
			"the tracer; tcp-rr: an event is a round trip,\nits base and traced ns are the "
			"round-trip latency", r->opts.msg_size);
	fputc('\n', out);
}
