/* A cmd: workload's cell around its reps (cmdload_pass.c); its runs are cmdload.h's. */
#ifndef TRACETAX_CMDLOAD_PASS_H
#define TRACETAX_CMDLOAD_PASS_H

struct cell_ctx;

/* The cell's command: split, its directory made, counted; 0, or -1 (cell failed). */
int cmdload_prepare(struct cell_ctx *x);
/* After the cell: its directory removed, unless a run failed. */
void cmdload_release(struct cell_ctx *x);

#endif
