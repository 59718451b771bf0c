// SPDX-License-Identifier: GPL-2.0
/*
 * `tracetax budget`'s rate counter (src/measure/rates.c): every syscall
 * entry on the box, on the raw sys_enter tracepoint, counted by CPU and
 * syscall number (a per-CPU array) and by process (a hash on the tgid,
 * with its comm). It is what a syscall tracer's hook would see. Filters:
 * a tgid (--pid), a cgroup and its descendants (--cgroup), a syscall
 * number (--target). Its own cost per event is read back with BPF stats.
 * Pids are those of budget's pid namespace (bpf_get_ns_current_pid_tgid):
 * in a container, --pid and budget's own pid are the container's, while
 * bpf_get_current_pid_tgid() gives the init namespace's.
 * For `budget -t audit:rules` (by_auid) it also counts by login uid and
 * syscall number: the audit rules' auid filters are decided on the auid
 * each call was made with, that of processes long gone too, and by
 * whether the calling task had an audit context (budget --attached prices
 * the live rule set's walk only on the calls of tasks that have one).
 */
#include "types.bpf.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>

#include "budget_bpf.h"

char LICENSE[] SEC("license") = "GPL";

#define BUDGET_NR_MAX 512
#define BUDGET_PROCS 4096

const volatile __u32 filter_tgid = 0;     /* 0: every process */
const volatile __u32 self_tgid = 0;       /* tracetax itself: its wait is not the box's */
const volatile __u64 filter_cgid = 0;     /* 0: every cgroup */
const volatile __u32 filter_level = 0;    /* the cgroup's depth under the root */
const volatile __s32 filter_nr = -1;      /* -1: every syscall */
const volatile __u64 ns_dev = 0;          /* budget's pid namespace (/proc/self/ns/pid) */
const volatile __u64 ns_ino = 0;          /* 0: unknown, the init namespace's pids */
const volatile __u32 by_auid = 0;         /* 1: count auid_nr too (audit:rules) */

/*
 * The task's login uid (kuid_t, CONFIG_AUDIT) read by CO-RE: no vmlinux.h
 * here, so the two types are spelled locally; libbpf finds the field's
 * offset in the kernel's BTF ("___tt" is dropped when matching names).
 */
struct kuid___tt { __u32 val; };
struct task_struct___tt {
	struct kuid___tt loginuid;
	void *audit_context;
} __attribute__((preserve_access_index));

/*
 * Whether budget's own task has an audit context (CONFIG_AUDITSYSCALL):
 * 2 yes, 1 no, 0 not read. A task forked after audit was first enabled on
 * this boot gets one (unless a task-list never rule says not), and every
 * syscall of it takes the slow path: the audit residue, which a syscall
 * hook then finds paid already.
 */
__u32 self_audit_ctx = 0;

static void read_self_audit_ctx(void)
{
	struct task_struct___tt *t = (void *)bpf_get_current_task();

	if (self_audit_ctx || !bpf_core_field_exists(t->audit_context))
		return;
	self_audit_ctx = BPF_CORE_READ(t, audit_context) ? 2 : 1;
}

/* (auid, syscall number, context) -> calls; full: counted in auid_unnamed. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, BUDGET_AUID_NR);
	__type(key, struct auid_nr);
	__type(value, __u64);
} auid_nr SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} auid_unnamed SEC(".maps");

static void count_auid(__u32 nr)
{
	struct task_struct___tt *t = (void *)bpf_get_current_task();
	struct auid_nr k = { .auid = BUDGET_AUID_UNKNOWN, .nr = nr };
	__u64 one = 1, *v;
	__u32 zero = 0;

	if (bpf_core_field_exists(t->loginuid))
		k.auid = BPF_CORE_READ(t, loginuid.val);
	if (bpf_core_field_exists(t->audit_context))
		k.ctx = BPF_CORE_READ(t, audit_context) ? BUDGET_CTX_SOME : BUDGET_CTX_NONE;
	v = bpf_map_lookup_elem(&auid_nr, &k);
	if (v) {
		__sync_fetch_and_add(v, 1);
		return;
	}
	if (!bpf_map_update_elem(&auid_nr, &k, &one, BPF_NOEXIST))
		return;
	v = bpf_map_lookup_elem(&auid_nr, &k);	/* another CPU made it first */
	if (v) {
		__sync_fetch_and_add(v, 1);
		return;
	}
	v = bpf_map_lookup_elem(&auid_unnamed, &zero);
	if (v)
		*v += 1;
}

/* Per CPU: the count of each syscall number; BUDGET_NR_MAX-1 holds the rest. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, BUDGET_NR_MAX);
	__type(key, __u32);
	__type(value, __u64);
} nr_count SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, BUDGET_PROCS);
	__type(key, __u32);
	__type(value, struct proc_count);
} proc_count SEC(".maps");

/* With filter_nr: the scope's calls of other syscalls. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} others SEC(".maps");

/* Events whose process found the hash full: counted, not named. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} unnamed SEC(".maps");

SEC("raw_tp")
int tt_budget(struct bpf_raw_tracepoint_args *ctx)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	__s64 nr = (__s64)ctx->args[1];
	__u32 key, zero = 0;
	struct proc_count *p;
	__u64 *v;

	if (ns_ino) {
		struct bpf_pidns_info ns = { 0 };

		/* -ENOENT: the task is not in our namespace (nor below it) */
		if (bpf_get_ns_current_pid_tgid(ns_dev, ns_ino, &ns, sizeof(ns)))
			tgid |= BUDGET_OUTSIDE_NS;
		else
			tgid = ns.tgid;
	}
	if (tgid == self_tgid) {
		read_self_audit_ctx();
		return 0;
	}
	if (filter_tgid && tgid != filter_tgid)
		return 0;
	if (filter_cgid && bpf_get_current_ancestor_cgroup_id(filter_level) != filter_cgid)
		return 0;
	if (filter_nr >= 0 && nr != filter_nr) {
		/* the calls a hook on the target does not see: its collateral's */
		v = bpf_map_lookup_elem(&others, &zero);
		if (v)
			*v += 1;
		return 0;
	}
	key = (nr < 0 || nr >= BUDGET_NR_MAX - 1) ? BUDGET_NR_MAX - 1 : (__u32)nr;
	v = bpf_map_lookup_elem(&nr_count, &key);
	if (v)
		*v += 1;
	if (by_auid)
		count_auid(key);
	p = bpf_map_lookup_elem(&proc_count, &tgid);
	if (!p) {
		struct proc_count init = { 0 };

		bpf_get_current_comm(init.comm, sizeof(init.comm));
		bpf_map_update_elem(&proc_count, &tgid, &init, BPF_NOEXIST);
		p = bpf_map_lookup_elem(&proc_count, &tgid);
	}
	if (p) {
		/* a process forked by a shell is first seen under the shell's name:
		 * its comm is read again every 256 events, so an exec'd one shows */
		if ((__sync_fetch_and_add(&p->n, 1) & 255) == 255)
			bpf_get_current_comm(p->comm, sizeof(p->comm));
	} else {
		v = bpf_map_lookup_elem(&unnamed, &zero);
		if (v)
			*v += 1;
	}
	return 0;
}
