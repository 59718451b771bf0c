/* The results document (write.c, write_dist.c): the one source of truth, as JSON. */
#ifndef TRACETAX_DOC_WRITE_H
#define TRACETAX_DOC_WRITE_H

#include <stddef.h>

#include <jansson.h>

#include "results/results.h"

struct hist;

/* Whole or not at all, "-" is stdout: base/atomic_file.h, which also checks
 * a path can be written before the run (atomic_file_check). */
int output_json_file(const struct results *r, const char *path);
char *output_json_string(const struct results *r);              /* malloc'd */

/* The document's part (write_dist.c): fields added to a cell, a run, the top. */
void output_json_cell_dist(json_t *o, const struct cell *c);
void output_json_rep_dist(json_t *o, const struct rep *r, int threads);
json_t *output_json_threads(const struct thread_fig *t, int n);
json_t *output_json_timing(const struct timing *t);
/* A distribution: its figures and its non-empty buckets as [lo, hi, count]. */
json_t *output_json_dist(const struct hist *h);

/* The document's "claims" array (claims.c); null for no rows. */
struct claim_row;
json_t *claims_json(const struct claim_row *rows, int n);

#endif
