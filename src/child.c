/*
 * The runner's side of the load protocol. Every wait has a timeout and also
 * watches a pidfd, so a dead or killed workload never hangs tracetax.
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child.h"
#include "signals.h"
#include "tracer.h"
#include "util.h"

/* High fds so that wrapping tools (strace -o, ...) do not step on them. */
#define START_FD 100
#define RESULT_FD 101

__attribute__((format(printf, 2, 3)))
static int lp_fail(struct load_proc *lp, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(lp->err, sizeof(lp->err), fmt, ap);
	va_end(ap);
	return -1;
}

/* The room a wrapping tool's words have before the load's own. */
#define WRAP_MAX 48

static void child_exec(const struct load_spec *spec, struct tracer *t, char *const *wrap,
		       int start_r, int result_w)
{
	char n[32], w[32], th[32], sfd[16], rfd[16];
	char *load[] = { (char *)spec->load_path, "-w", (char *)spec->workload, "-n", n, "-W", w,
			 "-t", th, "--start-fd", sfd, "--result-fd", rfd, NULL };
	char *argv[WRAP_MAX + sizeof(load) / sizeof(load[0])];
	size_t k = 0;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	signals_unblock_in_child();
	if (dup2(start_r, START_FD) < 0 || dup2(result_w, RESULT_FD) < 0)
		_exit(126);
	snprintf(n, sizeof(n), "%lld", (long long)spec->iterations);
	snprintf(w, sizeof(w), "%lld", (long long)spec->warmup);
	snprintf(th, sizeof(th), "%d", spec->threads);
	snprintf(sfd, sizeof(sfd), "%d", START_FD);
	snprintf(rfd, sizeof(rfd), "%d", RESULT_FD);
	if (t && t->ops->child_prep && t->ops->child_prep(t))
		_exit(125);
	for (; wrap && wrap[k] && k < WRAP_MAX; k++)
		argv[k] = wrap[k];
	memcpy(argv + k, load, sizeof(load));
	execv(argv[0], argv);
	_exit(127);
}

int load_spawn(struct load_proc *lp, const struct load_spec *spec, struct tracer *t)
{
	int sp[2], rp[2];

	char *const *wrap;

	memset(lp, 0, sizeof(*lp));
	lp->pid = lp->load_pid = -1;
	lp->pidfd = lp->load_pidfd = lp->start_w = lp->result_r = -1;
	if (pipe2(sp, O_CLOEXEC) || pipe2(rp, O_CLOEXEC))
		return lp_fail(lp, "cannot create pipes: %s", strerror(errno));
	wrap = tracer_wrap(t);	/* in the parent: the child only copies pointers */
	lp->pid = fork();
	if (lp->pid < 0) {
		lp_fail(lp, "cannot fork: %s", strerror(errno));
		close(sp[0]); close(sp[1]); close(rp[0]); close(rp[1]);
		return -1;
	}
	if (lp->pid == 0)
		child_exec(spec, t, wrap, sp[0], rp[1]);
	lp->wrapped = wrap != NULL;
	close(sp[0]);
	close(rp[1]);
	lp->start_w = sp[1];
	lp->result_r = rp[0];
	lp->pidfd = (int)syscall(SYS_pidfd_open, lp->pid, 0);
	if (lp->pidfd < 0) {
		kill(lp->pid, SIGKILL);	/* not reaped yet: the pid is still this child's */
		return lp_fail(lp, "pidfd_open: %s", strerror(errno));
	}
	signals_watch(lp->pidfd);
	return 0;
}

/* Reads until a full line is in buf; the line is returned NUL-terminated. */
static char *read_line(struct load_proc *lp, int timeout_ms, const char *what)
{
	uint64_t deadline = now_ns() + (uint64_t)timeout_ms * 1000000ull;

	for (;;) {
		char *nl = memchr(lp->buf, '\n', lp->len);
		struct pollfd p = { .fd = lp->result_r, .events = POLLIN };
		int64_t left = (int64_t)(deadline - now_ns()) / 1000000;
		ssize_t n;

		if (nl) {
			*nl = '\0';
			return lp->buf;
		}
		if (signals_interrupted()) {
			lp_fail(lp, "interrupted while waiting for the workload's %s", what);
			return NULL;
		}
		if (left <= 0) {
			lp_fail(lp, "workload gave no %s within %d ms", what, timeout_ms);
			return NULL;
		}
		if (poll(&p, 1, left > 200 ? 200 : (int)left) <= 0)
			continue;
		n = read(lp->result_r, lp->buf + lp->len, sizeof(lp->buf) - 1 - lp->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			lp_fail(lp, "workload exited before its %s", what);
			return NULL;
		}
		lp->len += (size_t)n;
		if (lp->len == sizeof(lp->buf) - 1) {
			lp_fail(lp, "workload's %s is too long", what);
			return NULL;
		}
	}
}

static void consume_line(struct load_proc *lp)
{
	size_t used = strlen(lp->buf) + 1;

	memmove(lp->buf, lp->buf + used, lp->len - used);
	lp->len -= used;
}

/*
 * The ready line names the workload's pid. Wrapped, the workload is the
 * tool's child, not ours: it is watched through a pidfd of its own, opened
 * while it waits for go and so cannot be gone and its pid reused.
 */
int load_wait_ready(struct load_proc *lp, int timeout_ms)
{
	char *line = read_line(lp, timeout_ms, "ready line"), *pid;

	if (!line)
		return -1;
	if (!strstr(line, "\"ready\":true"))
		return lp_fail(lp, "unexpected line from workload: '%s'", line);
	pid = strstr(line, "\"pid\":");
	lp->load_pid = pid ? (pid_t)strtol(pid + 6, NULL, 10) : lp->pid;
	consume_line(lp);
	if (lp->load_pid <= 0)
		return lp_fail(lp, "workload's ready line names no pid");
	if (lp->load_pid != lp->pid) {
		if (!lp->wrapped)
			return lp_fail(lp, "workload says it is pid %d, not %d", (int)lp->load_pid,
				       (int)lp->pid);
		lp->load_pidfd = (int)syscall(SYS_pidfd_open, lp->load_pid, 0);
		if (lp->load_pidfd < 0)
			return lp_fail(lp, "pidfd_open of workload %d: %s", (int)lp->load_pid,
				       strerror(errno));
	}
	return 0;
}

int load_go(struct load_proc *lp)
{
	if (write(lp->start_w, "g", 1) != 1)
		return lp_fail(lp, "cannot start workload: %s", strerror(errno));
	close(lp->start_w);
	lp->start_w = -1;
	return 0;
}

int load_read_result(struct load_proc *lp, int timeout_ms, struct load_result *res)
{
	char *line = read_line(lp, timeout_ms, "result line");
	json_error_t jerr;
	json_t *doc, *per;
	size_t i, n;
	int64_t iters;

	if (!line)
		return -1;
	doc = json_loads(line, 0, &jerr);
	if (!doc)
		return lp_fail(lp, "cannot parse workload result: %s", jerr.text);
	memset(res, 0, sizeof(*res));
	res->events = json_integer_value(json_object_get(doc, "events"));
	res->bad = json_integer_value(json_object_get(doc, "bad"));
	res->recorded = json_integer_value(json_object_get(doc, "recorded"));
	iters = json_integer_value(json_object_get(doc, "iterations"));
	per = json_object_get(doc, "per_thread");
	n = json_array_size(per);
	for (i = 0; i < n && iters > 0; i++) {
		json_t *th = json_array_get(per, i);
		double ns = (double)json_integer_value(json_object_get(th, "ns"));

		res->ns_per_op += ns / (double)iters / (double)n;
		res->cycles_per_op += (double)json_integer_value(json_object_get(th, "cycles")) /
				      (double)iters / (double)n;
		if (ns > res->max_thread_ns)
			res->max_thread_ns = ns;
	}
	json_decref(doc);
	consume_line(lp);
	if (!n || iters <= 0)
		return lp_fail(lp, "workload result has no per-thread timings");
	return 0;
}

int load_wait_exit(struct load_proc *lp, int timeout_ms)
{
	uint64_t deadline = now_ns() + (uint64_t)timeout_ms * 1000000ull;
	struct pollfd p = { .fd = lp->load_pidfd >= 0 ? lp->load_pidfd : lp->pidfd, .events = POLLIN };

	while (poll(&p, 1, 100) <= 0) {
		if (now_ns() > deadline)
			return lp_fail(lp, "workload did not exit within %d ms", timeout_ms);
	}
	return 0;
}

/* Wrapped, the tool and the workload: a tool killed with SIGKILL may leave it running. */
void load_kill(struct load_proc *lp)
{
	if (lp->pidfd >= 0)
		syscall(SYS_pidfd_send_signal, lp->pidfd, SIGKILL, NULL, 0);
	if (lp->load_pidfd >= 0)
		syscall(SYS_pidfd_send_signal, lp->load_pidfd, SIGKILL, NULL, 0);
}

int load_reap(struct load_proc *lp)
{
	int st = -1;

	if (lp->pid > 0) {
		struct pollfd p = { .fd = lp->pidfd, .events = POLLIN };

		if (lp->pidfd >= 0 && poll(&p, 1, 0) <= 0) {
			load_kill(lp);
			poll(&p, 1, 5000);
		}
		/* before the pid can be reaped and reused: the signal thread forgets it */
		signals_watch(-1);
		while (waitpid(lp->pid, &st, __WALL) < 0 && errno == EINTR)
			;
	}
	signals_watch(-1);	/* also when the fork failed */
	if (lp->pidfd >= 0)
		close(lp->pidfd);
	if (lp->load_pidfd >= 0)
		close(lp->load_pidfd);
	if (lp->start_w >= 0)
		close(lp->start_w);
	if (lp->result_r >= 0)
		close(lp->result_r);
	lp->pid = lp->load_pid = -1;
	lp->pidfd = lp->load_pidfd = lp->start_w = lp->result_r = -1;
	return st;
}
