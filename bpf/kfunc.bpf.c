// SPDX-License-Identifier: GPL-2.0
/*
 * The BPF kernel-function tracers: a program on the kernel function behind
 * the hooked syscall (__x64_sys_getpid), by fentry (BPF trampoline) or by
 * kprobe (breakpoint or ftrace). User space sets the function: fentry with
 * bpf_program__set_attach_target() before load, kprobe at attach.
 */
#include "syscall.h"	/* UAPI types without asm/ */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

/*
 * The workload's tgid, 0 = count nothing: the function runs for every
 * process. A .bss global, written by user space through the skeleton's
 * mmap in start(), read without a helper call: the same filter as the
 * syscall tracers, so that the figures compare.
 */
__u32 target_tgid = 0;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} pcpu_count SEC(".maps");

static __always_inline int is_target(void)
{
	return (bpf_get_current_pid_tgid() >> 32) == target_tgid;
}

static __always_inline int handle_count(void)
{
	__u32 zero = 0;
	__u64 *v;

	if (!is_target())
		return 0;
	v = bpf_map_lookup_elem(&pcpu_count, &zero);
	if (v)
		(*v)++;
	return 0;
}

/* The filter alone: what the hook and the program call cost. */
static __always_inline int handle_empty(void)
{
	(void)is_target();
	return 0;
}

SEC("?fentry")
int tt_fentry_count(__u64 *ctx)
{
	(void)ctx;
	return handle_count();
}

SEC("?fentry")
int tt_fentry_empty(__u64 *ctx)
{
	(void)ctx;
	return handle_empty();
}

SEC("?kprobe")
int tt_kprobe_count(void *ctx)
{
	(void)ctx;
	return handle_count();
}

SEC("?kprobe")
int tt_kprobe_empty(void *ctx)
{
	(void)ctx;
	return handle_empty();
}
