/*
 * The ops every tool tracer shares (tool.h): a tool file gives its command
 * line and reads its counts; this file runs the tool around each traced run.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/activity.h"
#include "base/signals.h"
#include "base/util.h"
#include "tracers/tools/tool.h"

/* The tool's own once set up (a cmd: template builds its own), else the family's. */
static const struct tool_spec *spec_of(const struct tracer *t)
{
	const struct tool *tl = t->priv;

	return tl ? tl->spec : t->ops->data;
}

void tool_missing(char *reason, size_t len, const char *prog, const char *package)
{
	if (package)
		snprintf(reason, len, "'%s' is not installed (Debian package '%s')", prog, package);
	else
		snprintf(reason, len, "'%s' is not installed (not in PATH)", prog);
}

int tool_supported(const struct tracer *t, char *reason, size_t len)
{
	const struct tool_spec *spec = spec_of(t);
	char path[PATH_MAX];

	if (path_which(spec->prog, path, sizeof(path))) {
		tool_missing(reason, len, spec->prog, spec->package);
		return TT_SKIP;
	}
	return spec->supported ? spec->supported(t, reason, len) : TT_OK;
}

int tool_setup(struct tracer *t)
{
	return tool_setup_spec(t, t->ops->data);
}

int tool_setup_spec(struct tracer *t, const struct tool_spec *spec)
{
	struct tool *tl = calloc(1, sizeof(*tl));

	if (!tl)
		return tracer_error(t, "cannot allocate tool state");
	tl->spec = spec;
	tl->pid = -1;
	tl->pidfd = tl->out_fd = tl->err_fd = -1;
	tl->status = -1;
	t->priv = tl;
	if (path_which(spec->prog, tl->path, sizeof(tl->path))) {
		char why[256];

		tool_missing(why, sizeof(why), spec->prog, spec->package);
		return tracer_skip(t, "%s", why);
	}
	if (tool_dir_create(tl, t->err, sizeof(t->err)))
		return TT_FAIL;
	return TT_OK;
}

/* Before each run: a fresh directory, the command line for this run. */
static int prepare(struct tracer *t, struct tool *tl, pid_t pid)
{
	tool_forget(tl);	/* one left over from a failed run */
	tl->status = -1;
	tl->launched = tl->ready = tl->detached = tl->exited = 0;
	tl->load_pid = pid;
	if (tool_files_open(tl, t->err, sizeof(t->err)))
		return -1;
	tool_argv_reset(&tl->av, tl->path);
	/* TRACETAX_FAULT=NAME@tool-error: the tool itself refuses its command line */
	if (tracer_fault(t, "tool-error"))
		tool_arg(&tl->av, "--tracetax-no-such-option");
	if (tl->spec->args(t, tl, pid, &tl->av))
		return -1;
	if (tl->av.overflow) {
		tracer_error(t, "command line of '%s' is too long", tl->spec->prog);
		return -1;
	}
	return 0;
}

/*
 * Wrap mode: the words before the workload's. A run that cannot be
 * prepared still gets words (the core would otherwise run the workload
 * untraced): child_prep then refuses to exec and spawned() says why.
 */
char *const *tool_wrap(struct tracer *t)
{
	struct tool *tl = t->priv;

	if (spec_of(t)->mode != TOOL_WRAP)
		return NULL;
	if (prepare(t, tl, 0)) {
		tool_files_close(tl);
		tool_argv_reset(&tl->av, tl->path);
	}
	tl->launched = now_ns();
	return tl->av.v;
}

/* In the forked child, before exec: async-signal-safe calls only. */
int tool_child_prep(struct tracer *t)
{
	struct tool *tl = t->priv;
	int null;

	if (spec_of(t)->mode != TOOL_WRAP)
		return 0;
	if (tl->out_fd < 0)
		return -1;	/* prepare() failed: spawned() says why */
	setpgid(0, 0);
	null = open("/dev/null", O_RDONLY);
	if (null < 0 || dup2(null, 0) < 0 || dup2(tl->out_fd, 1) < 0 || dup2(tl->err_fd, 2) < 0 ||
	    chdir(tl->dir))
		return -1;
	return 0;
}

int tool_spawned(struct tracer *t, pid_t pid)
{
	struct tool *tl = t->priv;

	if (spec_of(t)->mode != TOOL_WRAP)
		return TT_OK;
	tl->pid = pid;
	tl->reap = false;	/* the core's child: the core reaps it */
	setpgid(pid, pid);	/* both sides: the group exists before either goes on */
	tl->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (tl->out_fd < 0)
		return TT_FAIL;	/* prepare() failed, and said why in t->err */
	if (tl->pidfd < 0)
		return tracer_error(t, "pidfd_open of '%s': %s", tl->spec->prog, strerror(errno));
	return TT_OK;
}

/* Attach mode: launched now, attached once its output says so. */
static int launch(struct tracer *t, struct tool *tl, pid_t pid)
{
	if (prepare(t, tl, pid))
		return TT_FAIL;
	tl->launched = now_ns();
	tl->pid = tool_fork(tl, tl->av.v, tl->out_fd, tl->err_fd, t->err, sizeof(t->err));
	if (tl->pid < 0)
		return TT_FAIL;
	tl->reap = true;
	tl->pidfd = (int)syscall(SYS_pidfd_open, tl->pid, 0);
	if (tl->pidfd < 0)
		return tracer_error(t, "pidfd_open of '%s': %s", tl->spec->prog, strerror(errno));
	if (tl->spec->ready)
		return tool_wait_output(tl, tl->spec->ready, TOOL_READY_MS, t->err, sizeof(t->err)) ?
		       TT_FAIL : TT_OK;
	/* nothing it prints says so (a cmd: without --ready): attached if alive after a grace */
	if (tool_wait_exit(tl, TOOL_GRACE_MS) == 0 || signals_interrupted()) {
		char words[200];

		tool_last_words(tl, words, sizeof(words));
		return tracer_error(t, "'%s' %s before it was attached: %s", tl->spec->prog,
				    signals_interrupted() ? "interrupted" : "exited", words);
	}
	return TT_OK;
}

int tool_start(struct tracer *t, pid_t pid)
{
	struct tool *tl = t->priv;

	if (spec_of(t)->mode == TOOL_ATTACH) {
		if (launch(t, tl, pid))
			return TT_FAIL;
	} else if (tl->pid <= 0) {
		return tracer_error(t, "'%s' is not running", tl->spec->prog);
	}
	tl->load_pid = pid;
	tl->ready = now_ns();
	/* its BPF programs are ours, even while the kernel frees them after it exits */
	activity_own_bpf_of(tl->pid);
	return TT_OK;
}

static int exit_error(struct tracer *t, struct tool *tl, int st)
{
	char words[200];

	tool_last_words(tl, words, sizeof(words));
	if (WIFSIGNALED(st))
		return tracer_error(t, "'%s' killed by signal %d: %s", tl->spec->prog, WTERMSIG(st),
				    words);
	return tracer_error(t, "'%s' exited with status %d: %s", tl->spec->prog, WEXITSTATUS(st),
			    words);
}

/*
 * Waits up to TOOL_EXIT_MS for the tool to exit; a tool whose spec has
 * resignal_ms gets its detach signal again at that interval meanwhile.
 */
static int wait_exit_resignal(struct tool *tl)
{
	int step = tl->spec->resignal_ms, waited = 0;

	if (tl->spec->mode != TOOL_ATTACH || !tl->spec->detach_signal || step <= 0)
		return tool_wait_exit(tl, TOOL_EXIT_MS);
	for (;;) {
		int ms = TOOL_EXIT_MS - waited < step ? TOOL_EXIT_MS - waited : step;

		if (!tool_wait_exit(tl, ms))
			return 0;
		waited += ms;
		if (waited >= TOOL_EXIT_MS || signals_interrupted())
			return -1;
		tool_signal(tl, tl->spec->detach_signal);
	}
}

/*
 * Wrap mode: the workload has exited (the core waited for it), the tool
 * follows. Attach mode: the signal makes it detach, print and exit. Either
 * way the wait is bounded, and the whole group is killed afterwards.
 */
int tool_stop(struct tracer *t, struct tt_hits *out)
{
	struct tool *tl = t->priv;
	int st;

	*out = (struct tt_hits){ .hits = -1, .lost = 0, .stops = -1 };
	if (tl->pid <= 0)
		return tracer_error(t, "'%s' is not running", tl->spec->prog);
	tl->detached = now_ns();
	if (tl->spec->mode == TOOL_ATTACH && tl->spec->detach_signal)
		tool_signal(tl, tl->spec->detach_signal);
	if (wait_exit_resignal(tl)) {
		tool_forget(tl);
		return tracer_error(t, "'%s' did not exit within %d s%s", tl->spec->prog,
				    TOOL_EXIT_MS / 1000, signals_interrupted() ? " (interrupted)" : "");
	}
	st = tl->status;
	tool_forget(tl);	/* what it forked and left behind goes with it */
	tool_files_close(tl);
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		return exit_error(t, tl, st);
	if (tl->ready)
		out->startup_ms = (double)(tl->ready - tl->launched) / 1e6;
	out->shutdown_ms = (double)(tl->exited - tl->detached) / 1e6;
	return tl->spec->count(t, tl, out);
}

void tool_teardown(struct tracer *t)
{
	struct tool *tl = t->priv;

	if (!tl)
		return;
	tool_forget(tl);
	tool_files_close(tl);
	tool_dir_remove(tl);
	free(tl);
	t->priv = NULL;
}

/* A helper of the tool (perf script, uftrace report), bounded, its stdout to @out_name. */
int tool_run(struct tracer *t, struct tool *tl, char *const argv[], const char *out_name,
	     int timeout_ms)
{
	char path[PATH_MAX], errname[128];
	struct tool h = *tl;
	int out, err, rc;

	snprintf(errname, sizeof(errname), "%s.err", out_name);
	tool_file(tl, out_name, path, sizeof(path));
	out = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	tool_file(tl, errname, path, sizeof(path));
	err = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (out < 0 || err < 0) {
		rc = tracer_error(t, "cannot create '%s': %s", path, strerror(errno));
		goto out;
	}
	h.pid = tool_fork(&h, argv, out, err, t->err, sizeof(t->err));
	h.reap = true;
	h.pidfd = h.pid > 0 ? (int)syscall(SYS_pidfd_open, h.pid, 0) : -1;
	if (h.pid < 0 || h.pidfd < 0) {
		tool_forget(&h);
		rc = h.pid < 0 ? TT_FAIL : tracer_error(t, "pidfd_open: %s", strerror(errno));
		goto out;
	}
	rc = tool_wait_exit(&h, timeout_ms) ? -1 : h.status;
	tool_forget(&h);
	if (rc) {
		char *text = tool_slurp(tl, errname);

		text = text ? text : strdup("");
		if (text)
			text[strcspn(text, "\n")] = '\0';
		rc = tracer_error(t, "'%s' %s: %s", argv[0], rc < 0 ? "did not finish in time" :
				  "failed", text && *text ? text : "no message");
		free(text);
	}
out:
	if (out >= 0)
		close(out);
	if (err >= 0)
		close(err);
	return rc;
}
