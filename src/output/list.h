#ifndef TRACETAX_OUTPUT_LIST_H
#define TRACETAX_OUTPUT_LIST_H

#include <stdio.h>

/* `tracetax list`: every tracer and variant with its status here, and the workloads. */
int output_list(FILE *f, int json, const char *load_path);
/*
 * The names alone, one a line, probing nothing (shell completion):
 * @what "tracers" (every tracer and variant), "workloads". -1: neither.
 */
int output_list_names(FILE *f, const char *what);

#endif
