/* `tracetax clocks` as a table or JSON (clocks.c). */
#ifndef TRACETAX_OUTPUT_CLOCKS_H
#define TRACETAX_OUTPUT_CLOCKS_H

#include <stdio.h>

#include "measure/clocks.h"

/* output/clocks.c */
void output_clocks_table(const struct clocks_report *r, FILE *f);
int output_clocks_json(const struct clocks_report *r, FILE *f);

#endif
