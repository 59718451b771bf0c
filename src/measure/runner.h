#ifndef TRACETAX_RUNNER_H
#define TRACETAX_RUNNER_H

#include <stdio.h>

#include "measure/plan.h"
#include "results/results.h"

/*
 * Runs the plan's cells into r. Returns EXIT_OK when every cell ran or
 * was skipped, EXIT_FAILED when a measurement failed, EXIT_DISTURBED when
 * other tracing changed during a cell, and 128+signal when interrupted
 * (everything torn down by then).
 */
int runner_run(const struct plan *p, const struct measure_opts *a, const char *load_path,
	       struct results *r, FILE *progress);

#endif
