// SPDX-License-Identifier: GPL-2.0
/*
 * tracetax pair: two probes that fire back to back on one path of the
 * workload's syscall. The first stores a timestamp, the second takes the
 * difference: what separates them is the probes themselves plus storing
 * and fetching the start, the case of the kernel-function-probe thread
 * (seeds/002), where two nested functions 0 ns apart measured 676 ns to
 * 88 us and the cause was one global variable shared by every CPU.
 *
 * Programs, one set per place the start is stored (<st>: global, percpu,
 * hash, lock, lock_cas); user space loads one start and one end, by name:
 *   tt_pair_raw_start_<st>   raw_syscalls:sys_enter, the target's number only
 *   tt_pair_tp_start_<st>    syscalls:sys_enter_<target>
 *   tt_pair_tp_end_<st>      syscalls:sys_enter_<target> or sys_exit_<target>
 *   tt_pair_{fentry,kprobe}_{start,end}_<st>   two nested kernel functions
 * A program per storage, not a rodata switch: the verifier refuses a
 * tracing program that so much as names a map holding a lock.
 *
 * The clock is rodata (clock_id). Every end checks that the start it finds
 * is its own thread's: one that is not, or none, means another thread
 * overwrote it -- the data race of global state, counted, and its delay
 * not recorded.
 */
#include "types.bpf.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

#include "pair_bpf.h"

const volatile __u32 target_nr = 0;
const volatile int clock_id = CLK_KTIME;
__u32 target_tgid = 0;

/* ST_GLOBAL: a plain global, as a script's `t_start = ...` is. */
struct slot g_slot;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct slot);
} pcpu_slot SEC(".maps");

/* Resized by user space from the thread count before load. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, __u64);
} tid_slot SEC(".maps");

/*
 * ST_LOCK: a map entry under a spin lock. Tracing programs may not take a
 * bpf_spin_lock ("tracing progs cannot use bpf_spin_lock yet", to this
 * day); the resilient one of 6.15, which gives up instead of deadlocking,
 * they may. Declared here: Debian 12's UAPI headers predate it.
 */
struct bpf_res_spin_lock {
	__u32 val;
};

extern int bpf_res_spin_lock(struct bpf_res_spin_lock *lock) __ksym __weak;
extern void bpf_res_spin_unlock(struct bpf_res_spin_lock *lock) __ksym __weak;

struct locked_slot {
	struct bpf_res_spin_lock lock;
	__u32 tid;
	__u64 ts;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct locked_slot);
} lock_slot SEC(".maps");

/*
 * ST_LOCK_CAS: the same entry under a lock of our own, a compare-and-swap
 * spin with a bound, where the kernel refuses its locks to tracing programs
 * (6.18 refuses even the resilient one). A start or end that gives up
 * after the bound touches nothing: it shows as unpaired.
 */
struct cas_slot {
	__u32 lock;
	__u32 tid;
	__u64 ts;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct cas_slot);
} cas_slot SEC(".maps");

/* the verifier walks every turn of a loop: a few hundred, not thousands */
#define CAS_SPINS 256

static __always_inline int cas_lock(struct cas_slot *c)
{
	for (int i = 0; i < CAS_SPINS; i++)
		if (!__sync_val_compare_and_swap(&c->lock, 0, 1))
			return 0;
	return -1;
}

static __always_inline void cas_unlock(struct cas_slot *c)
{
	__sync_lock_test_and_set(&c->lock, 0);	/* an atomic exchange: a full barrier */
}

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct pair_stats);
} stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, PAIR_HIST_BUCKETS);
	__type(key, __u32);
	__type(value, __u64);
} buckets SEC(".maps");

static __always_inline __u64 now(void)
{
	if (clock_id == CLK_BOOT)
		return bpf_ktime_get_boot_ns();
	if (clock_id == CLK_COARSE)
		return bpf_ktime_get_coarse_ns();
	return bpf_ktime_get_ns();
}

static __always_inline struct pair_stats *my_stats(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&stats, &zero);
}

/* src/hist.h's hist_index(), without clz: BPF has none. */
static __always_inline __u32 bucket_of(__u64 v)
{
	__u64 x = v;
	__u32 e = 0;

	if (v < (1u << PAIR_HIST_SUB_BITS))
		return (__u32)v;
	if (x >> 32) { x >>= 32; e += 32; }
	if (x >> 16) { x >>= 16; e += 16; }
	if (x >> 8) { x >>= 8; e += 8; }
	if (x >> 4) { x >>= 4; e += 4; }
	if (x >> 2) { x >>= 2; e += 2; }
	if (x >> 1) e += 1;
	if (e >= PAIR_HIST_MAX_EXP)
		return PAIR_HIST_BUCKETS - 1;
	return ((e - PAIR_HIST_SUB_BITS) << PAIR_HIST_SUB_BITS) +
	       (__u32)(v >> (e - PAIR_HIST_SUB_BITS));
}

static __always_inline void record(struct pair_stats *s, __u64 d)
{
	__u32 b = bucket_of(d);
	__u64 *n = bpf_map_lookup_elem(&buckets, &b);

	if (n)
		(*n)++;
	s->paired++;
	s->sum += d;
	if (!s->min1 || d + 1 < s->min1)
		s->min1 = d + 1;
	if (d > s->max)
		s->max = d;
}

/* The clock is read last: storing the start is part of the delay. */
static __always_inline int pair_start(const int storage)
{
	__u64 id = bpf_get_current_pid_tgid(), t;
	__u32 tid = (__u32)id, zero = 0;
	struct pair_stats *s;

	if ((id >> 32) != target_tgid || !(s = my_stats()))
		return 0;
	s->starts++;
	t = now();
	if (storage == ST_GLOBAL) {
		g_slot.ts = t;
		g_slot.tid = tid;
	} else if (storage == ST_PERCPU) {
		struct slot *p = bpf_map_lookup_elem(&pcpu_slot, &zero);

		if (p) {
			p->ts = t;
			p->tid = tid;
		}
	} else if (storage == ST_HASH) {
		bpf_map_update_elem(&tid_slot, &tid, &t, BPF_ANY);
	} else if (storage == ST_LOCK) {
		struct locked_slot *l = bpf_map_lookup_elem(&lock_slot, &zero);

		if (l && !bpf_res_spin_lock(&l->lock)) {
			l->ts = t;
			l->tid = tid;
			bpf_res_spin_unlock(&l->lock);
		}
	} else {
		struct cas_slot *c = bpf_map_lookup_elem(&cas_slot, &zero);

		if (c && !cas_lock(c)) {
			c->ts = t;
			c->tid = tid;
			cas_unlock(c);
		}
	}
	return 0;
}

/* The clock is read first: fetching the start is part of the delay too. */
static __always_inline int pair_end(const int storage)
{
	__u64 t = now(), id = bpf_get_current_pid_tgid(), ts = 0;
	__u32 tid = (__u32)id, stid = 0, zero = 0;
	struct pair_stats *s;

	if ((id >> 32) != target_tgid || !(s = my_stats()))
		return 0;
	s->ends++;
	if (storage == ST_GLOBAL) {
		ts = g_slot.ts;
		stid = g_slot.tid;
		if (stid == tid)
			g_slot.ts = 0;
	} else if (storage == ST_PERCPU) {
		struct slot *p = bpf_map_lookup_elem(&pcpu_slot, &zero);

		if (p) {
			ts = p->ts;
			stid = p->tid;
			if (stid == tid)
				p->ts = 0;
		}
	} else if (storage == ST_HASH) {
		__u64 *v = bpf_map_lookup_elem(&tid_slot, &tid);

		if (v) {
			ts = *v;
			stid = tid;
			bpf_map_delete_elem(&tid_slot, &tid);
		}
	} else if (storage == ST_LOCK) {
		struct locked_slot *l = bpf_map_lookup_elem(&lock_slot, &zero);

		if (l && !bpf_res_spin_lock(&l->lock)) {
			ts = l->ts;
			stid = l->tid;
			if (stid == tid)
				l->ts = 0;
			bpf_res_spin_unlock(&l->lock);
		}
	} else {
		struct cas_slot *c = bpf_map_lookup_elem(&cas_slot, &zero);

		if (c && !cas_lock(c)) {
			ts = c->ts;
			stid = c->tid;
			if (stid == tid)
				c->ts = 0;
			cas_unlock(c);
		}
	}
	if (!ts)
		s->unpaired++;
	else if (stid != tid)
		s->overwritten++;
	else
		record(s, t - ts);
	return 0;
}

/* raw_syscalls:sys_enter's context, from its tracefs format file. */
struct raw_enter_ctx {
	__u64 common;
	long id;
	unsigned long args[6];
};

#define PAIR_PROGS(st, name)						\
SEC("?tp/raw_syscalls/sys_enter")					\
int tt_pair_raw_start_##name(struct raw_enter_ctx *ctx)			\
{									\
	if (ctx->id != target_nr)					\
		return 0;						\
	return pair_start(st);						\
}									\
SEC("?tp") int tt_pair_tp_start_##name(void *ctx) { return pair_start(st); }	\
SEC("?tp") int tt_pair_tp_end_##name(void *ctx) { return pair_end(st); }	\
SEC("?fentry") int tt_pair_fentry_start_##name(__u64 *ctx) { return pair_start(st); } \
SEC("?fentry") int tt_pair_fentry_end_##name(__u64 *ctx) { return pair_end(st); } \
SEC("?kprobe") int tt_pair_kprobe_start_##name(void *ctx) { return pair_start(st); } \
SEC("?kprobe") int tt_pair_kprobe_end_##name(void *ctx) { return pair_end(st); }

PAIR_PROGS(ST_GLOBAL, global)
PAIR_PROGS(ST_PERCPU, percpu)
PAIR_PROGS(ST_HASH, hash)
PAIR_PROGS(ST_LOCK, lock)
PAIR_PROGS(ST_LOCK_CAS, lock_cas)
