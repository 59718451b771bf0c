#ifndef TRACETAX_RUNNER_H
#define TRACETAX_RUNNER_H

#include <stdio.h>

#include "cli.h"
#include "results.h"

/*
 * Runs the plan (workloads x tracers x thread counts) into r. Returns 0 when
 * every cell ran or was skipped, 1 when a measurement failed, and 128+signal
 * when interrupted (everything torn down by then).
 */
int runner_run(const struct run_args *a, const char *load_path, struct results *r,
	       FILE *progress);
void results_release(struct results *r);


#endif
