/* How the cost spreads, in the terminal (output/dist.c): called by output_table(). */
#ifndef TRACETAX_OUTPUT_DIST_H
#define TRACETAX_OUTPUT_DIST_H

#include <stdbool.h>
#include <stdio.h>


struct cell;
struct hist;
struct rep;
struct results;
struct thread_fig;
struct timing;

/* Header lines: the clock tracetax times with, threads beyond CPUs, the cost of --latency. */
void output_dist_header(const struct results *r, FILE *out, bool colour);
/* After the table: the scaling view (several thread counts) and the latency section. */
void output_dist_sections(const struct results *r, FILE *out, bool colour);
/* Log2 histograms side by side (at most 4), bpftrace's hist() style. */
void output_hist_log2(FILE *out, const struct hist *const *h, const char *const *names, int n);

#endif
