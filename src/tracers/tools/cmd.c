/*
 * cmd:'TEMPLATE': any command of the user's as a tracer, run as the tools
 * are (tool.h): in a process group of its own, under timeouts, its output
 * captured in a private directory that is also its working directory.
 *
 *   {cmd}  the workload's command line: the tool wraps the workload, and
 *          the workload's ready line, passed on through the tool, proves it
 *          traced from exec. It must be the template's last word.
 *   {pid}  the workload's pid, anywhere in a word: the tool attaches to the
 *          ready workload, and SIGINT to its group makes it detach.
 *
 * The template is split into words as a shell splits them (quotes,
 * backslashes) and run without a shell: a shell's operators (| ; & < >
 * $ `) are refused, not run. --ready ERE: attached once its stdout or
 * stderr matches (for {cmd} too); without it an attaching tool is taken to
 * be attached once it still runs after TOOL_GRACE_MS, and the note says so.
 * --hits ERE: with a group, the sum of the numbers it captures over the
 * matching lines; without, the matching lines; without --hits, unknown.
 */
#include <regex.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cmdline.h"
#include "tracers/tracer.h"
#include "tracers/tools/tool.h"

struct cmd {
	struct tool_spec spec;
	struct cmdline line;
	char **w;                     /* line.w */
	int n;
	bool wrap;                    /* {cmd}, else {pid} */
};

/* Split and checked: {cmd} last and alone, or {pid}; never both, never neither. */
static int parse(const char *arg, struct cmd *c, char *err, size_t elen)
{
	const char *s;
	size_t len = cmdline_unquote(arg, &s);
	bool pid = false;
	int ncmd = 0;
	char why[128];

	memset(c, 0, sizeof(*c));
	if (len > CMDLINE_MAX) {
		snprintf(err, elen, "command of 'cmd:' too long (%zu characters, at most %d)", len,
			 CMDLINE_MAX);
		return -1;
	}
	if (cmdline_split(arg, &c->line, why, sizeof(why))) {
		snprintf(err, elen, "invalid command '%.*s%s': %s", len > 60 ? 56 : (int)len, s,
			 len > 60 ? "..." : "", why);
		return -1;
	}
	c->w = c->line.w;
	c->n = c->line.n;
	for (int i = 0; i < c->n; i++) {
		ncmd += !strcmp(c->w[i], "{cmd}");
		pid |= strstr(c->w[i], "{pid}") != NULL;
	}
	c->wrap = ncmd > 0;
	if (!c->n || (!ncmd && !pid))
		snprintf(why, sizeof(why), "neither {cmd} nor {pid}: the tool cannot meet the workload");
	else if (ncmd && pid)
		snprintf(why, sizeof(why), "both {cmd} and {pid}: it wraps the workload or attaches");
	else if (ncmd && (ncmd > 1 || strcmp(c->w[c->n - 1], "{cmd}") || c->n == 1))
		snprintf(why, sizeof(why), "{cmd} must be the last word, once, after the tool's");
	else if (!strcmp(c->w[0], "{pid}") || strstr(c->w[0], "{cmd}"))
		snprintf(why, sizeof(why), "the first word must be the tool");
	else
		return 0;
	snprintf(err, elen, "invalid command '%.*s': %s", (int)len, s, why);
	return -1;
}

static int cmd_parse_arg(const char *arg, char *err, size_t len)
{
	struct cmd c;

	return parse(arg, &c, err, len);
}

/* "-p{pid}" -> "-p1234": every {pid} of @w, the word whole however long. */
static void put_word(struct tool_argv *av, const char *w, pid_t pid)
{
	size_t room = strlen(w) + 1, o = 0;
	char *out;

	for (const char *p = strstr(w, "{pid}"); p; p = strstr(p + 5, "{pid}"))
		room += 16;
	out = malloc(room);
	if (!out) {
		av->overflow = true;	/* refused by the caller, not run short */
		return;
	}
	for (; *w; w++) {
		if (!strncmp(w, "{pid}", 5)) {
			o += (size_t)snprintf(out + o, room - o, "%d", (int)pid);
			w += 4;
		} else {
			out[o++] = *w;
		}
	}
	out[o] = '\0';
	tool_arg(av, "%s", out);
	free(out);
}

static int cmd_args(struct tracer *t, struct tool *tl, pid_t pid, struct tool_argv *av)
{
	const struct cmd *c = (const struct cmd *)tl->spec;

	(void)t;
	for (int i = 1; i < c->n - (c->wrap ? 1 : 0); i++)
		put_word(av, c->w[i], pid);
	return 0;
}

/* The hits of --hits in @text: captured numbers summed, or matching lines counted. */
static int64_t hits_in(const regex_t *re, const char *text)
{
	int64_t n = 0;
	regmatch_t m[2];

	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		size_t len = strcspn(l, "\n");
		char line[1024];

		snprintf(line, sizeof(line), "%.*s", (int)len, l);
		if (regexec(re, line, 2, m, 0))
			continue;
		n += re->re_nsub ? (m[1].rm_so >= 0 ? strtoll(line + m[1].rm_so, NULL, 10) : 0) : 1;
	}
	return n;
}

static int cmd_count(struct tracer *t, struct tool *tl, struct tt_hits *out)
{
	char *o, *e;
	regex_t re;

	out->lost = 0;
	if (!t->tool_hits) {
		out->hits = -1;
		return TT_OK;
	}
	if (regcomp(&re, t->tool_hits, REG_EXTENDED))
		return tracer_error(t, "invalid --hits '%s'", t->tool_hits);
	o = tool_slurp(tl, "stdout");
	e = tool_slurp(tl, "stderr");
	out->hits = (o ? hits_in(&re, o) : 0) + (e ? hits_in(&re, e) : 0);
	free(o);
	free(e);
	regfree(&re);
	return TT_OK;
}

static int cmd_supported(const struct tracer *t, char *reason, size_t len)
{
	char path[PATH_MAX];
	struct cmd c;

	if (!t->variant)	/* `tracetax list`: the family, without a command */
		return TT_OK;
	if (parse(t->variant, &c, reason, len))
		return TT_FAIL;
	if (path_which(c.w[0], path, sizeof(path))) {
		snprintf(reason, len, "'%s' is not installed (not in PATH)", c.w[0]);
		return TT_SKIP;
	}
	return TT_OK;
}

static int cmd_setup(struct tracer *t)
{
	struct cmd *c = calloc(1, sizeof(*c));
	int rc;

	if (!c)
		return tracer_error(t, "cannot allocate the command");
	if (parse(t->variant, c, t->err, sizeof(t->err))) {
		free(c);
		return TT_FAIL;
	}
	c->spec = (struct tool_spec){
		.prog = c->w[0], .mode = c->wrap ? TOOL_WRAP : TOOL_ATTACH,
		.ready = c->wrap ? NULL : t->tool_ready, .detach_signal = c->wrap ? 0 : SIGINT,
		.args = cmd_args, .count = cmd_count,
	};
	rc = tool_setup_spec(t, &c->spec);
	if (!t->priv) {
		free(c);
		return rc;
	}
	if (!c->wrap && !t->tool_ready)
		tracer_note(t, "attached assumed %d ms after launch (no --ready)", TOOL_GRACE_MS);
	return rc;
}

/* Wrapped: the workload is ready; with --ready, the tool must say so too. */
static int cmd_start(struct tracer *t, pid_t pid)
{
	struct tool *tl = t->priv;

	if (tool_start(t, pid))
		return TT_FAIL;
	if (tl->spec->mode == TOOL_WRAP && t->tool_ready &&
	    tool_wait_output(tl, t->tool_ready, TOOL_READY_MS, t->err, sizeof(t->err)))
		return TT_FAIL;
	return TT_OK;
}

static void cmd_teardown(struct tracer *t)
{
	struct tool *tl = t->priv;
	struct cmd *c = tl ? (struct cmd *)tl->spec : NULL;

	tool_teardown(t);
	free(c);
}

const struct tracer_ops tracer_cmd = {
	.name = "cmd",
	.summary = "cmd:'TOOL ... {cmd}' wraps the workload, cmd:'TOOL ... {pid}' attaches "
		   "(--ready, --hits)",
	.flags = TT_F_TOOL,
	.parse_arg = cmd_parse_arg,
	.supported = cmd_supported, .setup = cmd_setup,
	.wrap = tool_wrap, .child_prep = tool_child_prep, .spawned = tool_spawned,
	.start = cmd_start, .stop = tool_stop, .teardown = cmd_teardown,
};
