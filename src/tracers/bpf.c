/*
 * bpf:tp, bpf:rawtp, bpf:tpbtf: a BPF program on the syscall tracepoint,
 * on the raw sys_enter tracepoint, or on the BTF-typed sys_enter
 * (bpf/syscall.bpf.c), each with the five handler variants of
 * bpf/common.bpf.h. The cell's life (load in setup, attach in start,
 * detach in stop) is bpf_cell.c's; this file opens the skeleton, attaches
 * and asks the kernel whether it allows the hook.
 *
 * The program counts only the workload's tgid, written in start(): other
 * processes call getpid too.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "syscall.skel.h"
#include "../tracer.h"
#include "../util.h"
#include "bpf_util.h"

enum { F_TP, F_RAWTP, F_TPBTF };

/* Indexed by F_*: the tracers' names after "bpf:", and program names tt_<family>_<variant>. */
static const char *const families[] = { "tp", "rawtp", "tpbtf", NULL };

/* The program type of each family, for libbpf's probe. */
static const struct {
	enum bpf_prog_type type;
	const char *name;
} prog_types[] = {
	[F_TP] = { BPF_PROG_TYPE_TRACEPOINT, "tracepoint" },
	[F_RAWTP] = { BPF_PROG_TYPE_RAW_TRACEPOINT, "raw_tracepoint" },
	[F_TPBTF] = { BPF_PROG_TYPE_TRACING, "tracing" },
};

static void sc_destroy(void *skel)
{
	syscall_bpf__destroy(skel);
}

/* Open the skeleton and load only the cell's program: TT_OK, TT_SKIP, TT_FAIL. */
static int sc_load(struct tt_bpf *b, const struct tt_syscall *target, char *err, size_t len)
{
	struct syscall_bpf *s = syscall_bpf__open();
	int e;

	if (tt_bpf_open(b, s, s ? s->skeleton : NULL, sc_destroy, err, len))
		return TT_FAIL;
	s->rodata->target_nr = (uint32_t)target->nr;
	e = tt_bpf_load(b, err, len);
	if (e)
		return tt_bpf_refused(e);
	b->tgid = &s->bss->target_tgid;
	return TT_OK;
}

static int sc_attach(struct tt_bpf *b, const struct tt_syscall *target, char *err, size_t len)
{
	char eb[96];
	int e;

	tt_bpf_capture();
	switch (b->hook) {
	case F_TP:
		b->link = bpf_program__attach_tracepoint(b->prog, "syscalls", target->event);
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
		 b->hook == F_TP ? target->event : "sys_enter", tt_bpf_errstr(e, eb, sizeof(eb)));
	return tt_bpf_refused(e);
}

static int hook_exists(int fam, const struct tt_syscall *target, char *reason, size_t len)
{
	static const char *const roots[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	char path[256];

	if (fam == F_TPBTF && access("/sys/kernel/btf/vmlinux", R_OK)) {
		snprintf(reason, len, "no kernel BTF '/sys/kernel/btf/vmlinux': %s",
			 strerror(errno));
		return 0;
	}
	if (fam != F_TP)
		return 1;
	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++) {
		snprintf(path, sizeof(path), "%s/events/syscalls/%s/id", roots[i], target->event);
		if (!access(path, R_OK))
			return 1;
	}
	snprintf(reason, len, "no tracepoint 'syscalls:%s' in tracefs: %s", target->event,
		 strerror(errno));
	return 0;
}

/*
 * libbpf 1.1 probes 'tracing' with an fentry program and a verifier message
 * it expects: a kernel that refuses fentry (this one: EPERM) or words the
 * message differently gets a "no" although tp_btf loads and runs. For
 * tpbtf the probe is only advice; the trial load decides.
 */
static int prog_type_ok(int fam, char *reason, size_t len)
{
	int rc = libbpf_probe_bpf_prog_type(prog_types[fam].type, NULL);
	char eb[96];

	if (rc > 0)
		return 1;
	snprintf(reason, len, "kernel cannot load BPF programs of type '%s'%s%s",
		 prog_types[fam].name, rc ? ": " : "",
		 rc ? tt_bpf_errstr(-rc, eb, sizeof(eb)) : "");
	if (fam != F_TPBTF)
		return 0;
	debug("libbpf probe: %s; trying a tp_btf program", reason);
	return 1;
}

/* Capabilities, program type, hook, then a trial load and attach. */
static int sc_supported(const struct tracer *t, char *reason, size_t len)
{
	const struct tt_syscall *target = t->target ? t->target : tt_syscall_find("getpid");
	int fam = tt_bpf_hook(t, families);
	struct tt_bpf b = { 0 };
	int rc;

	if (!tt_bpf_caps_ok(reason, len) || !prog_type_ok(fam, reason, len) ||
	    !hook_exists(fam, target, reason, len))
		return TT_SKIP;
	tt_bpf_init(&b, families, fam, tt_bpf_variant(t));
	rc = sc_load(&b, target, reason, len);
	if (rc == TT_OK)
		rc = sc_attach(&b, target, reason, len);
	tt_bpf_release(&b);
	if (rc != TT_OK)
		return TT_SKIP;
	reason[0] = '\0';	/* drop the advice of a failed libbpf probe */
	return TT_OK;
}

static int sc_setup(struct tracer *t)
{
	struct tt_bpf *b = tt_bpf_new(t, sizeof(*b), families);
	int rc;

	if (!b)
		return TT_FAIL;
	if (!t->target)
		return tracer_error(t, "tracer '%s' needs a target syscall", t->name);
	rc = sc_load(b, t->target, t->err, sizeof(t->err));
	return rc == TT_OK ? tt_bpf_loaded(t, b) : rc;
}

static int sc_start(struct tracer *t, pid_t pid)
{
	struct tt_bpf *b = t->priv;

	if (tt_bpf_arm(t, pid))
		return TT_FAIL;
	return sc_attach(b, t->target, t->err, sizeof(t->err)) == TT_OK ? 0 : TT_FAIL;
}

const struct tracer_ops tracer_bpf_tp = TT_BPF_OPS("bpf:tp", TT_HOOK_SYSCALL,
	"BPF program on the tracepoint syscalls:sys_enter_<name>", tt_bpf_variants, sc);

const struct tracer_ops tracer_bpf_rawtp = TT_BPF_OPS("bpf:rawtp", TT_HOOK_SYSCALL,
	"BPF program on the raw tracepoint sys_enter, filtering the syscall number",
	tt_bpf_variants, sc);

const struct tracer_ops tracer_bpf_tpbtf = TT_BPF_OPS("bpf:tpbtf", TT_HOOK_SYSCALL,
	"BPF program on tp_btf/sys_enter (BTF-typed), filtering the syscall number",
	tt_bpf_variants, sc);
