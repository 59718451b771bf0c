/*
 * strace, the tool that ptrace:all and ptrace:seccomp measure the mechanism of.
 *
 * strace           strace -f -o FILE -e trace=<target> tracetax-load ...: a
 *                  ptrace stop at every syscall entry and exit of every
 *                  thread; each target call decoded and written as a line.
 * strace:seccomp   the same with --seccomp-bpf: a seccomp filter stops only
 *                  at the target (it must wrap: strace installs the filter
 *                  before exec, so there is no attaching to a running pid).
 * strace:count     strace -c -f -p PID -e trace=<target>: no line per call,
 *                  a table of counts and times when the workload is gone.
 *
 * Hits come from strace's own output. Wrapped, strace traces from exec, and
 * its file has the workload's start-up calls too (ld.so's newfstatat, the
 * pid the workload asks once): those are the main thread's, which makes no
 * op, so only the lines of the worker threads are hits. strace:count's
 * table has no threads, so it attaches to the ready workload instead (it
 * says "Process N attached" once it has), and counts from there.
 */
#include <linux/seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <stdbool.h>
#include <unistd.h>

#include "tracers/tracer.h"
#include "base/util.h"
#include "tracers/ptrace/seccomp.h"
#include "load/workloads.h"
#include "tracers/tools/tool.h"

#define STRACE_FILE "strace.out"

enum { STRACE_PTRACE, STRACE_SECCOMP };	/* tool_spec.kind */

/* Lines "TID  name(" of @file: calls made, the start of each (not "<... name resumed>"). */
static int64_t count_calls(const char *text, const char *name, pid_t skip_tid)
{
	size_t nlen = name ? strlen(name) : 0;	/* NULL: every syscall */
	int64_t n = 0;

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		char *end;
		long tid = strtol(p, &end, 10);

		if (end == p || *end != ' ')
			continue;
		end += strspn(end, " ");
		if (tid == skip_tid)
			continue;
		if (name ? !strncmp(end, name, nlen) && end[nlen] == '(' :
		    *end != '(' && end[strspn(end, "abcdefghijklmnopqrstuvwxyz0123456789_")] == '(')
			n++;
	}
	return n;
}

static int args_file(struct tracer *t, struct tool *tl, pid_t pid, struct tool_argv *av)
{
	(void)pid;
	tool_arg(av, "-f");
	if (tl->spec->kind == STRACE_SECCOMP)
		tool_arg(av, "--seccomp-bpf");
	tool_arg(av, "-o");
	tool_arg(av, "%s/%s", tl->dir, STRACE_FILE);
	if (t->target) {	/* else every syscall (TT_HOOK_ALLSYS) */
		tool_arg(av, "-e");
		tool_arg(av, "trace=%s", t->target->name);
	}
	return 0;
}

static int count_file(struct tracer *t, struct tool *tl, struct tt_hits *out)
{
	char *text = tool_slurp(tl, STRACE_FILE);

	if (!text)
		return tracer_error(t, "strace wrote no '%s'", STRACE_FILE);
	/* the load's main thread is no worker of its loop; a command's is the command */
	out->hits = count_calls(text, t->target ? t->target->name : NULL,
				t->workload->cmd ? 0 : tl->load_pid);
	free(text);
	return TT_OK;
}

static int args_count(struct tracer *t, struct tool *tl, pid_t pid, struct tool_argv *av)
{
	tool_arg(av, "-c");
	tool_arg(av, "-f");
	tool_arg(av, "-p");
	tool_arg(av, "%d", (int)pid);
	tool_arg(av, "-o");
	tool_arg(av, "%s/%s", tl->dir, STRACE_FILE);
	tool_arg(av, "-e");
	tool_arg(av, "trace=%s", t->target->name);
	return 0;
}

/* "% time  seconds  usecs/call  calls  errors syscall": the calls of the row named @name. */
static int count_table(struct tracer *t, struct tool *tl, struct tt_hits *out)
{
	char *text = tool_slurp(tl, STRACE_FILE), *save = NULL;

	if (!text)
		return tracer_error(t, "strace wrote no '%s'", STRACE_FILE);
	out->hits = 0;	/* a syscall never made has no row */
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *f[8], *s2 = NULL;
		int n = 0;

		for (char *w = strtok_r(line, " ", &s2); w && n < 8; w = strtok_r(NULL, " ", &s2))
			f[n++] = w;
		if (n >= 5 && !strcmp(f[n - 1], t->target->name))
			out->hits = strtoll(f[3], NULL, 10);
	}
	free(text);
	return TT_OK;
}

/* ptrace itself: Yama may forbid it (3), or unprivileged attaching to a non-child (1, 2). */
static int ptrace_allowed(bool attach, char *reason, size_t len)
{
	char scope[16] = "0";

	read_file_str("/proc/sys/kernel/yama/ptrace_scope", scope, sizeof(scope));
	if (!strcmp(scope, "3") || (attach && geteuid() != 0 && strcmp(scope, "0"))) {
		snprintf(reason, len, "kernel.yama.ptrace_scope = %s: strace %s", scope,
			 attach ? "-p cannot attach to the workload, not its child" : "cannot trace");
		return TT_SKIP;
	}
	return TT_OK;
}

static int wrap_supported(const struct tracer *t, char *reason, size_t len)
{
	(void)t;
	return ptrace_allowed(false, reason, len);
}

static int seccomp_supported(const struct tracer *t, char *reason, size_t len)
{
	(void)t;
	if (ptrace_allowed(false, reason, len))
		return TT_SKIP;
	return tt_seccomp_supported("trace", SECCOMP_RET_TRACE, 0, reason, len);
}

static int attach_supported(const struct tracer *t, char *reason, size_t len)
{
	(void)t;
	return ptrace_allowed(true, reason, len);
}

/* after a complaint about its command line: the complaint is the word to keep */
#define STRACE_HARMLESS "^Try '.*' for more information|Process [0-9]+ (attached|detached)"

static const struct tool_spec strace_file = {
	.prog = "strace", .package = "strace", .mode = TOOL_WRAP, .kind = STRACE_PTRACE, .harmless = STRACE_HARMLESS,
	.args = args_file, .count = count_file, .supported = wrap_supported,
};

static const struct tool_spec strace_seccomp = {
	.prog = "strace", .package = "strace", .mode = TOOL_WRAP, .kind = STRACE_SECCOMP, .harmless = STRACE_HARMLESS,
	.args = args_file, .count = count_file, .supported = seccomp_supported,
};

static const struct tool_spec strace_count = {
	/* it leaves by itself once the workload is gone: no signal */
	.prog = "strace", .package = "strace", .mode = TOOL_ATTACH, .ready = "strace: Process [0-9]+ attached",
	.harmless = STRACE_HARMLESS,
	.args = args_count, .count = count_table, .supported = attach_supported,
};

const struct tracer_ops tracer_strace = {
	.name = "strace",
	.hooks = TT_HOOK_SYSCALL | TT_HOOK_ALLSYS,
	.summary = "strace -f -o FILE -e trace=<target>: ptrace stops, a line per call",
	.data = &strace_file,
	TOOL_OPS,
};

const struct tracer_ops tracer_strace_seccomp = {
	.name = "strace:seccomp",
	.hooks = TT_HOOK_SYSCALL | TT_HOOK_ALLSYS,
	.summary = "strace --seccomp-bpf -f -o FILE: stops at the target syscall only",
	.data = &strace_seccomp,
	TOOL_OPS,
};

const struct tracer_ops tracer_strace_count = {
	.name = "strace:count",
	.hooks = TT_HOOK_SYSCALL,
	.summary = "strace -c -f -p PID: counts and times, no line per call",
	.data = &strace_count,
	TOOL_OPS,
};
