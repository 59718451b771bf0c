/*
 * Loading, attaching and probing bpf/syscall.bpf.c for bpf.c. One skeleton
 * holds all fifteen programs, each SEC("?..."): a cell turns autoload on
 * for its own program only, so the verifier, the kernel and the caches see
 * exactly one program.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/capability.h>

#include <bpf/libbpf.h>

#include "syscall.skel.h"
#include "../util.h"
#include "bpf_ring.h"
#include "bpf_syscall.h"

#ifndef ENOTSUPP
#define ENOTSUPP 524	/* kernel-internal, yet BPF syscalls return it */
#endif

/* Order matters: the index is the V_ value, the first is the default. */
const char *const tt_bpf_variants[] = {
	"count", "empty", "count-shared", "hash", "ringbuf", NULL,
};

static const struct {
	const char *prefix;	/* program names: <prefix>_<variant> */
	enum bpf_prog_type type;
	const char *type_name;
} families[] = {
	[F_TP] = { "tp", BPF_PROG_TYPE_TRACEPOINT, "tracepoint" },
	[F_RAWTP] = { "rawtp", BPF_PROG_TYPE_RAW_TRACEPOINT, "raw_tracepoint" },
	[F_TPBTF] = { "tpbtf", BPF_PROG_TYPE_TRACING, "tracing" },
};

extern const struct tracer_ops tracer_bpf_rawtp, tracer_bpf_tpbtf;

/* libbpf talks on stderr only with -v; its first warning goes to debug(). */
static char libbpf_msg[TT_REASON_MAX];

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	va_list aq;
	size_t n;

	if (tt_verbose > (level == LIBBPF_DEBUG)) {
		va_copy(aq, ap);
		vfprintf(stderr, fmt, aq);
		va_end(aq);
	}
	if (level != LIBBPF_WARN || libbpf_msg[0])
		return 0;
	vsnprintf(libbpf_msg, sizeof(libbpf_msg), fmt, ap);
	n = strlen(libbpf_msg);
	while (n && libbpf_msg[n - 1] == '\n')
		libbpf_msg[--n] = '\0';
	return 0;
}

int tt_bpf_family(const struct tracer *t)
{
	if (t->ops == &tracer_bpf_rawtp)
		return F_RAWTP;
	return t->ops == &tracer_bpf_tpbtf ? F_TPBTF : F_TP;
}

int tt_bpf_variant(const struct tracer *t)
{
	for (int i = 0; t->variant && tt_bpf_variants[i]; i++)
		if (!strcmp(t->variant, tt_bpf_variants[i]))
			return i;
	return V_COUNT;
}

static const char *errstr(int e)
{
	return e == ENOTSUPP ? "Operation not supported" : strerror(e);
}

/*
 * What a kernel that refuses the program says: no permission (lockdown,
 * a BPF LSM), no such hook, not supported. That is a skip. Anything else,
 * e.g. a verifier rejection (EACCES), is our bug: a failure.
 */
static int refused(char *err, size_t len, int e, const char *what, const char *name)
{
	snprintf(err, len, "%s '%s' failed: %s", what, name, errstr(e));
	debug("libbpf said: %s", libbpf_msg[0] ? libbpf_msg : "nothing");
	if (e == EPERM || e == EINVAL || e == ENOTSUPP || e == EOPNOTSUPP || e == ENOENT)
		return TT_SKIP;
	return TT_FAIL;
}

int tt_bpf_load(struct bpf_priv *p, const struct tt_syscall *target, uint32_t ring_bytes,
		int threads, char *err, size_t len)
{
	int e;

	libbpf_set_print(libbpf_print);
	libbpf_msg[0] = '\0';
	snprintf(p->prog_name, sizeof(p->prog_name), "%s_%s", families[p->fam].prefix,
		 tt_bpf_variants[p->var]);
	for (char *c = p->prog_name; *c; c++)
		if (*c == '-')
			*c = '_';
	p->skel = syscall_bpf__open();
	if (!p->skel) {
		snprintf(err, len, "cannot open BPF object 'syscall.bpf.o': %s", errstr(errno));
		return TT_FAIL;
	}
	p->prog = bpf_object__find_program_by_name(p->skel->obj, p->prog_name);
	if (!p->prog) {
		snprintf(err, len, "no BPF program '%s' in 'syscall.bpf.o'", p->prog_name);
		return TT_FAIL;
	}
	bpf_program__set_autoload(p->prog, true);
	p->skel->rodata->target_nr = (uint32_t)target->nr;
	/* Room for every thread even if tids are spread over the hash. */
	bpf_map__set_max_entries(p->skel->maps.tid_count, threads < 256 ? 1024 : 4 * threads);
	if (p->var == V_RINGBUF)
		bpf_map__set_max_entries(p->skel->maps.events, ring_bytes);
	e = syscall_bpf__load(p->skel);
	if (e)
		return refused(err, len, -e, "loading program", p->prog_name);
	return TT_OK;
}

int tt_bpf_attach(struct bpf_priv *p, const struct tt_syscall *target, char *err, size_t len)
{
	libbpf_msg[0] = '\0';
	switch (p->fam) {
	case F_TP:
		p->link = bpf_program__attach_tracepoint(p->prog, "syscalls", target->event);
		break;
	case F_RAWTP:
		p->link = bpf_program__attach_raw_tracepoint(p->prog, "sys_enter");
		break;
	default:
		p->link = bpf_program__attach_trace(p->prog);
		break;
	}
	if (!p->link)
		return refused(err, len, errno, "attaching program", p->prog_name);
	return TT_OK;
}

void tt_bpf_detach(struct bpf_priv *p)
{
	bpf_link__destroy(p->link);
	p->link = NULL;
}

void tt_bpf_release(struct bpf_priv *p)
{
	if (p->skel && p->skel->bss)
		p->skel->bss->target_tgid = 0;
	tt_bpf_detach(p);
	bpf_reader_stop(p->reader);
	p->reader = NULL;
	syscall_bpf__destroy(p->skel);
	p->skel = NULL;
}

static int have_caps(char *reason, size_t len)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];

#define HAS(c) (d[CAP_TO_INDEX(c)].effective & CAP_TO_MASK(c))
	if (syscall(SYS_capget, &hdr, d)) {
		snprintf(reason, len, "cannot read capabilities: %s", strerror(errno));
		return 0;
	}
	if (HAS(CAP_SYS_ADMIN) || (HAS(CAP_BPF) && HAS(CAP_PERFMON)))
		return 1;
	snprintf(reason, len, "needs root, or CAP_BPF and CAP_PERFMON");
	return 0;
#undef HAS
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
 * tpbtf the probe is only advice; the trial load below decides.
 */
static int prog_type_ok(int fam, char *reason, size_t len)
{
	int rc = libbpf_probe_bpf_prog_type(families[fam].type, NULL);

	if (rc > 0)
		return 1;
	snprintf(reason, len, "kernel cannot load BPF programs of type '%s'%s%s",
		 families[fam].type_name, rc ? ": " : "", rc ? errstr(-rc) : "");
	if (fam != F_TPBTF)
		return 0;
	debug("libbpf probe: %s; trying a tp_btf program", reason);
	return 1;
}

int tt_bpf_supported(const struct tracer *t, char *reason, size_t len)
{
	const struct tt_syscall *target = t->target ? t->target : tt_syscall_find("getpid");
	struct bpf_priv p = { .fam = tt_bpf_family(t), .var = tt_bpf_variant(t) };
	int rc;

	if (!have_caps(reason, len) || !prog_type_ok(p.fam, reason, len) ||
	    !hook_exists(p.fam, target, reason, len))
		return TT_SKIP;
	rc = tt_bpf_load(&p, target, 4096, 1, reason, len);
	if (rc == TT_OK)
		rc = tt_bpf_attach(&p, target, reason, len);
	tt_bpf_release(&p);
	if (rc != TT_OK)
		return TT_SKIP;
	reason[0] = '\0';	/* drop the advice of a failed libbpf probe */
	return TT_OK;
}
