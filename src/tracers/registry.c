#include <stdio.h>
#include <string.h>

#include "../tracer.h"

#define TRACER(x) extern const struct tracer_ops tracer_##x;
#include "tracers.def"
#undef TRACER

const struct tracer_ops *const tracer_table[] = {
#define TRACER(x) &tracer_##x,
#include "tracers.def"
#undef TRACER
	NULL,
};
