/* `tracetax run --dry-run` (plan.c). */
#ifndef TRACETAX_OUTPUT_PLAN_H
#define TRACETAX_OUTPUT_PLAN_H

#include <stdio.h>

#include "measure/plan.h"

/* The cells, their rep orders, the estimate; nothing runs. */
void plan_print(const struct plan *p, const struct measure_opts *a, FILE *f);

#endif
