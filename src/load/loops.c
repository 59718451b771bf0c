/*
 * The hot loops, three per WORKLOAD in workloads.def: plain; recording
 * every op itself the way inline instrumentation does (TSC + thread id
 * into a per-thread buffer) -- the floor any tracer can reach; and, for
 * --latency only, timing every op into a histogram. Three loops, not a
 * flag in one, so that the loops the overhead figures come from stay
 * exactly what they were.
 */
#define _SDT_HAS_SEMAPHORES 1
#include <errno.h>
#include <stdlib.h>
#include <sys/sdt.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define tsc() __rdtsc()
#else
#define tsc() 0ull
#endif

#include "base/hist.h"
#include "load/loops.h"
#include "base/timer.h"
#include "load/tcp.h"
#include "load/ust.h"
#include "load/workloads.h"

/*
 * Expected results, taken once before the ready line: the loops must make no
 * target call of their own beyond the n ops, or hits would not equal events.
 */
long load_pid, load_uid;

void loops_init(void)
{
	load_pid = syscall(SYS_getpid);
	load_uid = syscall(SYS_getuid);
}

/* The USDT semaphore: a tracer attaching to tracetax:func raises it. */
unsigned short tracetax_func_semaphore __attribute__((unused, section(".probes")));

struct inline_rec { uint64_t tsc; uint32_t tid; uint32_t seq; };
#define INLINE_RING (1u << 16)   /* 1 MiB per thread: records wrap, the count does not */

static __thread struct inline_rec *ring;
static __thread uint64_t nrec;
static __thread uint32_t mytid;

int inline_thread_init(void)
{
	ring = calloc(INLINE_RING, sizeof(*ring));
	mytid = (uint32_t)syscall(SYS_gettid);
	return ring ? 0 : -1;
}

uint64_t inline_thread_records(void)
{
	return nrec;
}

static inline __attribute__((always_inline)) void inline_record(void)
{
	struct inline_rec *r = &ring[nrec & (INLINE_RING - 1)];

	r->tsc = tsc();
	r->tid = mytid;
	r->seq = (uint32_t)nrec++;
}

/* --latency: each op between two timer reads (timer.h), in ns into this thread's histogram. */
uint64_t lat_mult = 1ull << 32;	/* ns per tick, 32.32 fixed point */
int lat_inline;

static __thread struct hist *lat_hist;

static inline __attribute__((always_inline)) void lat_record(uint64_t ticks)
{
	hist_add(lat_hist, (uint64_t)(((unsigned __int128)ticks * lat_mult) >> 32));
}

void latency_thread_init(struct hist *h)
{
	lat_hist = h;
}

/* What every sample includes: two reads with nothing between them. */
void latency_timer_floor(struct hist *h, int n)
{
	struct hist *saved = lat_hist;

	lat_hist = h;
	for (int i = 0; i < n; i++) {
		uint64_t t0 = timer_read();

		lat_record(timer_read() - t0);
	}
	lat_hist = saved;
}

/* Generates loop_<id>, loop_<id>_inline and loop_<id>_latency from one op. */
#define WORKLOAD(id, name, sc, fn, lib, usdt, summary, setup, pre, ok)		\
static __attribute__((noinline)) uint64_t loop_##id(uint64_t n)		\
{									\
	uint64_t bad = 0;						\
	setup;								\
	for (uint64_t i = 0; i < n; i++) {				\
		pre;							\
		bad += !(ok);						\
	}								\
	return bad;							\
}									\
static __attribute__((noinline)) uint64_t loop_##id##_inline(uint64_t n)	\
{									\
	uint64_t bad = 0;						\
	setup;								\
	for (uint64_t i = 0; i < n; i++) {				\
		pre;							\
		bad += !(ok);						\
		inline_record();					\
	}								\
	return bad;							\
}									\
static __attribute__((noinline)) uint64_t loop_##id##_latency(uint64_t n)	\
{									\
	uint64_t bad = 0;						\
	setup;								\
	for (uint64_t i = 0; i < n; i++) {				\
		uint64_t t0 = timer_read();				\
		pre;							\
		bad += !(ok);						\
		if (lat_inline)						\
			inline_record();				\
		lat_record(timer_read() - t0);				\
	}								\
	return bad;							\
}
#include "load/workloads.def"

/* In the order of workloads[]: both come from workloads.def. */
enum {
#define WORKLOAD(id, ...) WL_INDEX_##id,
#include "load/workloads.def"
	WL_COUNT
};
static const struct loops table[WL_COUNT] = {
#define WORKLOAD(id, ...) [WL_INDEX_##id] = { loop_##id, loop_##id##_inline, loop_##id##_latency },
#include "load/workloads.def"
};

/* WL_THREAD lines; the other workloads' threads need nothing. */
static const struct {
	int (*begin)(int peer_cpu);
	void (*end)(void);
} thread_hooks[WL_COUNT] = {
#define WL_THREAD(id, b, e) [WL_INDEX_##id] = { b, e },
#include "load/workloads.def"
};

const struct loops *loops_of(const struct workload *w)
{
	return &table[w - workloads];
}

int loops_thread_begin(const struct workload *w, int peer_cpu)
{
	int (*begin)(int) = thread_hooks[w - workloads].begin;

	return begin ? begin(peer_cpu) : 0;
}

void loops_thread_end(const struct workload *w)
{
	if (thread_hooks[w - workloads].end)
		thread_hooks[w - workloads].end();
}
