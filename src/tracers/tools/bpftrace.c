/*
 * bpftrace, the tool over bpf:tp: a BPF program on the target's
 * syscalls:sys_enter_* tracepoint, compiled from bpftrace's language.
 *
 * bpftrace         tracepoint:syscalls:<event> /pid == N/ { @hits = count(); }
 * bpftrace:filter  the same with the blog post's predicate, a string compare
 *                  of the path: && str(args->filename) == "/tmp" (the path
 *                  the stat workloads ask about)
 *
 * It attaches to the ready workload: the program names its pid, and a
 * BEGIN probe prints a line once every probe is attached. Hits are @hits as
 * bpftrace prints it on SIGINT; events it could not print are in its
 * "Lost N events" line. bpftrace 0.17 cannot raise RLIMIT_MEMLOCK on a
 * kernel that no longer charges BPF memory there and says so as an ERROR:
 * harmless, and not its last word.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracefs.h>
#include <unistd.h>

#include "tracers/tracer.h"
#include "base/util.h"
#include "tracers/tools/tool.h"

#define READY_LINE "tracetax: attached"
/*
 * bpftrace 0.17 can miss a SIGINT: its handler sets a flag that its loop
 * checks before a blocking epoll_wait, so a signal between the check and
 * the wait is seen only at the next event, and a workload that is gone
 * makes none. Here 2 of 30 bpftraces sent SIGINT after their workload
 * exited were still in epoll_wait 5 s later; another SIGINT wakes it.
 */
#define BT_RESIGNAL_MS 1000
#define FILTER_PATH "/tmp"   /* what stat and stat-libc ask about, as in the post */

enum { BT_COUNT, BT_FILTER };	/* tool_spec.kind */

static int bt_args(struct tracer *t, struct tool *tl, pid_t pid, struct tool_argv *av)
{
	char filter[64] = "";

	if (tl->spec->kind == BT_FILTER)
		snprintf(filter, sizeof(filter), " && str(args->filename) == \"%s\"", FILTER_PATH);
	tool_arg(av, "-e");
	tool_arg(av, "BEGIN { printf(\"" READY_LINE "\\n\"); } "
		 "tracepoint:%s:%s /pid == %d%s/ { @hits = count(); }",
		 t->target ? "syscalls" : t->tp_system, t->target ? t->target->event : t->tp_event,
		 (int)pid, filter);
	return 0;
}

/* "Lost N events" lines, on stdout or stderr: events it could not print */
static int64_t lost_of(const char *text)
{
	int64_t n = 0;

	for (const char *l = text; l && (l = strstr(l, "Lost ")); l += 5)
		n += strtoll(l + 5, NULL, 10);
	return n;
}

static int bt_count(struct tracer *t, struct tool *tl, struct tt_hits *out)
{
	char *text = tool_slurp(tl, "stdout"), *err = tool_slurp(tl, "stderr");
	const char *p = text ? strstr(text, "@hits: ") : NULL;
	int ret = TT_OK;

	if (p) {
		out->hits = strtoll(p + 7, NULL, 10);
		out->lost = lost_of(text) + lost_of(err);
	} else {
		ret = tracer_error(t, "bpftrace printed no @hits");
	}
	free(text);
	free(err);
	return ret;
}

static int bt_supported(const struct tracer *t, char *reason, size_t len)
{
	(void)t;
	if (geteuid() == 0)
		return TT_OK;
	snprintf(reason, len, "bpftrace runs as root only");
	return TT_SKIP;
}

/* The filter compares the path: only a tracepoint with a filename argument has one. */
static int filter_supported(const struct tracer *t, char *reason, size_t len)
{
	const char *dir = tracefs_tracing_dir();
	char path[512], fmt[4096] = "";

	if (bt_supported(t, reason, len))
		return TT_SKIP;
	snprintf(path, sizeof(path), "%s/events/syscalls/%s/format", dir ? dir : "/sys/kernel/tracing",
		 t->target->event);
	if (!read_file_str(path, fmt, sizeof(fmt)) && strstr(fmt, " filename;"))
		return TT_OK;
	snprintf(reason, len, "tracepoint 'syscalls:%s' has no filename to compare (try -w stat-libc)",
		 t->target->event);
	return TT_SKIP;
}

static const struct tool_spec bt_plain = {
	.prog = "bpftrace", .package = "bpftrace", .mode = TOOL_ATTACH, .ready = "^" READY_LINE "$",
	.harmless = "RLIMIT_MEMLOCK|^Attaching [0-9]+ probes", .detach_signal = SIGINT,
	.resignal_ms = BT_RESIGNAL_MS,
	.kind = BT_COUNT, .args = bt_args, .count = bt_count, .supported = bt_supported,
};

static const struct tool_spec bt_filter = {
	.prog = "bpftrace", .package = "bpftrace", .mode = TOOL_ATTACH, .ready = "^" READY_LINE "$",
	.harmless = "RLIMIT_MEMLOCK|^Attaching [0-9]+ probes", .detach_signal = SIGINT,
	.resignal_ms = BT_RESIGNAL_MS,
	.kind = BT_FILTER, .args = bt_args, .count = bt_count, .supported = filter_supported,
};

const struct tracer_ops tracer_bpftrace = {
	.name = "bpftrace",
	.hooks = TT_HOOK_SYSCALL | TT_HOOK_ALLSYS,
	.summary = "bpftrace: count() on the target's tracepoint, filtered to the workload's pid",
	.data = &bt_plain,
	TOOL_OPS,
};

const struct tracer_ops tracer_bpftrace_filter = {
	.name = "bpftrace:filter",
	.hooks = TT_HOOK_SYSCALL,
	.summary = "bpftrace with the post's predicate: str(args->filename) == \"/tmp\"",
	.data = &bt_filter,
	TOOL_OPS,
};
