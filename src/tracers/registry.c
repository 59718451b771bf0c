#include <stdio.h>
#include <string.h>

#include "audit/audit_nl.h"
#include "base/workdir.h"
#include "tracers/tools/lttng.h"
#include "tracers/tracer.h"

#define TRACER(x) extern const struct tracer_ops tracer_##x;
#include "tracers/tracers.def"
#undef TRACER

const struct tracer_ops *const tracer_table[] = {
#define TRACER(x) &tracer_##x,
#include "tracers/tracers.def"
#undef TRACER
	NULL,
};

int tracers_cleanup_stale(int *removed, owner_kept_fn kept, owner_kept_fn foreign)
{
	/* the box's audit state first: its auditd's files are in a working directory */
	int rc = audit_cleanup_stale(removed, kept);

	/* an LTTng session daemon's files are listed in its directory */
	if (workdir_cleanup_stale(removed, lttng_cleanup_stale, kept, foreign))
		rc = -1;
	return rc;
}
