/* `tracetax budget --attached`'s table (attached.c). */
#ifndef TRACETAX_OUTPUT_ATTACHED_H
#define TRACETAX_OUTPUT_ATTACHED_H

#include <stdio.h>

#include "results/attached.h"

void output_attached(const struct attached *a, FILE *f);

#endif
