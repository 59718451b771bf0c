/* The cmd:'COMMAND' workload: see cmdload.h. */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cell.h"
#include "cmdload.h"
#include "signals.h"
#include "stats.h"
#include "tracefs_util.h"
#include "tracers/tool.h"
#include "tracers/tool_proc.h"
#include "util.h"

#define OUTPUT_FILE "output"

int cmdload_check(const char *workload, char *err, size_t len)
{
	struct cmdline c;
	char why[160];

	if (strncmp(workload, "cmd:", 4)) {
		snprintf(err, len, "workload 'cmd' needs a command: cmd:'COMMAND'");
		return -1;
	}
	if (cmdline_split(workload + 4, &c, why, sizeof(why))) {
		snprintf(err, len, "invalid command of workload '%s': %s", workload, why);
		return -1;
	}
	if (!c.n) {
		snprintf(err, len, "workload '%s' has no command", workload);
		return -1;
	}
	return 0;
}

/* A counter of the tracepoint on @pid, from its exec: @tree follows its children. */
static int open_counter(const struct cmdload *cl, pid_t pid, bool tree)
{
	struct perf_event_attr a;
	long id = tt_tracefs_event_id(cl->tp_system, cl->tp_event);

	if (id < 0)
		return -1;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_TRACEPOINT;
	a.config = (uint64_t)id;
	a.disabled = 1;
	a.enable_on_exec = 1;	/* the load's own syscalls before its exec are not the command's */
	a.inherit = tree;
	return (int)syscall(SYS_perf_event_open, &a, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

/* With inherit, children that exited have added theirs: read after the run. */
static int64_t read_counter(int fd)
{
	uint64_t v = 0;

	return fd >= 0 && read(fd, &v, sizeof(v)) == (ssize_t)sizeof(v) ? (int64_t)v : -1;
}

static void close_counters(struct cmdload *cl)
{
	if (cl->fd_tree >= 0)
		close(cl->fd_tree);
	if (cl->fd_main >= 0)
		close(cl->fd_main);
	cl->fd_tree = cl->fd_main = -1;
}

int cmdload_ready(struct cmdload *cl, struct load_proc *lp)
{
	lp->pgid = lp->load_pid;	/* the load made a group of its own before its ready line */
	if (!cl->counting)
		return 0;
	cl->fd_tree = open_counter(cl, lp->load_pid, true);
	cl->fd_main = open_counter(cl, lp->load_pid, false);
	if (cl->fd_tree < 0 || cl->fd_main < 0) {
		snprintf(lp->err, sizeof(lp->err), "cannot count tracepoint '%s:%s' of the command: %s",
			 cl->tp_system, cl->tp_event, strerror(errno));
		close_counters(cl);
		return -1;
	}
	return 0;
}

int cmdload_go_wait(struct cmdload *cl, struct load_proc *lp, struct load_result *res)
{
	struct pollfd p = { .fd = lp->load_pidfd >= 0 ? lp->load_pidfd : lp->pidfd, .events = POLLIN };
	uint64_t t0, deadline;
	double ns, per = cl->events > 0 ? (double)cl->events : 1;

	memset(res, 0, sizeof(*res));
	if (!(res->th = calloc(1, sizeof(*res->th))))
		die("out of memory");
	res->nthreads = 1;
	res->recorded = -1;
	t0 = now_ns();
	deadline = t0 + (uint64_t)cl->timeout_ms * 1000000ull;
	if (load_go(lp))
		return -1;
	/* the command is the load: its exit ends the run (a wrapping tool may still run) */
	while (poll(&p, 1, 100) <= 0) {
		if (signals_interrupted()) {
			snprintf(lp->err, sizeof(lp->err), "interrupted while the command ran");
			return -1;
		}
		if (now_ns() > deadline) {
			snprintf(lp->err, sizeof(lp->err), "command still ran after %d s: killed "
				 "(--cmd-timeout)", cl->timeout_ms / 1000);
			return -1;
		}
	}
	ns = (double)(now_ns() - t0);
	res->events = cl->events;
	res->th[0].cpu = -1;
	res->th[0].events = cl->events;
	res->th[0].ns_per_op = res->ns_per_op = ns / per;
	res->max_thread_ns = ns;
	return 0;
}

/* The last non-empty line of the command's output, into @buf. */
static void last_line(const char *path, char *buf, size_t len)
{
	char tail[4096];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	off_t end = fd >= 0 ? lseek(fd, 0, SEEK_END) : -1;
	ssize_t n;
	char *p;

	buf[0] = '\0';
	if (end < 0 || (n = pread(fd, tail, sizeof(tail) - 1, end > 4095 ? end - 4095 : 0)) <= 0) {
		if (fd >= 0)
			close(fd);
		return;
	}
	close(fd);
	tail[n] = '\0';
	while (n > 0 && (tail[n - 1] == '\n' || tail[n - 1] == '\r'))
		tail[--n] = '\0';
	p = strrchr(tail, '\n');
	snprintf(buf, len, "%s", p ? p + 1 : tail);
}

void cmdload_failed(struct cmdload *cl, int st, char *why, size_t len)
{
	char line[160];
	size_t l;

	if (st > 0) {
		cl->exit_status = WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st);
		last_line(cl->out, line, sizeof(line));
		if (WIFSIGNALED(st))
			snprintf(why, len, "command killed by signal %d", WTERMSIG(st));
		else
			snprintf(why, len, "command exited with status %d", WEXITSTATUS(st));
		l = strlen(why);
		if (*line)
			snprintf(why + l, len - l, ": %s", line);
	}
	l = strlen(why);
	snprintf(why + l, len - l, " (its output: %s)", cl->out);
	cl->keep = true;
}

static double mean_of(const double *v, int n)
{
	double s = 0;

	for (int i = 0; i < n; i++)
		s += v[i] / n;
	return s;
}

/* The counting pass: untraced runs with the counters on. 0, or -1 with the cell failed. */
static int count_pass(struct cell_ctx *x, struct cmdload *cl)
{
	double tree[CMDLOAD_COUNT_RUNS], main_[CMDLOAD_COUNT_RUNS], ms[CMDLOAD_COUNT_RUNS];
	struct load_result res;
	int ret = 0;

	cl->counting = true;
	for (int i = 0; i < CMDLOAD_COUNT_RUNS && !ret; i++) {
		ret = cell_run_base(x, &res);
		ms[i] = res.max_thread_ns / 1e6;
		load_result_release(&res);
		tree[i] = (double)read_counter(cl->fd_tree);
		main_[i] = (double)read_counter(cl->fd_main);
		close_counters(cl);
		if (!ret && (tree[i] < 0 || main_[i] < 0))
			ret = cell_fail(x->c, "cannot read the count of tracepoint '%s:%s'",
					cl->tp_system, cl->tp_event);
	}
	cl->counting = false;
	if (ret)
		return -1;
	cl->events = llround(mean_of(tree, CMDLOAD_COUNT_RUNS));
	cl->main_events = llround(mean_of(main_, CMDLOAD_COUNT_RUNS));
	cl->events_cv = cl->events > 0 ? stats_cv(tree, CMDLOAD_COUNT_RUNS) : 0;
	cl->run_ms = mean_of(ms, CMDLOAD_COUNT_RUNS);
	return 0;
}

int cmdload_prepare(struct cell_ctx *x)
{
	struct cmdload *cl = calloc(1, sizeof(*cl));
	struct tool *tl = calloc(1, sizeof(*tl));
	struct cell *c = x->c;
	char err[256];

	if (!cl || !tl)
		die("out of memory");
	x->cmd = cl;
	cl->fd_tree = cl->fd_main = -1;
	cl->exit_status = -1;
	cl->timeout_ms = x->a->cmd_timeout_s * 1000;
	snprintf(cl->tp_system, sizeof(cl->tp_system), "%s", x->t.tp_system);
	snprintf(cl->tp_event, sizeof(cl->tp_event), "%s", x->t.tp_event);
	if (cmdline_split(c->workload + 4, &cl->line, err, sizeof(err)) || !cl->line.n) {
		free(tl);
		return cell_fail(c, "invalid command of workload '%s'", c->workload);
	}
	if (tool_which(cl->line.w[0], cl->path, sizeof(cl->path))) {
		free(tl);
		return cell_fail(c, "command '%s' not found (not in PATH)", cl->line.w[0]);
	}
	/* a directory named as the tools' are: a tracetax killed leaves it to the next to remove */
	if (tool_dir_create(tl, err, sizeof(err))) {
		free(tl);
		return cell_fail(c, "%s", err);
	}
	snprintf(cl->dir, sizeof(cl->dir), "%s", tl->dir);
	snprintf(cl->out, sizeof(cl->out), "%s/" OUTPUT_FILE, cl->dir);
	free(tl);
	x->base.spec.cmd = x->traced.spec.cmd = cl->line.w;
	x->base.spec.cmd_path = x->traced.spec.cmd_path = cl->path;
	x->base.spec.cmd_out = x->traced.spec.cmd_out = cl->out;
	if (count_pass(x, cl))
		return -1;
	/* one op per run, of events ops: the core's ns per op is then ns per event */
	x->base.spec.iterations = x->traced.spec.iterations = cl->events > 0 ? cl->events : 1;
	x->base.spec.warmup = x->traced.spec.warmup = 0;
	x->base.expect_ms = x->traced.expect_ms = cl->run_ms;
	c->cmd.events_per_run = cl->events;
	c->cmd.main_events = cl->main_events;
	c->cmd.events_cv = cl->events_cv;
	c->cmd.run_ms = cl->run_ms;
	return 0;
}

void cmdload_release(struct cell_ctx *x)
{
	struct cmdload *cl = x->cmd;
	struct tool *tl;

	if (!cl)
		return;
	close_counters(cl);
	x->c->cmd.exit_status = cl->exit_status;
	if (cl->keep) {
		snprintf(x->c->cmd.output, sizeof(x->c->cmd.output), "%s", cl->out);
	} else if (*cl->dir && (tl = calloc(1, sizeof(*tl)))) {
		snprintf(tl->dir, sizeof(tl->dir), "%s", cl->dir);
		tool_dir_remove(tl);
		free(tl);
	}
	free(cl);
	x->cmd = NULL;
}
