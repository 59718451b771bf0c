/* `tracetax budget --attached`'s table (attached.c). */
#ifndef TRACETAX_OUTPUT_ATTACHED_H
#define TRACETAX_OUTPUT_ATTACHED_H

#include <stdio.h>

#include "results/attached.h"
#include "results/results.h"

void output_attached(const struct attached *a, FILE *f);
/* Prometheus text format of @a (docs/schema.md, "Prometheus metrics"): gauges, ratios of the box's CPU. */
int output_attached_prometheus(const struct attached *a, const struct environment *env, FILE *f);

#endif
