/*
 * `tracetax report`: one self-contained HTML page (report/html.c) with
 * charts in inline SVG written here (report/svg.c): no script, style,
 * font or image from anywhere else, so it can be mailed or attached to a
 * bug, and read without JavaScript. The results documents are embedded,
 * so the page is also the data.
 */
#ifndef TRACETAX_REPORT_H
#define TRACETAX_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "compare/out.h"
#include "doc/read.h"

/* The page for @n runs; with two or more, each later one compared with the first. */
int report_html(FILE *f, struct doc *docs, int n);
/* The same with a section of the store's last budgets (`tracetax budget`). */
struct budget_brief;
int report_html_budgets(FILE *f, struct doc *docs, int n, const struct budget_brief *b, int nb);

/* Text for HTML, and for SVG inside it: & < > " ' escaped. */
void html_text(FILE *f, const char *s);

/* The tracer's mechanism family ("bpf" of "bpf:tp/count") and its colour. */
const char *report_family(const char *tracer, char *family, size_t len);

/* The overhead of every ok cell: bars on a log axis, CI whiskers, hits and lost. */
void svg_overhead(FILE *f, const struct results *r);
/* A and B's bars per compared cell, with compare's verdicts. */
void svg_compare(FILE *f, const struct cmp *c);
/* Overhead against threads for cells measured at two thread counts or more;
 * false (nothing written) when there are none. @f NULL: only whether. */
bool svg_threads(FILE *f, const struct results *r);
/* Runs of several hosts or kernels: each tracer's bars side by side, one per run. */
void svg_fleet(FILE *f, const struct doc *docs, int n, bool by_kernel);

#endif
