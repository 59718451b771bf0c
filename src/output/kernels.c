/*
 * `experiment run kernels`: one table of every mechanism on every kernel,
 * with the change from one kernel to the next. Under qemu's -icount the
 * figures are instructions per event (environment.unit, docs/vm.md).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "output/kernels.h"
#include "output/table.h"


static const struct kernel_cell *find(const struct kernel_cell *c, int nc, int k,
				      const struct kernel_cell *row)
{
	for (int i = 0; i < nc; i++)
		if (c[i].kernel == k && c[i].threads == row->threads &&
		    !strcmp(c[i].tracer, row->tracer) && !strcmp(c[i].workload, row->workload))
			return &c[i];
	return NULL;
}

/* The first cell of each (tracer, workload, threads), in the order the runs met them. */
static bool first_of_row(const struct kernel_cell *c, int i)
{
	for (int j = 0; j < i; j++)
		if (c[j].threads == c[i].threads && !strcmp(c[j].tracer, c[i].tracer) &&
		    !strcmp(c[j].workload, c[i].workload))
			return false;
	return true;
}

static void fig(char *buf, size_t len, const struct kernel_cell *x)
{
	if (!x)
		snprintf(buf, len, "-");
	else if (x->status == CELL_SKIPPED)
		snprintf(buf, len, "skipped");
	else if (x->status == CELL_FAILED)
		snprintf(buf, len, "FAILED");
	else if (!isfinite(x->mean))
		snprintf(buf, len, "?");
	else {
		char m[24], h[24];

		format_ns(m, sizeof(m), x->mean);
		format_ns(h, sizeof(h), (x->hi - x->lo) / 2);
		snprintf(buf, len, isfinite(x->hi - x->lo) ? "%s ±%s" : "%s", m, h);
	}
}

void output_kernels(FILE *f, const struct kernel_col *k, int nk, const struct kernel_cell *c,
		    int nc)
{
	bool one_unit = true, several_workloads = false;
	const char *unit = NULL;
	int tw = 6, COLW = 14;

	for (int i = 0; i < nk; i++) {
		if (!k[i].unit[0])
			continue;
		if (unit && strcmp(unit, k[i].unit))
			one_unit = false;
		unit = unit ? unit : k[i].unit;
	}
	for (int i = 0; i < nk; i++)
		COLW = (int)strlen(k[i].release) > COLW ? (int)strlen(k[i].release) : COLW;
	for (int i = 0; i < nc; i++) {
		int w = (int)strlen(c[i].tracer);

		several_workloads |= strcmp(c[i].workload, c[0].workload) != 0;
		tw = w > tw ? w : tw;
	}
	if (several_workloads)
		tw += 12;
	fprintf(f, "\nevery mechanism on every kernel: %s per event, mean ±half its 95%% CI%s\n",
		!unit ? "?" : !one_unit ? "UNITS DIFFER" : !strcmp(unit, "ns") ? "ns" : "instructions",
		one_unit && nk > 1 ? "; d: the change from the kernel before" : "");
	fprintf(f, "%-*s", tw, "mechanism");
	for (int i = 0; i < nk; i++) {
		fprintf(f, "  %*s", COLW, k[i].release);
		if (i && one_unit)
			fprintf(f, "  %8s", "d");
	}
	fputc('\n', f);
	for (int i = 0; i < nc; i++) {
		char name[2 * TT_NAME_MAX + 8];

		if (!first_of_row(c, i))
			continue;
		if (several_workloads)
			snprintf(name, sizeof(name), "%s (%s)", c[i].tracer, c[i].workload);
		else
			snprintf(name, sizeof(name), "%s", c[i].tracer);
		fprintf(f, "%-*s", tw, name);
		for (int j = 0; j < nk; j++) {
			const struct kernel_cell *x = find(c, nc, j, &c[i]), *p;
			char b[48];

			fig(b, sizeof(b), x);
			fprintf(f, "  %*s", COLW, b);
			if (!j || !one_unit)
				continue;
			p = find(c, nc, j - 1, &c[i]);
			if (x && p && x->status == CELL_OK && p->status == CELL_OK &&
			    isfinite(x->mean) && isfinite(p->mean))
				fprintf(f, "  %+8.1f", x->mean - p->mean);
			else
				fprintf(f, "  %8s", "");
		}
		fputc('\n', f);
	}
	/* why a cell has no figure, once per reason and kernel */
	for (int i = 0; i < nc; i++)
		if (c[i].status != CELL_OK)
			fprintf(f, "  %s %s on %s: %s\n", c[i].tracer,
				c[i].status == CELL_SKIPPED ? "skipped" : "FAILED",
				k[c[i].kernel].release, c[i].reason);
	if (unit && one_unit && !strcmp(unit, "instructions"))
		output_table_instructions_note(f, "", "");
	else if (!one_unit)
		fprintf(f, "the kernels' runs are in different units (instructions under qemu's -icount, "
			"ns elsewhere): no differences (docs/vm.md)\n");
}
