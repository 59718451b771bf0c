// SPDX-License-Identifier: GPL-2.0
/*
 * The BPF user-space tracers: the five handlers (variants) of common.bpf.h
 * on three user-space hooks.
 *
 *   tt_uprobe_*     entry of the workload's function (t->func)
 *   tt_uretprobe_*  its return: the kernel also traps at entry to hijack
 *                   the return address, so this pays two traps a call
 *   tt_usdt_*       the USDT site tracetax:func (libbpf attaches it as a
 *                   uprobe and raises its semaphore)
 *
 * No tgid filter in the programs, unlike the syscall and kernel-function
 * ones: user space attaches with the workload's pid, and the kernel then
 * runs the program only for tasks of that mm (uprobe_perf_filter): every
 * thread of the workload, no other process. The ringbuf variant writes
 * the syscall tracers' 16-byte record (nr 0), so that costs compare.
 */
#include "common.bpf.h"

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

/* The section name is the hook's name: "?uprobe", "?uretprobe", "?usdt". */
#define USER_PROG(hook, v)						\
SEC("?" #hook)								\
int tt_##hook##_##v(void *ctx)						\
{									\
	(void)ctx;							\
	return handle_##v(0);						\
}

TT_ALL_VARIANTS(USER_PROG, uprobe)
TT_ALL_VARIANTS(USER_PROG, uretprobe)
TT_ALL_VARIANTS(USER_PROG, usdt)
