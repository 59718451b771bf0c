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

#include "base/workdir.h"
#include "measure/child.h"
#include "measure/cmdload.h"
#include "base/signals.h"
#include "base/tracefs_util.h"
#include "base/util.h"


int cmdload_check(const char *workload, char *err, size_t len)
{
	struct cmdline c;
	char why[160];

	if (strncmp(workload, "cmd:", 4)) {
		snprintf(err, len, "workload 'cmd' needs a command: cmd:'COMMAND'");
		return -1;
	}
	if (cmdline_split(workload + 4, &c, why, sizeof(why))) {
		/* the reason must survive a command of thousands of characters */
		int cut = strlen(workload) > 60;

		snprintf(err, len, "invalid command of workload '%.*s%s': %s", cut ? 56 : 60,
			 workload, cut ? "..." : "", why);
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
void cmdload_close_counters(struct cmdload *cl)
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
		cmdload_close_counters(cl);
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

