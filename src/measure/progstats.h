/*
 * Where a BPF tracer's nanoseconds go: its program's own time, from the
 * kernel's BPF stats, beside the whole cost per event that the reps measured.
 */
#ifndef TRACETAX_PROGSTATS_H
#define TRACETAX_PROGSTATS_H

#include "measure/cell.h"
#include "results/results.h"

/*
 * After a cell's reps, its tracer still set up: for a tracer that runs a
 * BPF program, one more traced run with BPF stats on gives its program's
 * time (x->c->prog); a refusal of the kernel goes into the cell's note.
 * When @cost is not yet measured, this cell also measures what stats cost
 * an event. A run that fails fails the cell, as a rep's would.
 */
void progstats_pass(struct cell_ctx *x, struct stats_cost *cost);


/* kernel.bpf_stats_enabled: 1, 0, or -1 when it cannot be read. */
int progstats_sysctl(void);

#endif
