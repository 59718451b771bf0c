#ifndef TRACETAX_PLAN_H
#define TRACETAX_PLAN_H

#include <stddef.h>

#include "cli.h"

struct tracer;
struct workload;

/* The syscall a cell hooks: --target, else the workload's own, else "". */
const char *plan_target(const struct run_args *a, const char *workload);
/* Whether workload @w offers what a tracer with hooks @h needs; else why not. */
int plan_hooks_ok(unsigned h, const struct workload *w, const char *target, char *reason,
		  size_t len);
/* The default plan leaves out tracers that cannot hook the workload at all. */
int plan_fits(const struct run_args *a, const char *workload, const char *tracer);
/* Tells a tracer what the workload offers: its function, the ELF defining it, the load. */
void plan_bind(struct tracer *t, const char *workload, const char *load_path);
/* The CPU for --tracer-cpu same|other|any; -1: any. */
int plan_tracer_cpu(const char *where);

#endif
