#ifndef TRACETAX_OUTPUT_LIST_H
#define TRACETAX_OUTPUT_LIST_H

#include <stdio.h>

/* `tracetax list`: every tracer and variant with its status here, and the workloads. */
int output_list(FILE *f, int json, const char *load_path);

#endif
