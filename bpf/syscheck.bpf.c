// SPDX-License-Identifier: GPL-2.0
/*
 * The run-time syscall check (src/syscheck.c): every syscall the workload
 * makes, counted by number, on the raw sys_enter tracepoint (raw_syscalls),
 * so that the syscall its ops really make is seen, not taken from a table.
 */
#include "common.bpf.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, __u64);
} nr_count SEC(".maps");

SEC("raw_tp")
int tt_syscheck(struct bpf_raw_tracepoint_args *ctx)
{
	__u32 nr = (__u32)ctx->args[1];
	__u64 *v;

	if (!is_target())
		return 0;
	v = bpf_map_lookup_elem(&nr_count, &nr);
	if (v)
		__sync_fetch_and_add(v, 1);
	return 0;
}
