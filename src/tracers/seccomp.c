/*
 * seccomp:filter: a filter that allows everything, the price of having a
 * seccomp profile at all; and the filter builder and probe that
 * seccomp:notify (seccomp_notify.c) and ptrace:seccomp share.
 *
 * Filters are installed in the forked child before exec (child_prep), so
 * they apply to the workload exactly as a container runtime's would.
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../tracer.h"
#include "../util.h"
#include "seccomp.h"

#if defined(__x86_64__)
#define TT_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define TT_AUDIT_ARCH AUDIT_ARCH_AARCH64
#elif defined(__i386__)
#define TT_AUDIT_ARCH AUDIT_ARCH_I386
#elif defined(__riscv) && __riscv_xlen == 64
#define TT_AUDIT_ARCH AUDIT_ARCH_RISCV64
#endif

int tt_seccomp_install(long nr, uint32_t action, unsigned int flags)
{
#ifdef TT_AUDIT_ARCH
	/*
	 * What a real profile does: check the arch first (a foreign-arch call
	 * number means another syscall; it is not ours, so allow it), then the
	 * number. A filter that only reads arch and nr is emulated by the
	 * kernel (5.11+) into a per-nr "always allow" bitmap: allowed syscalls
	 * then skip the BPF run, and what remains is the seccomp entry work.
	 */
	struct sock_filter prog[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, TT_AUDIT_ARCH, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)nr, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, action),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog fp = { .len = sizeof(prog) / sizeof(prog[0]), .filter = prog };

	/* Needed without CAP_SYS_ADMIN; harmless for tracetax-load (not setuid). */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &fp);
#else
	(void)nr; (void)action; (void)flags;
	errno = ENOSYS;
	return -1;
#endif
}

/* Whole-word match in a space-separated list. */
static int has_word(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = list; (p = strstr(p, word)); p += n)
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
			return 1;
	return 0;
}

int tt_seccomp_supported(const char *avail_name, uint32_t action, unsigned int flags,
			 char *reason, size_t len)
{
	char avail[256];
	pid_t pid;
	int st;

#ifndef TT_AUDIT_ARCH
	snprintf(reason, len, "no seccomp audit arch known for this build");
	return TT_SKIP;
#endif
	if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) < 0) {
		snprintf(reason, len, "kernel built without CONFIG_SECCOMP");
		return TT_SKIP;
	}
	if (read_file_str("/proc/sys/kernel/seccomp/actions_avail", avail, sizeof(avail)) < 0) {
		snprintf(reason, len, "kernel built without CONFIG_SECCOMP_FILTER");
		return TT_SKIP;
	}
	if (!has_word(avail, avail_name)) {
		snprintf(reason, len, "seccomp action '%s' not available (actions_avail: %s)",
			 avail_name, avail);
		return TT_SKIP;
	}
	/* The real test: a child installs such a filter (on getppid, which it never calls). */
	pid = fork();
	if (pid < 0) {
		snprintf(reason, len, "cannot fork seccomp probe: %s", strerror(errno));
		return TT_SKIP;
	}
	if (pid == 0)
		_exit(tt_seccomp_install(SYS_getppid, action, flags) < 0 ? errno & 0x7f : 0);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		snprintf(reason, len, "cannot install a seccomp filter: %s",
			 WIFEXITED(st) ? strerror(WEXITSTATUS(st)) : "probe child killed");
		return TT_SKIP;
	}
	return TT_OK;
}

/* ---- seccomp:filter ---------------------------------------------------- */

static int filter_supported(const struct tracer *t, char *reason, size_t len)
{
	(void)t;
	return tt_seccomp_supported("allow", SECCOMP_RET_ALLOW, 0, reason, len);
}

static int filter_child_prep(struct tracer *t)
{
	return tt_seccomp_install(t->target->nr, SECCOMP_RET_ALLOW, 0) < 0 ? -1 : 0;
}

static int filter_stop(struct tracer *t, struct tt_hits *out)
{
	(void)t;
	*out = (struct tt_hits){ .hits = -1, .lost = 0, .stops = -1 };	/* a filter cannot count */
	return 0;
}

const struct tracer_ops tracer_seccomp_filter = {
	.name = "seccomp:filter",
	.hooks = TT_HOOK_SYSCALL,
	.summary = "seccomp filter that allows everything (arch check, then allow)",
	.supported = filter_supported,
	.child_prep = filter_child_prep,
	.stop = filter_stop,
};
