/*
 * The LTTng-UST tracepoint of the func-ust workload: tracetax:func, one
 * 64-bit field (the op's index, as the USDT site passes it). Read by
 * lttng-ust's macros several times over (the provider's multi-read), hence
 * no plain include guard. Only where liblttng-ust-dev is installed
 * (TT_HAVE_UST, set by the Makefile).
 */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER tracetax
#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "load/ust_tp.h"

#if !defined(TRACETAX_LOAD_UST_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define TRACETAX_LOAD_UST_TP_H

#include <stdint.h>
#include <lttng/tracepoint.h>

LTTNG_UST_TRACEPOINT_EVENT(tracetax, func,
	LTTNG_UST_TP_ARGS(uint64_t, i),
	LTTNG_UST_TP_FIELDS(lttng_ust_field_integer(uint64_t, i, i)))

#endif

#include <lttng/tracepoint-event.h>
