/*
 * A measurement session (session.c), what run, pair and experiment share:
 * the lock, signals, the measurement, its outputs and its record, with a
 * hook that reads the results before they are printed and released.
 */
#ifndef TRACETAX_SESSION_H
#define TRACETAX_SESSION_H

#include "cli/cli.h"
#include "measure/pair.h"
#include "measure/rate.h"
#include "results/results.h"
#include "vm/spec.h"

typedef void (*run_hook)(struct results *r, void *arg);
typedef void (*pair_hook)(const struct pair_results *r, void *arg);

/* What `tracetax run` does once its options are parsed: the exit code. */
int run_measure(const struct run_args *a, run_hook hook, void *arg);
/* The same for `tracetax pair`. */
int pair_measure(const struct pair_args *a, pair_hook hook, void *arg);
/* The same for `tracetax rate`. */
int rate_measure(const struct rate_args *a);
/*
 * A VM's boot and its guest's command (run --kernel, pair --kernel, vm):
 * the lock, waited for up to @wait_s, the VM, what the guest left. The
 * guest's exit code, or ours (1 a VM that failed, 128+N a signal) with a
 * message; bad input exits 2.
 */
int session_vm(struct vm_spec *spec, int wait_s, struct vm_outcome *o);

#endif
