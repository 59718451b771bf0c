// SPDX-License-Identifier: GPL-2.0
/*
 * The BPF user-space tracers: the five handlers (variants) of the syscall
 * tracers on three user-space hooks. Every program is SEC("?...") so that a
 * cell loads the one program it measures.
 *
 *   tt_uprobe_*     entry of the workload's function (t->func)
 *   tt_uretprobe_*  its return: the kernel also traps at entry to hijack
 *                   the return address, so this pays two traps a call
 *   tt_usdt_*       the USDT site tracetax:func (libbpf attaches it as a
 *                   uprobe and raises its semaphore)
 *
 * No tgid filter in the programs, unlike bpf/syscall.bpf.c: user space
 * attaches with the workload's pid, and the kernel then runs the program
 * only for tasks of that mm (uprobe_perf_filter): every thread of the
 * workload, no other process.
 */
#include "syscall.h"	/* UAPI types without asm/, and struct tt_event */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} pcpu_count SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} shared_count SEC(".maps");

/* Resized by user space from the thread count before load. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, __u64);
} tid_count SEC(".maps");

/* Events the handler saw but could not record (ring full, hash full). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} lost SEC(".maps");

/* One page unless the ringbuf variant sizes it before load. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} events SEC(".maps");

/*
 * libbpf's USDT support looks these two maps up by name and fills them at
 * attach time (bpf/usdt.bpf.h). That header cannot be included here: its
 * <linux/errno.h> needs <asm/errno.h>, which clang -target bpf does not
 * find on Debian (multiarch). Our handlers read no USDT argument, so only
 * the maps are needed; the value layout must stay that of libbpf's
 * struct usdt_spec (12 args of 16 bytes, cookie, count: 208 bytes), as
 * libbpf writes that many bytes into the map.
 */
struct tt_usdt_arg_spec {
	__u64 val_off;
	__u32 arg_type;
	short reg_off;
	char arg_signed;
	char arg_bitshift;
};

struct tt_usdt_spec {
	struct tt_usdt_arg_spec args[12];
	__u64 usdt_cookie;
	short arg_cnt;
};

_Static_assert(sizeof(struct tt_usdt_spec) == 208, "libbpf 1.x usdt_spec layout");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 16);
	__type(key, int);
	__type(value, struct tt_usdt_spec);
} __bpf_usdt_specs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64);
	__type(key, long);
	__type(value, __u32);
} __bpf_usdt_ip_to_spec_id SEC(".maps");

static __always_inline void count_lost(void)
{
	__u32 zero = 0;
	__u64 *v = bpf_map_lookup_elem(&lost, &zero);

	if (v)
		(*v)++;
}

/*
 * Plain increment of this CPU's slot. Exact unless the kernel preempts the
 * program (uprobe programs run with migration, not preemption, disabled)
 * and another workload thread runs it on the same CPU in between: possible
 * with preempt=full and more threads than CPUs, not with preempt=none.
 */
static __always_inline int handle_count(void)
{
	__u32 zero = 0;
	__u64 *v = bpf_map_lookup_elem(&pcpu_count, &zero);

	if (v)
		(*v)++;
	return 0;
}

static __always_inline int handle_empty(void)
{
	return 0;
}

/* One cache line every CPU writes: the contention the variant measures. */
static __always_inline int handle_count_shared(void)
{
	__u32 zero = 0;
	__u64 *v = bpf_map_lookup_elem(&shared_count, &zero);

	if (v)
		__sync_fetch_and_add(v, 1);
	return 0;
}

static __always_inline int handle_hash(void)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	__u64 one = 1, *v;

	v = bpf_map_lookup_elem(&tid_count, &tid);
	if (v) {
		(*v)++;	/* only this thread writes its own entry */
		return 0;
	}
	if (bpf_map_update_elem(&tid_count, &tid, &one, BPF_NOEXIST))
		count_lost();
	return 0;
}

/* The syscall tracers' 16-byte record, so that ringbuf costs compare across hooks. */
static __always_inline int handle_ringbuf(void)
{
	struct tt_event *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);

	if (!e) {
		count_lost();
		return 0;
	}
	e->tid = (__u32)bpf_get_current_pid_tgid();
	e->nr = 0;
	e->ts = bpf_ktime_get_ns();
	bpf_ringbuf_submit(e, 0);
	return 0;
}

#define PROG(sec, kind, v)						\
SEC("?" #sec)								\
int tt_##kind##_##v(void *ctx)						\
{									\
	(void)ctx;							\
	return handle_##v();						\
}

#define ALL_VARIANTS(sec, kind)						\
	PROG(sec, kind, count)						\
	PROG(sec, kind, empty)						\
	PROG(sec, kind, count_shared)					\
	PROG(sec, kind, hash)						\
	PROG(sec, kind, ringbuf)

ALL_VARIANTS(uprobe, uprobe)
ALL_VARIANTS(uretprobe, uretprobe)
ALL_VARIANTS(usdt, usdt)
