/*
 * What bpf/budget.bpf.c and src/measure/rates.c share (libbpf-bootstrap's
 * X.h): the per-process table's key and value. User space includes
 * <linux/types.h> first.
 */
#ifndef TRACETAX_BUDGET_BPF_H
#define TRACETAX_BUDGET_BPF_H

/*
 * A process is keyed by its tgid in budget's own pid namespace, where --pid
 * and budget's own pid mean something; one outside it (budget in a
 * container, counting the whole box) by its init-namespace tgid with this
 * bit set: pids stay below 2^22 (PID_MAX_LIMIT), so the two never meet.
 */
#define BUDGET_OUTSIDE_NS 0x80000000u

struct proc_count {
	__u64 n;
	char comm[16];
};

/* audit:rules' count: by login uid and syscall number (bpf/budget.bpf.c) */
#define BUDGET_AUID_NR 16384
#define BUDGET_AUID_UNKNOWN 0xfffffffeu  /* a kernel without loginuid (no CONFIG_AUDIT) */

/*
 * Whether the calling task had an audit context (task_struct.audit_context,
 * CONFIG_AUDITSYSCALL): a task without one walks no rule and makes no
 * record (one forked before audit was first enabled on this boot, or since
 * a `-a never,task`), whatever rules are loaded.
 */
#define BUDGET_CTX_UNKNOWN 0      /* not read: no such field */
#define BUDGET_CTX_NONE 1
#define BUDGET_CTX_SOME 2

struct auid_nr {
	__u32 auid;               /* 4294967295: unset */
	__u32 nr;                 /* BUDGET_NR_MAX-1 holds the rest, as nr_count */
	__u32 ctx;                /* BUDGET_CTX_* */
};

#endif
