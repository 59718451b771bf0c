#ifndef TRACETAX_LOAD_LOOPS_H
#define TRACETAX_LOAD_LOOPS_H

#include <stdint.h>

#include "load/workloads.h"

/* Runs n ops of a workload; returns how many did not give the expected result. */
typedef uint64_t (*loop_fn)(uint64_t n);

struct loops {
	loop_fn plain;
	loop_fn inline_rec;   /* the same loop, recording each op itself (the inline tracer) */
	loop_fn latency;      /* --latency: each op timed into this thread's histogram */
};

/* Takes the expected pid and uid once, before the workload says it is ready. */
void loops_init(void);
extern long load_pid;
/* The loops of a workload from workloads[] (workload_find). */
const struct loops *loops_of(const struct workload *w);
/* A workload thread's own state (WL_THREAD): before its first loop, after its last. */
int loops_thread_begin(const struct workload *w, int peer_cpu);
void loops_thread_end(const struct workload *w);
/* Per-thread record buffer of the inline tracer; records made by this thread. */
int inline_thread_init(void);
uint64_t inline_thread_records(void);

struct hist;
/* --latency: ns per TSC tick in 32.32 fixed point; whether to record inline too. */
extern uint64_t lat_mult;
extern int lat_inline;
/* Where this thread's latency loop records. */
void latency_thread_init(struct hist *h);
/* @n timed empty intervals into @h: the cost of the timing, in every sample. */
void latency_timer_floor(struct hist *h, int n);

#endif
