/*
 * Exports of a run (output/csv.c, output/markdown.c): a CSV row per cell
 * for spreadsheets and scripts, a Markdown table for an issue or a mail.
 * Columns are in docs/schema.md.
 */
#ifndef TRACETAX_OUTPUT_EXPORT_H
#define TRACETAX_OUTPUT_EXPORT_H

#include <stdio.h>

#include "results/results.h"

int output_csv(const struct results *r, FILE *f);
int output_markdown(const struct results *r, FILE *f);
/* Prometheus text format: gauges in seconds, labels tracer, workload, threads, target, kernel, host. */
int output_prometheus(const struct results *r, FILE *f);
/* A Prometheus label value, quoted, with backslash, double quote and line feed escaped. */
void output_prom_label(FILE *f, const char *s);

/*
 * Writes @text, or what @fn writes of @r, to @path: through a temporary
 * of its own beside it (base/atomic_file.h), fsync'ed and renamed, so a reader never sees half of it; NULL or "-":
 * stdout. 0, or -1 with the error said.
 */
int output_file(const char *path, const char *text, const struct results *r,
		int (*fn)(const struct results *r, FILE *f));

#endif
