/*
 * bpf:tp, bpf:rawtp, bpf:tpbtf: a BPF program on the syscall tracepoint,
 * on the raw sys_enter tracepoint, or on the BTF-typed sys_enter
 * (bpf/syscall.bpf.c), each with the five handler variants of
 * bpf/common.bpf.h. The cell's life (load in setup, attach in start,
 * detach in stop) is bpf_cell.c's; this file opens the skeleton, attaches
 * and asks the kernel whether it allows the hook.
 *
 * The program counts only the workload's tgid, written in start(): other
 * processes call getpid too. bpf:tp takes any tracepoint (--target
 * SYSTEM:EVENT): its programs read no field of the context but the int
 * after the common header (the syscall number, on a syscall tracepoint): on
 * a tracepoint whose record is shorter the kernel refuses the attach
 * (EACCES), and the cell skips.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "syscall.skel.h"
#include "base/tracefs_util.h"
#include "tracers/tracer.h"
#include "base/util.h"
#include "tracers/bpf/bpf_util.h"

enum { F_TP, F_RAWTP, F_TPBTF };

/* The families (tracer_ops.data): programs tt_<stem>_<variant>, hook F_*. */
#define RAW_HOOK "the raw tracepoint sys_enter fires on every syscall and hands over the " \
		 "registers: nothing is copied"
#define RAW_FILTER "the tgid and syscall-number filter (it runs on every syscall), then the handler"
static const struct tt_bpf_family fam_tp = { "tp", F_TP,
	"the tracepoint syscalls:sys_enter_<name> fires and builds its record: the syscall's "
	"number and six arguments copied",
	"perf's tracepoint handler runs the program through trace_call_bpf()",
	"the tgid filter, then the handler" };
static const struct tt_bpf_family fam_rawtp = { "rawtp", F_RAWTP, RAW_HOOK,
	"__bpf_trace_run() calls the program directly", RAW_FILTER };
static const struct tt_bpf_family fam_tpbtf = { "tpbtf", F_TPBTF, RAW_HOOK,
	"__bpf_trace_run() calls the program directly, as for bpf:rawtp; its arguments are "
	"BTF-typed", RAW_FILTER };

/* The program type of each hook, for libbpf's probe. */
static const enum bpf_prog_type prog_types[] = {
	[F_TP] = BPF_PROG_TYPE_TRACEPOINT,
	[F_RAWTP] = BPF_PROG_TYPE_RAW_TRACEPOINT,
	[F_TPBTF] = BPF_PROG_TYPE_TRACING,
};

static void sc_destroy(void *skel)
{
	syscall_bpf__destroy(skel);
}

/*
 * What a cell hooks: bpf:tp the tracer's tracepoint (the syscall's, or the
 * one --target names), bpf:rawtp and bpf:tpbtf sys_enter filtered on nr.
 */
struct sc_hook {
	const char *system, *event;
	uint32_t nr;
};

static struct sc_hook hook_of(const struct tracer *t)
{
	const struct tt_syscall *getpid = tt_syscall_find("getpid");

	if (!*t->tp_system)	/* no target at all: what supported() probes */
		return (struct sc_hook){ "syscalls", getpid->event, (uint32_t)getpid->nr };
	return (struct sc_hook){ t->tp_system, t->tp_event, t->target ? (uint32_t)t->target->nr : 0 };
}

/* Open the skeleton and load only the cell's program: TT_OK, TT_SKIP, TT_FAIL. */
static int sc_load(struct tt_bpf *b, const struct sc_hook *h, char *err, size_t len)
{
	struct syscall_bpf *s = syscall_bpf__open();
	int rc;

	if (tt_bpf_open(b, s, s ? s->skeleton : NULL, sc_destroy, err, len))
		return TT_FAIL;
	s->rodata->target_nr = h->nr;
	rc = tt_bpf_load(b, NULL, err, len);
	if (rc != TT_OK)
		return rc;
	b->tgid = &s->bss->target_tgid;
	return TT_OK;
}

static int sc_attach(struct tt_bpf *b, const struct sc_hook *h, char *err, size_t len)
{
	char eb[96];
	int e;

	tt_bpf_capture();
	switch (b->fam->hook) {
	case F_TP:
		b->link = bpf_program__attach_tracepoint(b->prog, h->system, h->event);
		break;
	case F_RAWTP:
		b->link = bpf_program__attach_raw_tracepoint(b->prog, "sys_enter");
		break;
	default:
		b->link = bpf_program__attach_trace(b->prog);
		break;
	}
	if (b->link)
		return TT_OK;
	e = errno;
	snprintf(err, len, "cannot attach BPF program '%s' to '%s': %s", b->prog_name,
		 b->fam->hook == F_TP ? h->event : "sys_enter", tt_bpf_errstr(e, eb, sizeof(eb)));
	return tt_bpf_attach_verdict(e);
}

static int hook_exists(int hook, const struct sc_hook *h, char *reason, size_t len)
{
	char file[128];

	if (hook == F_TPBTF && access("/sys/kernel/btf/vmlinux", R_OK)) {
		snprintf(reason, len, "no kernel BTF '/sys/kernel/btf/vmlinux': %s",
			 strerror(errno));
		return 0;
	}
	if (hook != F_TP)
		return 1;
	snprintf(file, sizeof(file), "events/%s/%s/id", h->system, h->event);
	if (tt_tracefs_has(file))
		return 1;
	snprintf(reason, len, "no tracepoint '%s:%s' in tracefs: %s", h->system, h->event,
		 strerror(errno));
	return 0;
}

/*
 * libbpf 1.1 probes 'tracing' with an fentry program and a verifier message
 * it expects: a kernel that refuses fentry (this one: EPERM) or words the
 * message differently gets a "no" although tp_btf loads and runs. For
 * tpbtf the probe is only advice; the trial load decides.
 */
static int prog_type_ok(int hook, char *reason, size_t len)
{
	int rc = libbpf_probe_bpf_prog_type(prog_types[hook], NULL);
	char eb[96];

	if (rc > 0)
		return 1;
	snprintf(reason, len, "kernel cannot load BPF programs of type '%s'%s%s",
		 libbpf_bpf_prog_type_str(prog_types[hook]), rc ? ": " : "",
		 rc ? tt_bpf_errstr(-rc, eb, sizeof(eb)) : "");
	if (hook != F_TPBTF)
		return 0;
	debug("libbpf probe: %s; trying a tp_btf program", reason);
	return 1;
}

/* Capabilities, program type, hook, then a trial load and attach. */
static int sc_supported(const struct tracer *t, char *reason, size_t len)
{
	struct sc_hook h = hook_of(t);
	const struct tt_bpf_family *fam = tt_bpf_family(t);
	struct tt_bpf b = { 0 };
	int rc;

	if (!tt_bpf_caps_ok(reason, len) || !prog_type_ok(fam->hook, reason, len) ||
	    !hook_exists(fam->hook, &h, reason, len))
		return TT_SKIP;
	tt_bpf_init(&b, fam, t->vidx);
	rc = sc_load(&b, &h, reason, len);
	if (rc == TT_OK)
		rc = sc_attach(&b, &h, reason, len);
	tt_bpf_release(&b);
	if (rc != TT_OK)
		return rc;
	reason[0] = '\0';	/* drop the advice of a failed libbpf probe */
	return TT_OK;
}

static int sc_setup(struct tracer *t)
{
	struct tt_bpf *b = tt_bpf_new(t, sizeof(*b));
	struct sc_hook h = hook_of(t);
	int rc;

	if (!b)
		return TT_FAIL;
	if (!*t->tp_system)
		return tracer_error(t, "tracer '%s' needs a target syscall or tracepoint", t->name);
	rc = sc_load(b, &h, t->err, sizeof(t->err));
	return rc == TT_OK ? tt_bpf_loaded(t, b) : rc;
}

static int sc_start(struct tracer *t, pid_t pid)
{
	struct tt_bpf *b = t->priv;
	struct sc_hook h = hook_of(t);

	if (tt_bpf_arm(t, pid))
		return TT_FAIL;
	return sc_attach(b, &h, t->err, sizeof(t->err)) == TT_OK ? 0 : TT_FAIL;
}

const struct tracer_ops tracer_bpf_tp = TT_BPF_OPS("bpf:tp", TT_HOOK_SYSCALL | TT_HOOK_TRACEPOINT,
	"BPF program on the tracepoint syscalls:sys_enter_<name> (or --target SYSTEM:EVENT)",
	tt_bpf_variants, fam_tp, sc);

const struct tracer_ops tracer_bpf_rawtp = TT_BPF_OPS("bpf:rawtp", TT_HOOK_SYSCALL,
	"BPF program on the raw tracepoint sys_enter, filtering the syscall number",
	tt_bpf_variants, fam_rawtp, sc);

const struct tracer_ops tracer_bpf_tpbtf = TT_BPF_OPS("bpf:tpbtf", TT_HOOK_SYSCALL,
	"BPF program on tp_btf/sys_enter (BTF-typed), filtering the syscall number",
	tt_bpf_variants, fam_tpbtf, sc);
