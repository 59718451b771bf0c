// SPDX-License-Identifier: GPL-2.0
/*
 * Why a fresh task takes the syscall slow path (src/measure/slowpath.c):
 * the syscall_work flags of the child a given thread forks, read on the
 * task_newtask tracepoint, once copy_process() has set them (audit_alloc(),
 * copy_seccomp(), the flags the parent's copy brought). Not a syscall
 * hook: attaching it puts no task on the slow path it looks for. The
 * parent's flags too: ptrace's bits are cleared in a child at fork and set
 * again only once its tracer resumes it.
 *
 * CO-RE without vmlinux.h: the types are spelled here and libbpf finds the
 * offsets and the enum's values in the kernel's BTF ("___tt" is dropped
 * when names are matched). A kernel without the field (before 5.11, or an
 * architecture without the generic entry code) says so in has_field.
 */
#include "types.bpf.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>

#include "slowpath_bpf.h"

char LICENSE[] SEC("license") = "GPL";

enum syscall_work_bit___tt {
	SYSCALL_WORK_BIT_SECCOMP___tt,
	SYSCALL_WORK_BIT_SYSCALL_TRACEPOINT___tt,
	SYSCALL_WORK_BIT_SYSCALL_TRACE___tt,
	SYSCALL_WORK_BIT_SYSCALL_EMU___tt,
	SYSCALL_WORK_BIT_SYSCALL_AUDIT___tt,
	SYSCALL_WORK_BIT_SYSCALL_USER_DISPATCH___tt,
	SYSCALL_WORK_BIT_SYSCALL_EXIT_TRAP___tt,
};

struct thread_info___tt {
	unsigned long syscall_work;
} __attribute__((preserve_access_index));

struct task_struct___tt {
	struct thread_info___tt thread_info;
	int pid;
} __attribute__((preserve_access_index));

const volatile __u32 parent_tid = 0;	/* the thread whose fork is looked at */

__u32 seen = 0;		/* its first fork, seen */
__u32 has_field = 0;	/* thread_info.syscall_work is there */
__u32 child_pid = 0;
__u64 child_bits = 0;	/* SP_* bits */
__u64 parent_bits = 0;
__u64 known_bits = 0;	/* SP_* bits this kernel's enum has */

#define ONE(e, sp)								\
	if (bpf_core_enum_value_exists(enum syscall_work_bit___tt, e)) {	\
		__u64 v = bpf_core_enum_value(enum syscall_work_bit___tt, e);	\
		known |= 1ull << (sp);						\
		if (v < 64 && (cw >> v) & 1)					\
			cb |= 1ull << (sp);					\
		if (v < 64 && (pw >> v) & 1)					\
			pb |= 1ull << (sp);					\
	}

SEC("tp_btf/task_newtask")
int tt_slowpath(__u64 *ctx)
{
	struct task_struct___tt *child = (void *)ctx[0];
	struct task_struct___tt *parent = (void *)bpf_get_current_task();
	__u64 cw, pw, cb = 0, pb = 0, known = 0;

	if ((__u32)bpf_get_current_pid_tgid() != parent_tid || seen)
		return 0;
	seen = 1;
	if (!bpf_core_field_exists(child->thread_info.syscall_work))
		return 0;
	has_field = 1;
	cw = BPF_CORE_READ(child, thread_info.syscall_work);
	pw = BPF_CORE_READ(parent, thread_info.syscall_work);
	child_pid = BPF_CORE_READ(child, pid);
	ONE(SYSCALL_WORK_BIT_SECCOMP___tt, SP_SECCOMP)
	ONE(SYSCALL_WORK_BIT_SYSCALL_TRACEPOINT___tt, SP_TRACEPOINT)
	ONE(SYSCALL_WORK_BIT_SYSCALL_TRACE___tt, SP_TRACE)
	ONE(SYSCALL_WORK_BIT_SYSCALL_EMU___tt, SP_EMU)
	ONE(SYSCALL_WORK_BIT_SYSCALL_AUDIT___tt, SP_AUDIT)
	ONE(SYSCALL_WORK_BIT_SYSCALL_USER_DISPATCH___tt, SP_USER_DISPATCH)
	ONE(SYSCALL_WORK_BIT_SYSCALL_EXIT_TRAP___tt, SP_EXIT_TRAP)
	child_bits = cb;
	parent_bits = pb;
	known_bits = known;
	return 0;
}
