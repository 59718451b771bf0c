/* The table of `experiment run kernels` (output/kernels.c): every mechanism on every kernel. */
#ifndef TRACETAX_OUTPUT_KERNELS_H
#define TRACETAX_OUTPUT_KERNELS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "results/results.h"

/* A kernel of the table: a column. */
struct kernel_col {
	char release[128];
	char unit[16];            /* its runs' results_unit(); "" when none finished */
};

/* One cell of one kernel's runs. */
struct kernel_cell {
	int kernel;               /* its column */
	char tracer[TT_NAME_MAX], workload[TT_NAME_MAX];
	int threads;
	enum cell_status status;
	char reason[256];
	double mean, lo, hi;      /* overhead per event, its 95% CI */
};

/*
 * Mechanism x kernel: each cell's overhead per event (in its runs' unit)
 * and the difference from the kernel before it; skipped and failed cells
 * by name, their reasons below; the unit's footer. A table of kernels in
 * different units prints no differences.
 */
void output_kernels(FILE *f, const struct kernel_col *k, int nk, const struct kernel_cell *c,
		    int nc);

#endif
