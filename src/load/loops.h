#ifndef TRACETAX_LOAD_LOOPS_H
#define TRACETAX_LOAD_LOOPS_H

#include <stdint.h>

/* Runs n ops of a workload; returns how many did not give the expected result. */
typedef uint64_t (*loop_fn)(uint64_t n);

struct loops {
	const char *name;
	loop_fn plain;
	loop_fn inline_rec;   /* the same loop, recording each op itself (the inline tracer) */
};

/* Takes the expected pid and uid once, before the workload says it is ready. */
void loops_init(void);
extern long load_pid;
const struct loops *loops_find(const char *name);
/* Per-thread record buffer of the inline tracer; records made by this thread. */
int inline_thread_init(void);
uint64_t inline_thread_records(void);

#endif
