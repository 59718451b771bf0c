/* `tracetax pair` as a table or a JSON document (pair.c). */
#ifndef TRACETAX_OUTPUT_PAIR_H
#define TRACETAX_OUTPUT_PAIR_H

#include <stdio.h>

#include "measure/pair.h"

/* output/pair.c */
void output_pair_table(const struct pair_results *r, FILE *f);
int output_pair_json(const struct pair_results *r, const char *path);

#endif
