/* Shared by perf.c (perf:count) and perf_sample.c (perf:sample). */
#ifndef TRACETAX_TRACERS_PERF_H
#define TRACETAX_TRACERS_PERF_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct tracer;

/* What a perf tracer's event records besides its count: its tracer_ops.data (NULL: none). */
struct tt_perf_sampling {
	uint64_t period;	/* attr.sample_period */
	uint64_t type;		/* attr.sample_type: PERF_SAMPLE_* */
};

int tt_perf_open(struct perf_event_attr *attr, pid_t pid, int cpu);
/* The target's tracepoint @tp_id, disabled, inherited, sampled as @s says (NULL: counting). */
void tt_perf_attr(struct perf_event_attr *attr, long tp_id, const struct tt_perf_sampling *s);
/* The target's tracepoint id into @id: TT_OK, or TT_FAIL and t->err. */
int tt_perf_tp(struct tracer *t, long *id);
/* Opens t's event, as t->ops->data describes it, on ourselves. */
int tt_perf_supported(const struct tracer *t, char *reason, size_t len);

#endif
