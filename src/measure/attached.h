/* `tracetax budget --attached`'s window: every tracing consumer's events over it (attached.c). */
#ifndef TRACETAX_MEASURE_ATTACHED_H
#define TRACETAX_MEASURE_ATTACHED_H

#include <stddef.h>

#include "results/attached.h"

struct attached_opts {
	int seconds;              /* the window */
};

/*
 * Samples the box, counts for o->seconds, samples it again, into @a (its
 * rows, each with the tracer that stands for its dispatch: attached_release;
 * their costs and owners are the caller's: attached_costs, attached_owners). BPF stats are on for the window and
 * off again after, on every path. 0; 128+signal (interrupted: no rows);
 * -1 and one line in @err.
 */
int attached_measure(const struct attached_opts *o, struct attached *a, char *err, size_t len);

#endif
