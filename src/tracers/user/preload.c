/*
 * preload: an LD_PRELOAD interposer (build/libtracetax-preload.so, from
 * src/preload/) on the function each op calls -- the libc wrapper of the
 * *-libc workloads or tt_func. It counts per thread and, at the workload's
 * exit, writes "hits N" to a pipe of ours. No kernel is involved: this is
 * the price of a wrapper, the floor for user-space function tracing short
 * of inline instrumentation (see the cost notes in src/preload/preload.c).
 *
 * The pipe: both ends are close-on-exec in tracetax, so no other child
 * (baseline runs, external tools) inherits them; child_prep clears the flag
 * on the write end in the workload's own fd table only. stop() closes our
 * write end, so that once the workload has exited the read sees EOF instead
 * of waiting out a timeout, and makes a fresh pipe for the next run.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tracers/tracer.h"
#include "base/util.h"

#define PRELOAD_LIB "libtracetax-preload.so"
#define READ_TIMEOUT_MS 2000	/* the workload has exited: EOF comes at once */

struct preload {
	char lib[PATH_MAX];
	int rfd, wfd;
};

/* The functions libtracetax-preload.so defines, as TRACETAX_PRELOAD_FUNC. */
static const char *const interposable[] = {
#define WL_FUNC(name, ...) #name,
#include "load/workloads.def"
	NULL,
};

/*
 * The library sits next to tracetax-load: both come from the same build.
 * Without a load path (`tracetax list` probes bare tracers) we look next to
 * ourselves, where tracetax-load is found by default too.
 */
static int lib_path(const struct tracer *t, char out[PATH_MAX])
{
	char dir[PATH_MAX], rel[PATH_MAX + sizeof(PRELOAD_LIB) + 1];
	const char *slash;
	ssize_t n;

	if (t->load_path) {
		snprintf(dir, sizeof(dir), "%s", t->load_path);
	} else {
		n = readlink("/proc/self/exe", dir, sizeof(dir) - 1);
		if (n < 0)
			return -1;
		dir[n] = '\0';
	}
	slash = strrchr(dir, '/');
	if (slash)
		snprintf(rel, sizeof(rel), "%.*s/%s", (int)(slash - dir), dir, PRELOAD_LIB);
	else
		snprintf(rel, sizeof(rel), "./%s", PRELOAD_LIB);
	/* Absolute, so that it holds whatever directory the workload runs in. */
	return realpath(rel, out) ? 0 : -1;
}

static int func_known(const char *f)
{
	for (const char *const *p = interposable; *p; p++)
		if (!strcmp(*p, f))
			return 1;
	return 0;
}

static int preload_supported(const struct tracer *t, char *reason, size_t len)
{
	char lib[PATH_MAX];

	if (lib_path(t, lib) || access(lib, R_OK)) {
		snprintf(reason, len, "%s not built", PRELOAD_LIB);
		return TT_SKIP;
	}
	/* The dynamic linker splits LD_PRELOAD at spaces and colons. */
	if (strpbrk(lib, " :")) {
		snprintf(reason, len, "cannot preload '%s': the path has a space or colon", lib);
		return TT_SKIP;
	}
	/* No func: a bare probe (the core skips cells without one). */
	if (t->func && !func_known(t->func)) {
		snprintf(reason, len, "cannot interpose '%s': %s does not define it",
			 t->func, PRELOAD_LIB);
		return TT_SKIP;
	}
	return TT_OK;
}

static void close_pipe(struct preload *p)
{
	if (p->rfd >= 0)
		close(p->rfd);
	if (p->wfd >= 0)
		close(p->wfd);
	p->rfd = p->wfd = -1;
}

static int open_pipe(struct tracer *t, struct preload *p)
{
	int fds[2];

	if (pipe2(fds, O_CLOEXEC))
		return tracer_error(t, "cannot create pipe: %s", strerror(errno));
	p->rfd = fds[0];
	p->wfd = fds[1];
	/* Only our end: the workload's write of its one line must block, not drop. */
	if (fcntl(p->rfd, F_SETFL, O_NONBLOCK)) {
		close_pipe(p);
		return tracer_error(t, "cannot make pipe non-blocking: %s", strerror(errno));
	}
	return TT_OK;
}

static int preload_setup(struct tracer *t)
{
	struct preload *p = calloc(1, sizeof(*p));

	if (!p)
		return tracer_error(t, "out of memory");
	p->rfd = p->wfd = -1;
	t->priv = p;
	if (lib_path(t, p->lib))
		return tracer_error(t, "cannot find '%s': %s", PRELOAD_LIB, strerror(errno));
	return open_pipe(t, p);
}

/* In the forked child: our library first in line, and where to report. */
static int preload_child_prep(struct tracer *t)
{
	struct preload *p = t->priv;
	const char *old = getenv("LD_PRELOAD");
	char fd[16], list[2 * PATH_MAX];

	if (p->wfd < 0)
		return -1;
	/* Our fd table is the child's own now: the flag stays set in tracetax. */
	if (!t->func || fcntl(p->wfd, F_SETFD, 0))
		return -1;
	if (old && *old)
		snprintf(list, sizeof(list), "%s:%s", old, p->lib);
	else
		snprintf(list, sizeof(list), "%s", p->lib);
	snprintf(fd, sizeof(fd), "%d", p->wfd);
	if (setenv("LD_PRELOAD", list, 1) || setenv("TRACETAX_PRELOAD_FD", fd, 1) ||
	    setenv("TRACETAX_PRELOAD_FUNC", t->func, 1))
		return -1;
	return 0;
}

/*
 * A line still in the pipe now comes from an earlier workload that exited
 * without a stop() (its run failed before start): drop it, it is not ours.
 */
static int preload_start(struct tracer *t, pid_t pid)
{
	struct preload *p = t->priv;
	char buf[256];

	(void)pid;
	if (p->rfd < 0 && open_pipe(t, p))
		return TT_FAIL;
	while (read(p->rfd, buf, sizeof(buf)) > 0)
		;
	return TT_OK;
}

/* Reads what the workload wrote until EOF (all write ends closed). */
static ssize_t read_report(struct preload *p, char *buf, size_t len)
{
	uint64_t deadline = now_ns() + READ_TIMEOUT_MS * 1000000ull;
	size_t got = 0;

	while (got < len - 1) {
		struct pollfd pf = { .fd = p->rfd, .events = POLLIN };
		int64_t left = (int64_t)(deadline - now_ns()) / 1000000;
		ssize_t n;

		if (left <= 0)
			break;
		if (poll(&pf, 1, (int)left) < 0 && errno != EINTR)
			return -1;
		n = read(p->rfd, buf + got, len - 1 - got);
		if (n == 0)
			break;
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			return -1;
		if (n > 0)
			got += (size_t)n;
	}
	buf[got] = '\0';
	return (ssize_t)got;
}

static int parse_report(struct tracer *t, const char *buf, struct tt_hits *out)
{
	unsigned long long n;
	char nl;

	if (sscanf(buf, "hits %llu%c", &n, &nl) == 2 && nl == '\n' && n <= INT64_MAX) {
		out->hits = (int64_t)n;
		return TT_OK;
	}
	if (!strncmp(buf, "error ", 6))
		return tracer_error(t, "preload library failed: %.*s", (int)strcspn(buf + 6, "\n"),
				    buf + 6);
	if (!*buf)
		return tracer_error(t, "workload did not report its hits: '%s' not loaded or "
				    "the workload did not exit normally", PRELOAD_LIB);
	return tracer_error(t, "unexpected report from '%s': '%.*s'", PRELOAD_LIB,
			    (int)strcspn(buf, "\n"), buf);
}

static int preload_stop(struct tracer *t, struct tt_hits *out)
{
	struct preload *p = t->priv;
	char buf[256];
	ssize_t n;
	int ret;

	out->hits = -1;
	out->lost = 0;
	if (p->wfd >= 0)
		close(p->wfd);
	p->wfd = -1;
	n = read_report(p, buf, sizeof(buf));
	if (n < 0)
		ret = tracer_error(t, "cannot read the preload report: %s", strerror(errno));
	else
		ret = parse_report(t, buf, out);
	close_pipe(p);
	if (open_pipe(t, p) && !ret)
		ret = TT_FAIL;
	return ret;
}

static void preload_teardown(struct tracer *t)
{
	struct preload *p = t->priv;

	if (!p)
		return;
	close_pipe(p);
	free(p);
	t->priv = NULL;
}

const struct tracer_ops tracer_preload = {
	.name = "preload",
	.hooks = TT_HOOK_FUNC,
	.summary = "LD_PRELOAD wrapper on the called function (libc wrapper or tt_func), counting",
	.supported = preload_supported,
	.setup = preload_setup,
	.child_prep = preload_child_prep,
	.start = preload_start,
	.stop = preload_stop,
	.teardown = preload_teardown,
};
