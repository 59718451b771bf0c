// SPDX-License-Identifier: GPL-2.0
/*
 * tt-attach's program: another tracer on a tracepoint, for the tests of
 * "disturbed". It counts and nothing more. User space attaches it by hand
 * to the tracepoint it is given; the section names its default.
 *
 * No <linux/bpf.h>: like bpf/common.bpf.h, clang -target bpf does not find
 * Debian's <asm/types.h>, and these few types are all bpf_helpers.h needs.
 */
typedef unsigned char __u8;
typedef short __s16;
typedef unsigned short __u16;
typedef int __s32;
typedef unsigned int __u32;
typedef long long __s64;
typedef unsigned long long __u64;
typedef __u16 __be16;
typedef __u32 __be32, __wsum;

#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

__u64 hits = 0;

SEC("tp/syscalls/sys_enter_getpid")
int tt_attach_tp(void *ctx)
{
	__sync_fetch_and_add(&hits, 1);
	return 0;
}
