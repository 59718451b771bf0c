/* How the cost spreads, in the terminal (output_dist.c): called by output_table(). */
#ifndef TRACETAX_OUTPUT_DIST_H
#define TRACETAX_OUTPUT_DIST_H

#include <stdbool.h>
#include <stdio.h>

#include <jansson.h>

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

/* The document's part (output_json_dist.c): fields added to a cell, a run, the top. */
void output_json_cell_dist(json_t *o, const struct cell *c);
void output_json_rep_dist(json_t *o, const struct rep *r, int threads);
json_t *output_json_threads(const struct thread_fig *t, int n);
json_t *output_json_timing(const struct timing *t);
/* A distribution: its figures and its non-empty buckets as [lo, hi, count]. */
json_t *output_json_dist(const struct hist *h);

#endif
