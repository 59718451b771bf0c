// SPDX-License-Identifier: GPL-2.0
/*
 * The BPF syscall tracers: the same five handlers (variants) on three
 * hooks (families). Every program is SEC("?...") so that a cell loads the
 * one program it measures and nothing else runs in the kernel beside it.
 *
 *   tp_*     syscalls:sys_enter_<name>: one tracepoint per syscall, fires
 *            only for the hooked syscall (perf-event attachment)
 *   rawtp_*  raw tracepoint sys_enter: fires on every syscall, filters nr
 *   tpbtf_*  tp_btf/sys_enter: the same hook, BTF-typed (tracing prog)
 */
#include "syscall.h"
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

/* The hooked syscall: fixed per cell, so a constant the verifier folds in. */
const volatile __u32 target_nr = 0;

/*
 * The workload's tgid, 0 = count nothing. Not rodata: the pid changes for
 * every run while the program is loaded and attached once per cell. A .bss
 * global is a one-entry ARRAY map that user space writes through the
 * skeleton's mmap in start(), with no syscall, and that the program reads
 * by direct value access, with no helper call: the cheapest filter there
 * is, and the same in every variant so that variants differ only in the
 * work they do after it.
 */
__u32 target_tgid = 0;

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

static __always_inline int is_target(void)
{
	return (bpf_get_current_pid_tgid() >> 32) == target_tgid;
}

static __always_inline void count_lost(void)
{
	__u32 zero = 0;
	__u64 *v = bpf_map_lookup_elem(&lost, &zero);

	if (v)
		(*v)++;
}

static __always_inline int handle_count(__u32 nr)
{
	__u32 zero = 0;
	__u64 *v = bpf_map_lookup_elem(&pcpu_count, &zero);

	(void)nr;
	if (v)
		(*v)++;	/* per-CPU slot: no other CPU writes it */
	return 0;
}

static __always_inline int handle_empty(__u32 nr)
{
	(void)nr;
	return 0;
}

/* One cache line every CPU writes: the contention the variant measures. */
static __always_inline int handle_count_shared(__u32 nr)
{
	__u32 zero = 0;
	__u64 *v = bpf_map_lookup_elem(&shared_count, &zero);

	(void)nr;
	if (v)
		__sync_fetch_and_add(v, 1);
	return 0;
}

static __always_inline int handle_hash(__u32 nr)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	__u64 one = 1, *v;

	(void)nr;
	v = bpf_map_lookup_elem(&tid_count, &tid);
	if (v) {
		(*v)++;	/* only this thread writes its own entry */
		return 0;
	}
	if (bpf_map_update_elem(&tid_count, &tid, &one, BPF_NOEXIST))
		count_lost();
	return 0;
}

static __always_inline int handle_ringbuf(__u32 nr)
{
	struct tt_event *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);

	if (!e) {
		count_lost();
		return 0;
	}
	e->tid = (__u32)bpf_get_current_pid_tgid();
	e->nr = nr;
	e->ts = bpf_ktime_get_ns();
	bpf_ringbuf_submit(e, 0);	/* default: wake the reader if it waits */
	return 0;
}

/*
 * Context of syscalls:sys_enter_<name>, from its tracefs format file: the
 * 8-byte common header, then "int __syscall_nr" (not a long, unlike
 * raw_syscalls:sys_enter: the 4 bytes after it are padding), then args.
 */
struct syscall_tp_ctx {
	__u64 common;
	int nr;
	int pad;
	unsigned long args[6];
};

/*
 * The same five handlers on each hook. raw_tp and tp_btf see every syscall:
 * the tgid filter first, then the syscall number (args[1] / ctx[1]: regs
 * are args[0]).
 */
#define TP_PROG(v)							\
SEC("?tp")								\
int tp_##v(struct syscall_tp_ctx *ctx)					\
{									\
	if (!is_target())						\
		return 0;						\
	return handle_##v((__u32)ctx->nr);				\
}

#define RAWTP_PROG(v)							\
SEC("?raw_tp")								\
int rawtp_##v(struct bpf_raw_tracepoint_args *ctx)			\
{									\
	if (!is_target() || ctx->args[1] != target_nr)			\
		return 0;						\
	return handle_##v(target_nr);					\
}

#define TPBTF_PROG(v)							\
SEC("?tp_btf/sys_enter")						\
int tpbtf_##v(__u64 *ctx)						\
{									\
	if (!is_target() || ctx[1] != target_nr)			\
		return 0;						\
	return handle_##v(target_nr);					\
}

#define ALL_VARIANTS(PROG)						\
	PROG(count)							\
	PROG(empty)							\
	PROG(count_shared)						\
	PROG(hash)							\
	PROG(ringbuf)

ALL_VARIANTS(TP_PROG)
ALL_VARIANTS(RAWTP_PROG)
ALL_VARIANTS(TPBTF_PROG)
