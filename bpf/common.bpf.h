/*
 * What the three BPF objects share (syscall.bpf.c, uprobe.bpf.c,
 * kfunc.bpf.c): UAPI types, the maps, the tgid filter and the five
 * handler bodies (variants). One copy, so that a variant costs the same
 * work on every hook and the figures compare across hooks. User space
 * (src/tracers/bpf_util.c) finds the maps by these names.
 */
#ifndef TRACETAX_COMMON_BPF_H
#define TRACETAX_COMMON_BPF_H

#include "types.bpf.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

/*
 * One record per event in the ringbuf variant. 16 bytes of data plus the
 * ring's 8-byte header: 24 bytes a record in the ring.
 */
struct tt_event {
	__u32 tid;
	__u32 nr;	/* the syscall number; 0 on user-space hooks */
	__u64 ts;	/* bpf_ktime_get_ns() */
};

/*
 * The workload's tgid, 0 = count nothing. Not rodata: the pid changes for
 * every run while the program is loaded and attached once per cell. A .bss
 * global is a one-entry ARRAY map that user space writes through the
 * skeleton's mmap in start(), with no syscall, and that the program reads
 * by direct value access, with no helper call: the cheapest filter there
 * is, and the same in every variant so that variants differ only in the
 * work they do after it. The uprobe programs do not read it (see there).
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

/*
 * The handlers, one per variant; @nr only goes into the ringbuf record.
 *
 * count: a plain increment of this CPU's slot. Exact unless the kernel
 * preempts the program (uprobe programs run with migration, not
 * preemption, disabled) and another workload thread runs it on the same
 * CPU in between: possible with preempt=full and more threads than CPUs,
 * not with preempt=none.
 */
static __always_inline int handle_count(__u32 nr)
{
	__u32 zero = 0;
	__u64 *v = bpf_map_lookup_elem(&pcpu_count, &zero);

	(void)nr;
	if (v)
		(*v)++;
	return 0;
}

/* The filter alone: what the hook and the program call cost. */
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

static __always_inline int ring_record(__u32 nr, __u64 flags)
{
	struct tt_event *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);

	if (!e) {
		count_lost();
		return 0;
	}
	e->tid = (__u32)bpf_get_current_pid_tgid();
	e->nr = nr;
	e->ts = bpf_ktime_get_ns();
	bpf_ringbuf_submit(e, flags);
	return 0;
}

/* Default submit: wakes the reader if it waits -- an IPI per event. */
static __always_inline int handle_ringbuf(__u32 nr)
{
	return ring_record(nr, 0);
}

/* No wake-up: the reader comes by every millisecond, as batching tools do. */
static __always_inline int handle_ringbuf_batch(__u32 nr)
{
	return ring_record(nr, BPF_RB_NO_WAKEUP);
}

/*
 * Test only (TRACETAX_FAULT=<tracer>@verifier, docs/method.md): a program
 * the verifier must reject, loaded in setup() instead of the cell's own, so
 * that tests see a rejection of ours come out as a failure with the
 * verifier's words. It reads 8 bytes above the frame pointer, where no
 * stack slot is. A tracepoint program in every object: any kernel that
 * runs BPF tracing verifies it.
 */
SEC("?tp")
int tt_fault_verifier(void *ctx)
{
	__u64 v;

	(void)ctx;
	asm volatile("%0 = *(u64 *)(r10 + 8)" : "=r"(v));
	return (int)v;
}

/*
 * TT_ALL_VARIANTS(PROG, hook) expands PROG(hook, variant) once per handler,
 * in the order of tt_bpf_variants[] in src/tracers/bpf_util.c. PROG names
 * its program tt_<hook>_<variant>, in SEC("?..."): a cell turns autoload
 * on for the one program it measures, so nothing else runs beside it.
 */
#define TT_ALL_VARIANTS(PROG, hook)					\
	PROG(hook, count)						\
	PROG(hook, empty)						\
	PROG(hook, count_shared)					\
	PROG(hook, hash)						\
	PROG(hook, ringbuf)						\
	PROG(hook, ringbuf_batch)

#endif
