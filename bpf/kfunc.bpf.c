// SPDX-License-Identifier: GPL-2.0
/*
 * The BPF kernel-function tracers: a program on the kernel function behind
 * the hooked syscall (__x64_sys_getpid) or --target kfunc:NAME: at its entry
 * by fentry (BPF trampoline), kprobe (breakpoint or ftrace) or kprobe.multi
 * (fprobe: ftrace), at its return by fexit or kretprobe. User space sets
 * the function: fentry and fexit with bpf_program__set_attach_target()
 * before load, the kprobes at attach.
 *
 * The function runs for every process: the tgid filter of common.bpf.h,
 * the same as the syscall tracers', so that the figures compare. Only the
 * count and empty handlers: what a kernel that allows these hooks at all
 * charges for them.
 */
#include "common.bpf.h"

/* The section name is the hook's; fentry's context is the traced args. */
#define KFUNC_PROG(hook, ctx_type, v) KFUNC_PROG_SEC(#hook, hook, ctx_type, v)
#define KFUNC_PROG_SEC(sec, hook, ctx_type, v)				\
SEC("?" sec)								\
int tt_##hook##_##v(ctx_type ctx)					\
{									\
	(void)ctx;							\
	if (!is_target())						\
		return 0;						\
	return handle_##v(0);						\
}

KFUNC_PROG(fentry, __u64 *, count)
KFUNC_PROG(fentry, __u64 *, empty)
KFUNC_PROG(kprobe, void *, count)
KFUNC_PROG(kprobe, void *, empty)
KFUNC_PROG(fexit, __u64 *, count)
KFUNC_PROG(fexit, __u64 *, empty)
KFUNC_PROG(kretprobe, void *, count)
KFUNC_PROG(kretprobe, void *, empty)
KFUNC_PROG_SEC("kprobe.multi", kmulti, void *, count)
KFUNC_PROG_SEC("kprobe.multi", kmulti, void *, empty)
