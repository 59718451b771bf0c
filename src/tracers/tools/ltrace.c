/*
 * ltrace, the tool over a breakpoint that ptrace services: the user-space
 * neighbour of preload (an interposer, in process) and uprobe (a
 * breakpoint the kernel services).
 *
 * ltrace   ltrace -f -c -o FILE -e <func> tracetax-load ...: an int3 on the
 *          main program's PLT entry of the function the workload calls
 *          (getpid of getpid-libc, tt_func of func); at each call the thread
 *          stops, ltrace reads its registers, steps the original instruction
 *          out of line and puts the breakpoint back, and stops it again at the
 *          return. -c formats nothing per call: a table at the end.
 *
 * It wraps: ltrace sets its breakpoints once the dynamic linker has mapped
 * the libraries, before main(), so the workload's ready line proves them in
 * place. Hits are the calls of the function's row in the -c table; the
 * table has no threads, but the workload's main thread calls the function
 * through its PLT never (loops_init asks the kernel itself).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tracers/tracer.h"
#include "base/util.h"
#include "tracers/tools/tool.h"

#define LTRACE_FILE "ltrace.out"

static int lt_args(struct tracer *t, struct tool *tl, pid_t pid, struct tool_argv *av)
{
	(void)pid;
	tool_arg(av, "-f");
	tool_arg(av, "-c");
	tool_arg(av, "-o");
	tool_arg(av, "%s/%s", tl->dir, LTRACE_FILE);
	tool_arg(av, "-e");
	tool_arg(av, "%s", t->func);
	return 0;
}

/* "% time  seconds  usecs/call  calls  function": the calls of the row named @func. */
static int lt_count(struct tracer *t, struct tool *tl, struct tt_hits *out)
{
	char *text = tool_slurp(tl, LTRACE_FILE), *save = NULL;
	bool table = false;

	if (!text)
		return tracer_error(t, "ltrace wrote no '%s'", LTRACE_FILE);
	out->hits = 0;	/* a function never called has no row */
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *f[6], *s2 = NULL;
		int n = 0;

		table |= strstr(line, "usecs/call") != NULL;
		for (char *w = strtok_r(line, " ", &s2); w && n < 6; w = strtok_r(NULL, " ", &s2))
			f[n++] = w;
		if (n == 5 && !strcmp(f[4], t->func))
			out->hits = strtoll(f[3], NULL, 10);
	}
	free(text);
	if (!table)
		return tracer_error(t, "ltrace wrote no table in '%s'", LTRACE_FILE);
	return TT_OK;
}

/* ptrace itself: Yama's scope 3 forbids it even to a parent. */
static int lt_supported(const struct tracer *t, char *reason, size_t len)
{
	char scope[16] = "0";

	(void)t;
	read_file_str("/proc/sys/kernel/yama/ptrace_scope", scope, sizeof(scope));
	if (strcmp(scope, "3"))
		return TT_OK;
	snprintf(reason, len, "kernel.yama.ptrace_scope = 3: ltrace cannot trace");
	return TT_SKIP;
}

static const struct tool_spec ltrace_spec = {
	.prog = "ltrace", .package = "ltrace", .mode = TOOL_WRAP, .args = lt_args, .count = lt_count,
	.supported = lt_supported,
};

const struct tracer_ops tracer_ltrace = {
	.name = "ltrace",
	.hooks = TT_HOOK_FUNC,
	.summary = "ltrace -f -c -e <func>: a ptrace'd breakpoint on the PLT entry, a table at the end",
	.data = &ltrace_spec,
	TOOL_OPS,
};
