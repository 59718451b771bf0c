/*
 * The func-ust workload's LTTng-UST site (TT_UST_FUNC in workloads.def).
 *
 * The load links no lttng library: with dynamic linkage its tracepoint is
 * a flag tested in the loop (off: one load and a branch, like a USDT
 * semaphore), and liblttng-ust-tracepoint.so.1 is dlopen'd by a
 * constructor when installed -- before the ready line, in every run alike.
 * The probe that records (build/libtracetax-ust.so, src/ust/) comes in by
 * LD_PRELOAD for lttng-ust runs only, and with it liblttng-ust, its
 * listener threads and its registration with the session daemon.
 * Without liblttng-ust-dev the site is empty and lttng-ust skips.
 */
#ifndef TRACETAX_LOAD_UST_H
#define TRACETAX_LOAD_UST_H

#ifdef TT_HAVE_UST
#define LTTNG_UST_TRACEPOINT_PROBE_DYNAMIC_LINKAGE
#include "load/ust_tp.h"
#define TT_UST_FUNC(i) lttng_ust_tracepoint(tracetax, func, (uint64_t)(i))
#else
#define TT_UST_FUNC(i) ((void)(i))
#endif

#endif
