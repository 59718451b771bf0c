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

#include "tracers/tracer.h"
#include "base/util.h"
#include "base/seccomp_filter.h"
#include "tracers/ptrace/seccomp.h"

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
