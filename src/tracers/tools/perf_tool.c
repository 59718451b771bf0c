/*
 * perf, the tool over perf:sample: tracepoint events sampled into per-CPU
 * rings, read by perf and formatted or written to a file.
 *
 * perf-trace   perf trace -S -e <target> -o FILE tracetax-load ...: perf's
 *              strace, on the raw_syscalls tracepoints filtered to the
 *              target; a line per call and, at the end, a summary per thread
 * perf-record  perf record -e syscalls:sys_enter_<target> -o DIR/perf.data:
 *              every event written to a file (removed with the directory);
 *              `perf script` reads it back afterwards, untimed
 *
 * Both wrap the workload: perf opens its events before exec with
 * enable_on_exec, so the workload's ready line proves them enabled. Hits
 * are the worker threads' calls (the main thread's start-up calls are not
 * events): the summary's rows per thread, or perf script's samples per
 * thread. Lost: perf trace's "LOST N events!" lines, perf record's LOST
 * records. On 6.18 perf record writes some samples twice (the same thread,
 * CPU and nanosecond, back to back, seen with perf 6.1): a thread cannot
 * make two calls in one nanosecond, so a repeat is counted once and the
 * note says how many there were.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "tracers/tracer.h"
#include "base/util.h"
#include "load/workloads.h"
#include "tracers/tools/tool.h"

#define TRACE_FILE "trace.out"
#define DATA_FILE "perf.data"
#define SCRIPT_FILE "script.out"
#define SCRIPT_MS 120000   /* perf script reads ~1M samples a second here */

static int trace_args(struct tracer *t, struct tool *tl, pid_t pid, struct tool_argv *av)
{
	(void)pid;
	tool_arg(av, "trace");
	tool_arg(av, "-S");
	if (t->target) {	/* else every syscall (TT_HOOK_ALLSYS) */
		tool_arg(av, "-e");
		tool_arg(av, "%s", t->target->name);
	}
	tool_arg(av, "-o");
	tool_arg(av, "%s/%s", tl->dir, TRACE_FILE);
	tool_arg(av, "--");
	return 0;
}

/*
 * A line per call, "TIME ( DUR ms): comm/TID name(args) = ret", or, when
 * another thread's line came between, "comm/TID name(args) ..." and later
 * "comm/TID  ... [continued]: name()) = ret": a call is a line whose name
 * follows "/TID ". The summary per thread at the end counts fewer here
 * (perf 6.1 on 6.18: 100097 of 100100 calls, the lines 100099): the lines
 * are the better count, and what is missing from them shows as hits.
 */
static int trace_count(struct tracer *t, struct tool *tl, struct tt_hits *out)
{
	char *text = tool_slurp(tl, TRACE_FILE), *save = NULL;
	const char *name = t->target ? t->target->name : NULL;
	size_t nlen = name ? strlen(name) : 0;
	pid_t skip = t->workload->cmd ? 0 : tl->load_pid;	/* a command's main thread is its own */
	bool summary = false;

	if (!text)
		return tracer_error(t, "perf trace wrote no '%s'", TRACE_FILE);
	out->hits = out->lost = 0;
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char *p = strstr(l, "): "), *end;
		long tid;

		summary |= strstr(l, "Summary of events:") != NULL;
		if ((p = strstr(l, "LOST ")) && strstr(l, " events!")) {
			out->lost += strtoll(p + 5, NULL, 10);
			continue;
		}
		if (summary || !(p = strstr(l, "): ")) || !(p = strchr(p, '/')))
			continue;
		tid = strtol(p + 1, &end, 10);
		end += strspn(end, " ");
		if (tid != skip && (name ? !strncmp(end, name, nlen) && end[nlen] == '(' :
				    end[strspn(end, "abcdefghijklmnopqrstuvwxyz0123456789_")] == '('))
			out->hits++;
	}
	free(text);
	if (!summary)
		return tracer_error(t, "perf trace printed no summary");
	out->hits += out->lost;	/* lost events were seen: hits, as for every tracer */
	return TT_OK;
}

static int record_args(struct tracer *t, struct tool *tl, pid_t pid, struct tool_argv *av)
{
	(void)pid;
	tool_arg(av, "record");
	tool_arg(av, "-q");
	tool_arg(av, "-e");
	tool_arg(av, "syscalls:%s", t->target->event);
	tool_arg(av, "-o");
	tool_arg(av, "%s/%s", tl->dir, DATA_FILE);
	tool_arg(av, "--");
	return 0;
}

/* A thread's last sample time: a repeat is the same thread at the same ns. */
struct last_seen {
	long tid;
	char time[40];
};

/* 1 if @l (tid @tid) repeats its thread's previous sample; records it if not. */
static int repeated(struct last_seen *seen, int *nseen, int cap, long tid, const char *l)
{
	const char *time = strchr(l, ' ') ? strchr(l, ' ') : "";
	int i = 0;

	while (i < *nseen && seen[i].tid != tid)
		i++;
	if (i < *nseen && !strcmp(seen[i].time, time))
		return 1;
	if (i == *nseen) {
		if (*nseen == cap)
			i = cap - 1;	/* more threads than we track: forget one, count all */
		else
			(*nseen)++;
		seen[i].tid = tid;
	}
	snprintf(seen[i].time, sizeof(seen[i].time), "%s", time);
	return 0;
}

/*
 * "  TID  SEC.NSEC: " lines, "... PERF_RECORD_LOST lost N" for losses.
 * Repeats are found per thread, not between neighbouring lines: with two
 * threads perf script interleaves them, and a repeat need not follow its
 * original (44025 hits for 44000 events once, at 2 threads).
 */
static int record_count(struct tracer *t, struct tool *tl, struct tt_hits *out)
{
	char data[4200];
	char *argv[] = { tl->path, "script", "-i", data, "-F", "tid,time", "--ns",
			 "--show-lost-events", NULL };
	struct last_seen seen[256];
	char *text, *save = NULL;
	int64_t repeats = 0;
	int nseen = 0;

	tool_file(tl, DATA_FILE, data, sizeof(data));
	if (tool_run(t, tl, argv, SCRIPT_FILE, SCRIPT_MS))
		return TT_FAIL;
	if (!(text = tool_slurp(tl, SCRIPT_FILE)))
		return tracer_error(t, "perf script wrote nothing");
	out->hits = out->lost = 0;
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char *p, *end;
		long tid = strtol(l, &end, 10);

		if ((p = strstr(l, "PERF_RECORD_LOST lost "))) {
			out->lost += strtoll(p + 22, NULL, 10);
			continue;
		}
		if (end == l || tid == tl->load_pid)
			continue;
		if (repeated(seen, &nseen, (int)(sizeof(seen) / sizeof(seen[0])), tid, end)) {
			repeats++;
			continue;
		}
		out->hits++;
	}
	free(text);
	if (repeats)
		tracer_note(t, "perf record wrote some samples twice: counted once");
	out->hits += out->lost;
	return TT_OK;
}

/* Tracepoint events are for root, or for anyone at perf_event_paranoid -1. */
static int perf_tp_allowed(const struct tracer *t, char *reason, size_t len)
{
	char val[16] = "2";

	(void)t;
	if (geteuid() == 0)
		return TT_OK;
	read_file_str("/proc/sys/kernel/perf_event_paranoid", val, sizeof(val));
	if (atoi(val) <= -1)
		return TT_OK;
	snprintf(reason, len, "perf's tracepoint events need root (kernel.perf_event_paranoid = %s)",
		 val);
	return TT_SKIP;
}

static const struct tool_spec perf_trace = {
	.prog = "perf", .package = "linux-perf", .mode = TOOL_WRAP, .args = trace_args, .count = trace_count,
	.supported = perf_tp_allowed,
};

static const struct tool_spec perf_record = {
	.prog = "perf", .package = "linux-perf", .mode = TOOL_WRAP, .args = record_args, .count = record_count,
	.supported = perf_tp_allowed,
};

const struct tracer_ops tracer_perf_trace = {
	.name = "perf-trace",
	.hooks = TT_HOOK_SYSCALL | TT_HOOK_ALLSYS,
	.summary = "perf trace -S -e <target>: a line per call and a summary per thread",
	.data = &perf_trace,
	TOOL_OPS,
};

const struct tracer_ops tracer_perf_record = {
	.name = "perf-record",
	.hooks = TT_HOOK_SYSCALL,
	.summary = "perf record -e syscalls:sys_enter_<target> into a file, perf script after",
	.data = &perf_record,
	TOOL_OPS,
};
