/* The baseline: nothing attached. Its "traced" runs measure run-to-run noise. */
#include "tracers/tracer.h"

static int none_supported(const struct tracer *t, char *reason, size_t len)
{
	(void)t; (void)reason; (void)len;
	return TT_OK;
}

static int none_stop(struct tracer *t, struct tt_hits *out)
{
	(void)t;
	out->hits = -1;	/* nothing observes: there are no hits to count */
	return 0;
}

const struct tracer_ops tracer_none = {
	.name = "none",
	.summary = "baseline: nothing attached",
	.flags = TT_F_AA,
	.supported = none_supported,
	.stop = none_stop,
};
