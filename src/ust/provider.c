/*
 * The probe provider of tracetax:func (src/load/ust_tp.h): built into
 * libtracetax-ust.so, linked with liblttng-ust, and LD_PRELOADed into the
 * workload by the lttng-ust tracer only. Its constructor registers the
 * probe, and liblttng-ust's registers the process with the session daemon.
 */
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#include "load/ust_tp.h"
