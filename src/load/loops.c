/*
 * The hot loops. Syscall workloads make each call through syscall(2), not a
 * libc wrapper (glibc once cached getpid(); a wrapper may pick another
 * syscall, as stat() -> newfstatat does); the -libc ones call the wrapper on
 * purpose, to have something to interpose. Every result is checked: a call a
 * filter turned into ENOSYS is not the event we meant.
 *
 * Each loop comes twice: plain, and recording every op itself the way inline
 * instrumentation does (TSC + thread id into a per-thread buffer) -- the
 * floor any tracer can reach.
 */
#define _SDT_HAS_SEMAPHORES 1
#include <errno.h>
#include <stdlib.h>
#include <string.h>
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

#include "loops.h"
#include "workloads.h"

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

/* Generates loop_<name> and loop_<name>_inline from one op. */
#define LOOPS(id, setup, pre, ok)						\
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
}

LOOPS(getpid, long pid = load_pid, , syscall(SYS_getpid) == pid)
LOOPS(getuid, long uid = load_uid, , syscall(SYS_getuid) == uid)
LOOPS(close, , , syscall(SYS_close, 1000) == -1 && errno == EBADF)
LOOPS(stat, struct stat st, , syscall(SYS_stat, "/tmp", &st) == 0)
LOOPS(getpid_libc, pid_t pid = (pid_t)load_pid, , getpid() == pid)
LOOPS(close_libc, , , close(1000) == -1 && errno == EBADF)
LOOPS(stat_libc, struct stat st, , stat("/tmp", &st) == 0)
LOOPS(func, , , tt_func((int)i) == (int)i + 1)
/* The same call site with a USDT probe: disabled, it costs a semaphore test. */
LOOPS(func_usdt, , if (tracetax_func_semaphore) STAP_PROBE1(tracetax, func, i),
      tt_func((int)i) == (int)i + 1)

static const struct loops table[] = {
	{ "getpid", loop_getpid, loop_getpid_inline },
	{ "getuid", loop_getuid, loop_getuid_inline },
	{ "close", loop_close, loop_close_inline },
	{ "stat", loop_stat, loop_stat_inline },
	{ "getpid-libc", loop_getpid_libc, loop_getpid_libc_inline },
	{ "close-libc", loop_close_libc, loop_close_libc_inline },
	{ "stat-libc", loop_stat_libc, loop_stat_libc_inline },
	{ "func", loop_func, loop_func_inline },
	{ "func-usdt", loop_func_usdt, loop_func_usdt_inline },
	{ NULL, NULL, NULL },
};

const struct loops *loops_find(const char *name)
{
	for (const struct loops *l = table; l->name; l++)
		if (!strcmp(l->name, name))
			return l;
	return NULL;
}
