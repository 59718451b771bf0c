/*
 * bpf:fentry, bpf:fexit, bpf:kprobe, bpf:kretprobe, bpf:kprobe-multi: a BPF
 * program on the kernel function behind the hooked syscall
 * (__x64_sys_getpid on x86-64), or on any kernel function (--target
 * kfunc:tcp_sendmsg), at its entry through a BPF trampoline (fentry), a
 * kprobe, or an fprobe (kprobe.multi: ftrace's entry hook, no breakpoint),
 * or at its return through a trampoline (fexit) or a kretprobe
 * (bpf/kfunc.bpf.c). Variants: count, empty.
 *
 * Kernels differ here more than anywhere: kprobes are a build option
 * (CONFIG_KPROBES), fentry needs BTF and a trampoline the kernel may
 * refuse (lockdown, a BPF LSM, no direct-call ftrace). supported() asks
 * the kernel by loading and attaching the real program, once per function
 * and process, and passes on what the kernel said.
 *
 * The cell's life is bpf_cell.c's, as for bpf.c: loaded once per cell in
 * setup(), attached in start() and detached in stop(), so that baseline
 * runs pay nothing; the program counts only the workload's tgid.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "kfunc.skel.h"
#include "base/tracefs_util.h"
#include "tracers/tracer.h"
#include "base/util.h"
#include "tracers/bpf/bpf_util.h"

#if defined(__x86_64__)
#define ARCH_SYS "__x64_sys_"
#elif defined(__aarch64__)
#define ARCH_SYS "__arm64_sys_"
#elif defined(__s390x__)
#define ARCH_SYS "__s390x_sys_"
#elif defined(__riscv)
#define ARCH_SYS "__riscv_sys_"
#else
#define ARCH_SYS "sys_"
#endif

#define KSYM_LEN 128

enum { KF_FENTRY, KF_KPROBE, KF_FEXIT, KF_KRETPROBE, KF_KMULTI };

/* The first two of tt_bpf_variants[]: bpf/kfunc.bpf.c has only these. */
static const char *const kf_variants[] = { "count", "empty", NULL };

/* The families (tracer_ops.data): programs tt_<stem>_<variant>, hook KF_*. */
static const struct tt_bpf_family fam_fentry = { "fentry", KF_FENTRY,
	"the kernel function's entry calls a BPF trampoline (its ftrace call site patched)",
	"the trampoline saves the arguments and calls the program", "the tgid filter, then the handler" };
static const struct tt_bpf_family fam_kprobe = { "kprobe", KF_KPROBE,
	"a kprobe on the kernel function: ftrace's entry call or a breakpoint",
	"the kprobe handler runs the program through trace_call_bpf()",
	"the tgid filter, then the handler" };

static const struct tt_bpf_family fam_fexit = { "fexit", KF_FEXIT,
	"the kernel function's entry calls a BPF trampoline, which calls the function and, "
	"at its return, the program",
	"the trampoline saves the arguments and the return value and calls the program",
	"the tgid filter, then the handler" };
static const struct tt_bpf_family fam_kretprobe = { "kretprobe", KF_KRETPROBE,
	"a kprobe at the function's entry swaps its return address for a trampoline",
	"at the return, the kretprobe handler runs the program through trace_call_bpf()",
	"the tgid filter, then the handler" };
static const struct tt_bpf_family fam_kmulti = { "kmulti", KF_KMULTI,
	"an fprobe: ftrace's entry call on the function (kprobe.multi link)",
	"the fprobe handler runs the program", "the tgid filter, then the handler" };

/* By BTF id (a trampoline) or by symbol (a probe). */
static int by_btf(int hook)
{
	return hook == KF_FENTRY || hook == KF_FEXIT;
}

struct kf_priv {
	struct tt_bpf b;		/* first: bpf_cell.c's view of t->priv */
	char fn[KSYM_LEN];		/* the kernel function hooked */
};

/*
 * Where a syscall lives in the kernel: the arch wrapper the syscall table
 * calls (__x64_sys_close), then __do_sys_getpid (no-argument syscalls: an
 * alias at the same address, and the only name in BTF for some), then the
 * unwrapped sys_close of architectures without wrappers. The name comes
 * from the tracepoint (sys_enter_newstat -> newstat), not from libc's.
 */
static const char *const sym_fmt[] = { ARCH_SYS "%s", "__do_sys_%s", "sys_%s" };
#define NSYM (sizeof(sym_fmt) / sizeof(sym_fmt[0]))

static const char *sys_base(const struct tt_syscall *s)
{
	const char *e = s->event;

	return strncmp(e, "sys_enter_", 10) ? s->name : e + 10;
}

/* The first candidate that is a text symbol in /proc/kallsyms; 0 if none. */
static int kallsyms_pick(char cand[][KSYM_LEN], size_t n, char *out)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[512], type, name[KSYM_LEN];
	size_t best = n;

	if (!f)
		return 0;
	while (best && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%*s %c %127s", &type, name) != 2 || (type != 'T' && type != 't'))
			continue;
		for (size_t i = 0; i < best; i++)
			if (!strcmp(name, cand[i]))
				best = i;
	}
	fclose(f);
	if (best == n)
		return 0;
	snprintf(out, KSYM_LEN, "%s", cand[best]);
	return 1;
}

/* fentry attaches by BTF id: the first candidate that is a BTF function. */
static int btf_pick(char cand[][KSYM_LEN], size_t n, char *out, char *reason, size_t len)
{
	struct btf *btf = btf__load_vmlinux_btf();
	int found = 0;

	if (!btf) {
		snprintf(reason, len, "no kernel BTF '/sys/kernel/btf/vmlinux': %s", strerror(errno));
		return -1;
	}
	for (size_t i = 0; i < n && !found; i++) {
		if (btf__find_by_name_kind(btf, cand[i], BTF_KIND_FUNC) >= 0) {
			snprintf(out, KSYM_LEN, "%s", cand[i]);
			found = 1;
		}
	}
	btf__free(btf);
	return found;
}

/* @kfunc: --target kfunc:NAME, else NULL and the syscall @s's function. */
static int find_function(int hook, const struct tt_syscall *s, const char *kfunc, char *out,
			 char *reason, size_t len)
{
	char cand[NSYM][KSYM_LEN];
	size_t n = kfunc ? 1 : NSYM;
	int rc;

	if (kfunc)
		snprintf(cand[0], KSYM_LEN, "%s", kfunc);
	else
		for (size_t i = 0; i < NSYM; i++)
			snprintf(cand[i], KSYM_LEN, sym_fmt[i], sys_base(s));
	rc = by_btf(hook) ? btf_pick(cand, n, out, reason, len) : kallsyms_pick(cand, n, out);
	if (rc > 0)
		return 0;
	if (rc == 0 && kfunc)
		snprintf(reason, len, "no kernel function '%s' in %s", kfunc,
			 by_btf(hook) ? "BTF" : "'/proc/kallsyms'");
	else if (rc == 0)
		snprintf(reason, len, "no kernel function for syscall '%s' in %s (tried '%s', '%s', '%s')",
			 s->name, by_btf(hook) ? "BTF" : "'/proc/kallsyms'", cand[0], cand[1],
			 cand[2]);
	return -1;
}

static void kf_destroy(void *skel)
{
	kfunc_bpf__destroy(skel);
}

/*
 * Open the skeleton and load the cell's program on p->fn. A tracing
 * program (fentry) names its function by BTF id before the load; the
 * test's tt_fault_verifier is not one.
 */
static int kf_load(struct kf_priv *p, char *err, size_t len)
{
	struct kfunc_bpf *s = kfunc_bpf__open();
	struct tt_bpf *b = &p->b;
	char eb[96], what[KSYM_LEN + 32];
	int e, rc;

	if (tt_bpf_open(b, s, s ? s->skeleton : NULL, kf_destroy, err, len))
		return TT_FAIL;
	if (bpf_program__type(b->prog) == BPF_PROG_TYPE_TRACING &&
	    (e = bpf_program__set_attach_target(b->prog, 0, p->fn))) {
		snprintf(err, len, "no BTF function '%s': %s", p->fn,
			 tt_bpf_errstr(-e, eb, sizeof(eb)));
		return TT_SKIP;
	}
	snprintf(what, sizeof(what), "%s program on '%s'", b->fam->stem, p->fn);
	rc = tt_bpf_load(b, what, err, len);
	if (rc != TT_OK)
		return rc;
	b->tgid = &s->bss->target_tgid;
	return TT_OK;
}

static int kf_attach(struct kf_priv *p, char *err, size_t len)
{
	struct tt_bpf *b = &p->b;
	char eb[96];
	int e, rc;

	tt_bpf_capture();
	if (by_btf(b->fam->hook))
		b->link = bpf_program__attach_trace(b->prog);
	else if (b->fam->hook == KF_KMULTI)
		/* a pattern of one name: fprobe on that function alone */
		b->link = bpf_program__attach_kprobe_multi_opts(b->prog, p->fn, NULL);
	else
		b->link = bpf_program__attach_kprobe(b->prog, b->fam->hook == KF_KRETPROBE, p->fn);
	if (b->link)
		return TT_OK;
	e = errno;
	/* libbpf tries the kprobe PMU, then tracefs: neither exists without kprobes. */
	if ((b->fam->hook == KF_KPROBE || b->fam->hook == KF_KRETPROBE) &&
	    access("/sys/bus/event_source/devices/kprobe", F_OK) &&
	    !tt_tracefs_has("kprobe_events")) {
		debug("kprobe on '%s': %s", p->fn, tt_bpf_errstr(e, eb, sizeof(eb)));
		snprintf(err, len, "kernel built without CONFIG_KPROBES: no kprobe PMU, "
			 "no tracefs kprobe_events");
		return TT_SKIP;
	}
	rc = tt_bpf_attach_verdict(e);
	snprintf(err, len, "%s %s attach to '%s': %s%s", rc == TT_SKIP ? "kernel refused" : "cannot",
		 b->fam->hook == KF_KMULTI ? "kprobe.multi" : b->fam->stem, p->fn,
		 tt_bpf_errstr(e, eb, sizeof(eb)),
		 /* fprobe is a build option of its own (Debian 12's 6.1 lacks it) */
		 b->fam->hook == KF_KMULTI && e == EOPNOTSUPP ? " (kernel built without "
		 "CONFIG_FPROBE?)" : "");
	return rc;
}

/* Load and attach the real count program, then take everything down again. */
static int kernel_trial(const struct tt_bpf_family *fam, const struct tt_syscall *s,
			const char *kfunc, char *reason, size_t len)
{
	struct kf_priv p = { 0 };
	int rc;

	tt_bpf_init(&p.b, fam, TT_BPF_COUNT);
	if (find_function(fam->hook, s, kfunc, p.fn, reason, len))
		return TT_SKIP;
	rc = kf_load(&p, reason, len);
	if (rc == TT_OK)
		rc = kf_attach(&p, reason, len);
	tt_bpf_release(&p.b);
	if (rc == TT_OK)
		reason[0] = '\0';
	return rc;
}

static int kf_supported(const struct tracer *t, char *reason, size_t len)
{
	const struct tt_syscall *s = t->target ? t->target : tt_syscall_find("getpid");
	const struct tt_bpf_family *fam = tt_bpf_family(t);
	const char *kfunc = tracer_kfunc(t);
	struct tt_bpf_memo *m;
	char key[96];

	if (!tt_bpf_caps_ok(reason, len))
		return TT_SKIP;
	snprintf(key, sizeof(key), "%s:%s%s", fam->stem, kfunc ? "kfunc:" : "", kfunc ? kfunc : s->name);
	if (!tt_bpf_memo(key, &m))
		m->rc = kernel_trial(fam, s, kfunc, m->reason, sizeof(m->reason));
	snprintf(reason, len, "%s", m->reason);
	return m->rc;
}

static int kf_setup(struct tracer *t)
{
	struct kf_priv *p = (struct kf_priv *)tt_bpf_new(t, sizeof(*p));
	int rc;

	if (!p)
		return TT_FAIL;
	if (!t->target && !tracer_kfunc(t))
		return tracer_error(t, "tracer '%s' needs a target syscall", t->name);
	if (find_function(p->b.fam->hook, t->target, tracer_kfunc(t), p->fn, t->err, sizeof(t->err)))
		return TT_SKIP;
	rc = kf_load(p, t->err, sizeof(t->err));
	if (rc != TT_OK)
		return rc;
	debug("%s: on '%s'", t->name, p->fn);
	return tt_bpf_loaded(t, &p->b);
}

static int kf_start(struct tracer *t, pid_t pid)
{
	if (tt_bpf_arm(t, pid))
		return TT_FAIL;
	/* A kernel that let supported() attach and now refuses: a failure. */
	return kf_attach(t->priv, t->err, sizeof(t->err)) == TT_OK ? 0 : TT_FAIL;
}

#define KF_HOOKS (TT_HOOK_SYSCALL | TT_HOOK_KFUNC)

const struct tracer_ops tracer_bpf_fentry = TT_BPF_OPS("bpf:fentry", KF_HOOKS,
	"BPF fentry program (trampoline) on the kernel function of the syscall (or "
	"--target kfunc:NAME)", kf_variants, fam_fentry, kf);

const struct tracer_ops tracer_bpf_fexit = TT_BPF_OPS("bpf:fexit", KF_HOOKS,
	"BPF fexit program (trampoline) at the return of the syscall's kernel function",
	kf_variants, fam_fexit, kf);

const struct tracer_ops tracer_bpf_kprobe = TT_BPF_OPS("bpf:kprobe", KF_HOOKS,
	"BPF program on a kprobe on the kernel function of the syscall (or --target "
	"kfunc:NAME)", kf_variants, fam_kprobe, kf);

const struct tracer_ops tracer_bpf_kretprobe = TT_BPF_OPS("bpf:kretprobe", KF_HOOKS,
	"BPF program on a kretprobe: each return of the syscall's kernel function",
	kf_variants, fam_kretprobe, kf);

const struct tracer_ops tracer_bpf_kprobe_multi = TT_BPF_OPS("bpf:kprobe-multi", KF_HOOKS,
	"BPF kprobe.multi program (fprobe, ftrace's entry hook) on the syscall's kernel function",
	kf_variants, fam_kmulti, kf);
