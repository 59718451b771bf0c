/* The terminal table of a run (table.c), its parts (net.c, cmd.c) and --explain (explain.c). */
#ifndef TRACETAX_OUTPUT_TABLE_H
#define TRACETAX_OUTPUT_TABLE_H

#include <stdbool.h>
#include <stdio.h>

#include "results/results.h"

void output_table(const struct results *r, FILE *f, bool colour);
/* What instructions (environment.unit, qemu's -icount) are not: the footer's lines. */
void output_table_instructions_note(FILE *out, const char *dim, const char *reset);
/* Its part per hit and per byte (net.c); nothing when no cell has one. */
void output_table_net(const struct results *r, FILE *f, const char *bold, const char *reset);
/* cmd: workloads' runs (cmd.c): printed only when such a cell was measured. */
void output_table_cmd(const struct results *r, FILE *f, const char *bold, const char *reset);
/* --explain: the path of an event through @tracer's cells, with a figure per step. */
void output_explain(const struct results *r, const char *tracer, FILE *f);

#endif
