/* tracetax rate's table (measure/rate.h). */
#ifndef TRACETAX_OUTPUT_RATE_H
#define TRACETAX_OUTPUT_RATE_H

#include <stdio.h>

struct rate_results;

void output_rate_table(const struct rate_results *r, FILE *f);

#endif
