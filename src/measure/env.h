/* The run's environment (env.c): kernel, CPU, clocksource, mitigations, tools. */
#ifndef TRACETAX_ENV_H
#define TRACETAX_ENV_H

#include "results/results.h"

void environment_collect(struct environment *env);

#endif
