// SPDX-License-Identifier: GPL-2.0
/*
 * The BPF syscall tracers: the five handlers (variants) of common.bpf.h on
 * three hooks (families).
 *
 *   tt_tp_*     syscalls:sys_enter_<name>: one tracepoint per syscall, fires
 *               only for the hooked syscall (perf-event attachment)
 *   tt_rawtp_*  raw tracepoint sys_enter: fires on every syscall, filters nr
 *   tt_tpbtf_*  tp_btf/sys_enter: the same hook, BTF-typed (tracing prog)
 */
#include "common.bpf.h"

/* The hooked syscall: fixed per cell, so a constant the verifier folds in. */
const volatile __u32 target_nr = 0;

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
#define TP_PROG(hook, v)						\
SEC("?tp")								\
int tt_##hook##_##v(struct syscall_tp_ctx *ctx)				\
{									\
	if (!is_target())						\
		return 0;						\
	return handle_##v((__u32)ctx->nr);				\
}

#define RAWTP_PROG(hook, v)						\
SEC("?raw_tp")								\
int tt_##hook##_##v(struct bpf_raw_tracepoint_args *ctx)		\
{									\
	if (!is_target() || ctx->args[1] != target_nr)			\
		return 0;						\
	return handle_##v(target_nr);					\
}

#define TPBTF_PROG(hook, v)						\
SEC("?tp_btf/sys_enter")						\
int tt_##hook##_##v(__u64 *ctx)						\
{									\
	if (!is_target() || ctx[1] != target_nr)			\
		return 0;						\
	return handle_##v(target_nr);					\
}

TT_ALL_VARIANTS(TP_PROG, tp)
TT_ALL_VARIANTS(RAWTP_PROG, rawtp)
TT_ALL_VARIANTS(TPBTF_PROG, tpbtf)
