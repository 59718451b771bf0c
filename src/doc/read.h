/*
 * Results documents (docs/schema.md) read back into struct results, for
 * `show`, `compare`, `export`, `report` and the store. A document may come
 * from another machine, a mail or a fuzzer: every field is checked as it is
 * read, and anything wrong is one line naming where, never a crash.
 */
#ifndef TRACETAX_DOC_READ_H
#define TRACETAX_DOC_READ_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "results/results.h"

/* The schema version this tracetax writes, and the oldest it reads: version 3
 * only added fields, which read as null from a version 2 document, so those
 * (and stores holding them) stay readable. */
#define DOC_SCHEMA_VERSION 3
#define DOC_SCHEMA_OLDEST  2

/*
 * Refused before parsing, so that a hostile document cannot make the
 * parser build a tree in gigabytes (a JSON value takes ~40 bytes in
 * jansson, 20 times its text): a run of 35 cells x 1000 reps is ~600k
 * values and ~20 MB, well inside both. No document of ours nests deeper
 * than 6.
 */
#define DOC_MAX_BYTES  (64u << 20)
#define DOC_MAX_VALUES 2000000
#define DOC_MAX_DEPTH  32
/* Each --latency cell becomes two 16 KiB histograms: a few hundred bytes of
 * text must not cost that 4 million times. No plan has this many cells. */
#define DOC_MAX_LATENCIES 4096

struct doc {
	struct results r;
	json_t *json;        /* the whole document: what the structs do not hold */
	char *text;          /* as read, NUL-terminated */
	size_t len;
	int64_t run_id;      /* its id in the store; 0: not from the store */
	char name[256];      /* what messages call it: "run 12", or the path */
};

/*
 * Parses @len bytes at @text, which @d takes over (doc_release frees it),
 * into @d->r. Fields it does not know are kept in @d->json and otherwise
 * ignored: documents gain fields, and those of this schema version are
 * read. 0, or -1 with one line in @err naming @d->name and the field.
 */
int doc_parse(struct doc *d, char *text, size_t len, char *err, size_t errlen);
/* Reads @path ("-": stdin), at most DOC_MAX_BYTES, and parses it. */
int doc_read_file(struct doc *d, const char *path, char *err, size_t errlen);
void doc_release(struct doc *d);

#endif
