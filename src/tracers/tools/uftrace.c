/*
 * uftrace, the tool over an in-process hook: the neighbour of preload (an
 * LD_PRELOAD interposer) and inline (a record written by the loop itself),
 * and of bpf:uprobe, the kernel's way to the same call.
 *
 * uftrace  uftrace record --force -d DIR tracetax-load ...: LD_PRELOAD of
 *          libmcount, which points the program's PLT entries at its own
 *          trampoline (our binary has no mcount: --force traces its library
 *          calls only, tt_func among them); at each call it swaps the return
 *          address to catch the exit too, and writes an entry and an exit
 *          record into a per-thread shared-memory buffer that uftrace's
 *          writer threads copy to files. Nothing is formatted while it runs.
 *
 * It wraps: libmcount sets its hooks in a constructor, before main(), so
 * the workload's ready line proves them in place. Hits are the Calls of
 * tt_func's row in `uftrace report` (run after the workload, untimed); a
 * buffer the writers did not drain in time shows as "LOST N records" there.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracers/tracer.h"
#include "tracers/tools/tool.h"

#define DATA_DIR "uftrace.data"
#define REPORT_FILE "report.out"
#define REPORT_MS 120000

static int uf_args(struct tracer *t, struct tool *tl, pid_t pid, struct tool_argv *av)
{
	(void)t; (void)pid;
	tool_arg(av, "record");
	tool_arg(av, "--force");
	tool_arg(av, "-d");
	tool_arg(av, "%s/%s", tl->dir, DATA_DIR);
	tool_arg(av, "--");
	return 0;
}

/* "LOST N records" anywhere in @text: each call is two records, entry and exit */
static int64_t lost_records(const char *text)
{
	int64_t n = 0;

	for (const char *p = text; p && (p = strstr(p, "LOST ")); p += 5)
		n += strtoll(p + 5, NULL, 10);
	return n;
}

/* "  Total time   Self time       Calls  Function": the Calls of @func's row. */
static int uf_count(struct tracer *t, struct tool *tl, struct tt_hits *out)
{
	char data[4200], *text, *err, *save = NULL;
	char *argv[] = { tl->path, "report", "-d", data, "--no-pager", NULL };
	size_t flen = strlen(t->func);
	bool header = false;

	tool_file(tl, DATA_DIR, data, sizeof(data));
	if (tool_run(t, tl, argv, REPORT_FILE, REPORT_MS))
		return TT_FAIL;
	if (!(text = tool_slurp(tl, REPORT_FILE)))
		return tracer_error(t, "uftrace report wrote nothing");
	err = tool_slurp(tl, REPORT_FILE ".err");
	out->hits = 0;	/* a function never called has no row */
	out->lost = (lost_records(text) + lost_records(err)) / 2;
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		size_t n = strlen(l);
		char *calls, *end;

		header |= strstr(l, "Calls") && strstr(l, "Function");
		/* the name ends the line; the calls are the word before it */
		if (n <= flen || strcmp(l + n - flen, t->func) || l[n - flen - 1] != ' ')
			continue;
		for (end = l + n - flen; end > l && end[-1] == ' '; end--)
			;
		*end = '\0';
		calls = strrchr(l, ' ');
		out->hits = strtoll(calls ? calls + 1 : l, NULL, 10);
	}
	free(text);
	free(err);
	if (!header)
		return tracer_error(t, "uftrace report printed no table");
	return TT_OK;
}

static const struct tool_spec uftrace_spec = {
	.prog = "uftrace", .package = "uftrace", .mode = TOOL_WRAP, .args = uf_args, .count = uf_count,
};

const struct tracer_ops tracer_uftrace = {
	.name = "uftrace",
	.hooks = TT_HOOK_FUNC,
	.summary = "uftrace record --force: libmcount's PLT hooks, entry and exit records to files",
	.data = &uftrace_spec,
	TOOL_OPS,
};
