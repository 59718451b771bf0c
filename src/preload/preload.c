/*
 * libtracetax-preload.so: the `preload` tracer's LD_PRELOAD interposer. It
 * defines each WL_FUNC of workloads.def (getpid, close, stat, tt_func),
 * with the function's own prototype; the dynamic linker binds the
 * workload's calls to these (the preloaded object comes first in the lookup
 * scope), and each one counts the call and jumps on to the real function.
 *
 * What it costs: the workload's call already goes through its PLT slot, so
 * interposing adds no trap and no kernel entry -- only our wrapper: a
 * predictable compare (is this the counted function?), a TLS load of the
 * thread's counter slot, an increment of a cache line no other thread
 * writes, and an indirect call through the pointer dlsym() gave us (one
 * more PLT-like hop; dearer when retpolines or IBRS guard indirect branches).
 * A few ns per call, against the ~50-250 ns of the syscall behind a libc
 * wrapper. It sees nothing of syscall(2) workloads: there is no wrapper per
 * syscall to interpose, which is why the tracer hooks TT_HOOK_FUNC only.
 *
 * tt_func lives in libtracetax-target.so, not in tracetax-load, because a
 * call from an executable to its own function is bound at link time (a
 * direct call, no PLT): nothing can interpose it.
 *
 * Inert unless TRACETAX_PRELOAD_FD is set: then TRACETAX_PRELOAD_FUNC names
 * the one function counted (the others pass through uncounted, so that the
 * hits are exactly the workload's events) and at exit "hits N\n" is written
 * to that fd.
 */
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#include "load/workloads.h"

enum func {
	F_NONE,
#define WL_FUNC(name, ...) F_##name,
#include "load/workloads.def"
};

#define SLOT_BYTES 128     /* two cache lines: the adjacent-line prefetcher pairs them */
#define STATIC_SLOTS 256   /* threads beyond this get a slot from aligned_alloc */

/* One thread's counter, alone in its 128 bytes: no false sharing. */
struct slot {
	_Atomic uint64_t n;
	struct slot *next;  /* list of the heap slots */
} __attribute__((aligned(SLOT_BYTES)));

static enum func counted = F_NONE;
static int out_fd = -1;
static struct slot slots[STATIC_SLOTS];
static atomic_uint nclaimed;
static struct slot *_Atomic heap_slots;
static atomic_int broken;  /* a thread could not get a slot: the count is wrong */
/*
 * initial-exec: a preloaded library sits in the static TLS block, so the
 * slot pointer is one %fs-relative load instead of a __tls_get_addr call.
 */
static __thread struct slot *my_slot __attribute__((tls_model("initial-exec")));

#define WL_FUNC(name, lib, ret, params, args) static ret (*real_##name) params;
#include "load/workloads.def"

/* Without the real function we cannot go on: calling NULL would crash later. */
static void *next_sym(const char *name, int needed)
{
	void *p = dlsym(RTLD_NEXT, name);

	if (!p && needed) {
		static const char msg[] = "libtracetax-preload: cannot find the real function\n";

		if (write(2, msg, sizeof(msg) - 1) < 0)
			_exit(127);
		_exit(127);
	}
	return p;
}

/*
 * Resolved once. The wrappers test for NULL only because another library's
 * constructor may call one before ours ran; after that the test is a
 * never-taken branch. Only libc's are needed: a program without
 * libtracetax-target.so has no next tt_func (and never calls it).
 */
static void resolve(void)
{
#define WL_FUNC(name, lib, ...) \
	real_##name = (__typeof__(real_##name))next_sym(#name, (lib) == WL_LIBC);
#include "load/workloads.def"
}

static enum func func_by_name(const char *s)
{
	static const char *const names[] = {
#define WL_FUNC(name, ...) [F_##name] = #name,
#include "load/workloads.def"
	};

	for (unsigned i = F_NONE + 1; s && i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(s, names[i]))
			return (enum func)i;
	return F_NONE;
}

__attribute__((constructor)) static void preload_init(void)
{
	const char *fd = getenv("TRACETAX_PRELOAD_FD");
	char *end;
	long v;

	resolve();
	if (!fd || !*fd)
		return;
	v = strtol(fd, &end, 10);
	if (*end || v < 0 || v > 1 << 20)
		return;
	out_fd = (int)v;
	counted = func_by_name(getenv("TRACETAX_PRELOAD_FUNC"));
}

/* The cold path: a thread's first counted call claims a slot. */
static __attribute__((noinline)) struct slot *claim_slot(void)
{
	static struct slot dead;  /* counts nobody reads, if all else fails */
	unsigned i = atomic_fetch_add(&nclaimed, 1);
	struct slot *s;

	if (i < STATIC_SLOTS) {
		s = &slots[i];
	} else if ((s = aligned_alloc(SLOT_BYTES, sizeof(*s)))) {
		memset(s, 0, sizeof(*s));
		s->next = atomic_load(&heap_slots);
		while (!atomic_compare_exchange_weak(&heap_slots, &s->next, s))
			;
	} else {
		atomic_store(&broken, 1);
		s = &dead;
	}
	my_slot = s;
	return s;
}

/*
 * Only the owning thread writes its slot, so a load and a store (relaxed:
 * no lock prefix) suffice; the destructor reads after the threads are gone.
 */
static inline __attribute__((always_inline)) void count(enum func f)
{
	struct slot *s;

	if (counted != f)
		return;
	s = my_slot;
	if (__builtin_expect(!s, 0))
		s = claim_slot();
	atomic_store_explicit(&s->n, atomic_load_explicit(&s->n, memory_order_relaxed) + 1,
			      memory_order_relaxed);
}

/*
 * The interposers. Each has the prototype its header declares (<unistd.h>,
 * <sys/stat.h>, workloads.h), so a WL_FUNC line that disagrees with libc
 * fails to compile. Without a next definition we exit rather than call
 * NULL; resolve() already does that for libc's functions, and a second test
 * there, although cold, cost their hot path two saved registers.
 */
#define WL_FUNC(name, lib, ret, params, args)				\
ret name params								\
{									\
	count(F_##name);						\
	if (__builtin_expect(!real_##name, 0)) {			\
		resolve();						\
		if ((lib) != WL_LIBC && !real_##name)			\
			next_sym(#name, 1);	/* does not return */	\
	}								\
	return real_##name args;					\
}
#include "load/workloads.def"

/*
 * At exit, after main() returned and the workload joined its threads:
 * preloaded objects are finalised after the executable, so every call is in.
 * A thread still running would be missed; tracetax-load has none by then.
 */
__attribute__((destructor)) static void preload_fini(void)
{
	uint64_t sum = 0;
	unsigned n = atomic_load(&nclaimed);
	char line[64];
	int len;

	if (out_fd < 0)
		return;
	for (unsigned i = 0; i < n && i < STATIC_SLOTS; i++)
		sum += atomic_load_explicit(&slots[i].n, memory_order_relaxed);
	for (struct slot *s = atomic_load(&heap_slots); s; s = s->next)
		sum += atomic_load_explicit(&s->n, memory_order_relaxed);
	if (atomic_load(&broken))
		len = snprintf(line, sizeof(line), "error out of memory for a counter slot\n");
	else if (counted == F_NONE)
		len = snprintf(line, sizeof(line), "error unknown TRACETAX_PRELOAD_FUNC\n");
	else
		len = snprintf(line, sizeof(line), "hits %llu\n", (unsigned long long)sum);
	if (write(out_fd, line, (size_t)len) < 0)
		return;	/* the reader reports the missing line */
}
