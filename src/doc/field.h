/*
 * Checked reads of one JSON field each, for doc/read.c: the type, the
 * range, the length that fits our buffers. On a mistake the reader's one
 * line names the document and the JSON pointer of the field; values are
 * never echoed (a hostile string would reach the terminal).
 */
#ifndef TRACETAX_DOC_FIELD_H
#define TRACETAX_DOC_FIELD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "results/stats.h"

struct rd {
	const char *name;    /* the document, for messages */
	char path[160];      /* JSON pointer of what is being read */
	size_t plen;
	char *err;
	size_t errlen;
	int version;         /* the document's schema_version */
	int latencies;       /* cells with --latency distributions so far */
};

enum { F_NULL = 1, F_NONEMPTY = 2 };

int rd_fail(struct rd *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
size_t rd_push(struct rd *x, const char *key);
size_t rd_push_index(struct rd *x, size_t i);
void rd_pop(struct rd *x, size_t at);
const char *rd_type(const json_t *v);

/* F_NULL: null reads as "" (strings), -1 (integers), NaN (numbers). */
int rd_str(struct rd *x, json_t *o, const char *key, char *dst, size_t len, int flags);
int rd_int(struct rd *x, json_t *o, const char *key, int64_t min, int64_t max, int flags,
	   int64_t *out);
int rd_intv(struct rd *x, json_t *o, const char *key, int min, int max, int *out);
int rd_num(struct rd *x, json_t *o, const char *key, double min, int flags, double *out);
int rd_bool(struct rd *x, json_t *o, const char *key, bool *out);
/* [a, b] of numbers or nulls (NaN); F_NULL: the pair itself may be null. */
int rd_pair(struct rd *x, json_t *o, const char *key, int flags, double out[2]);
/* An integer, or the decimal string a seed of 2^53 or more is written as. */
int rd_seed(struct rd *x, json_t *o, const char *key, uint64_t *out);
/* One of @names (NULL-terminated); its index in *out. */
int rd_enum(struct rd *x, json_t *o, const char *key, const char *const *names, int *out);
/* An array of at most @max elements. */
int rd_array(struct rd *x, json_t *o, const char *key, size_t max, json_t **out);
/* A summary object of @n samples; F_NULL: null reads as all NaN, *present false. */
int rd_summary(struct rd *x, json_t *o, const char *key, size_t n, int flags, struct summary *s,
	       bool *present);

/* A field version 3 added, absent from a version 2 document: read as null. */
bool rd_absent(struct rd *x, json_t *o, const char *key);
/* An object, or null (*out NULL); absent from a version 2 document reads as null. */
int rd_object(struct rd *x, json_t *o, const char *key, json_t **out);
/* {baseline, traced} of numbers or nulls (NaN), at least @min; null: both NaN. */
int rd_sides(struct rd *x, json_t *o, const char *key, double min, double out[2]);

/* A cell of cells[] and its runs (doc/read_cell.c). */
#define MAX_THREADS 65536
struct cell;
struct rep;
struct results;
int doc_read_cell(struct rd *x, json_t *o, struct cell *c);

/* Version 3's fields (doc/read_dist.c): what tracetax timed with and what BPF
 * stats cost; a cell's threads, throughput and latency; a run's threads. */
int doc_read_top_dist(struct rd *x, json_t *d, struct results *r);
int doc_read_cell_dist(struct rd *x, json_t *o, struct cell *c);
int doc_read_rep_dist(struct rd *x, json_t *o, struct rep *r, int threads);

#endif
