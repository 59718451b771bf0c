/*
 * inline: the workload records each event itself -- a TSC read and the thread
 * id into a per-thread ring (src/load/loops.c) -- the way in-code
 * instrumentation does. No trap, no kernel: the floor any tracer can reach.
 * Hits are the records the workload reports it made.
 */
#include <stdlib.h>

#include "tracers/tracer.h"

static int inline_child_prep(struct tracer *t)
{
	(void)t;
	return setenv("TRACETAX_INLINE", "1", 1);
}

static int inline_stop(struct tracer *t, struct tt_hits *out)
{
	out->hits = t->load_recorded;
	if (out->hits < 0)
		return tracer_error(t, "workload made no inline records");
	return 0;
}

const struct tracer_ops tracer_inline = {
	.name = "inline",
	.summary = "the workload records each event itself: TSC + tid into a per-thread buffer",
	.child_prep = inline_child_prep,
	.stop = inline_stop,
};
