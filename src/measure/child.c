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

#include "measure/child.h"
#include "base/hist.h"
#include "base/signals.h"
#include "tracers/tracer.h"
#include "base/util.h"

/* High fds so that wrapping tools (strace -o, ...) do not step on them. */
#define START_FD 100
#define RESULT_FD 101
/* A result line with every thread's histogram: 256 threads of ~2000 buckets fit. */
#define LINE_MAX_BYTES (64u << 20)

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

/*
 * cmd: workload: the load only waits for go, then execs the command
 * (tracetax-load -w cmd ... -- COMMAND), its output into spec->cmd_out and
 * nothing to read on its stdin.
 */
static int cmd_words(const struct load_spec *spec, char **load, size_t room)
{
	size_t ac = 7;
	int in = open("/dev/null", O_RDONLY), out;

	out = open(spec->cmd_out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (in < 0 || out < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(out, 2) < 0)
		_exit(126);
	load[ac++] = "--";
	load[ac++] = (char *)spec->cmd_path;
	for (size_t i = 0; spec->cmd[i] && ac < room - 1; i++)
		load[ac++] = spec->cmd[i];
	load[ac] = NULL;
	return 0;
}

static void child_exec(const struct load_spec *spec, struct tracer *t, char *const *wrap,
		       int start_r, int result_w)
{
	char n[32], w[32], th[32], sfd[16], rfd[16], hz[32], ms[16], off[16];
	/* the load's words, its options, then NULL (the initialiser zeroes the rest) */
	char *load[64] = { (char *)spec->load_path, "-w", (char *)spec->workload, "-n", n, "-W", w,
			   "-t", th, "--start-fd", sfd, "--result-fd", rfd };
	char *cmd[64] = { (char *)spec->load_path, "-w", "cmd", "--start-fd", sfd, "--result-fd", rfd };
	char *argv[WRAP_MAX + sizeof(load) / sizeof(load[0])];
	size_t k = 0, ac = 13;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	signals_unblock_in_child();
	if (dup2(start_r, START_FD) < 0 || dup2(result_w, RESULT_FD) < 0)
		_exit(126);
	snprintf(n, sizeof(n), "%lld", (long long)spec->iterations);
	snprintf(w, sizeof(w), "%lld", (long long)spec->warmup);
	snprintf(th, sizeof(th), "%d", spec->threads);
	snprintf(sfd, sizeof(sfd), "%d", START_FD);
	snprintf(rfd, sizeof(rfd), "%d", RESULT_FD);
	snprintf(hz, sizeof(hz), "%llu", (unsigned long long)spec->tsc_hz);
	snprintf(ms, sizeof(ms), "%d", spec->msg_size);
	if (spec->msg_size) {
		load[ac++] = "--msg-size";
		load[ac++] = ms;
	}
	if (spec->cpu_offset) {
		snprintf(off, sizeof(off), "%d", spec->cpu_offset);
		load[ac++] = "--cpu-offset";
		load[ac++] = off;
	}
	if (spec->latency) {
		load[ac++] = "--latency";
		if (spec->tsc_hz) {
			load[ac++] = "--tsc-hz";
			load[ac++] = hz;
		}
	}
	if (t && t->ops->child_prep && t->ops->child_prep(t))
		_exit(125);
	if (spec->cmd)
		cmd_words(spec, cmd, sizeof(cmd) / sizeof(cmd[0]));
	for (; wrap && wrap[k] && k < WRAP_MAX; k++)
		argv[k] = wrap[k];
	memcpy(argv + k, spec->cmd ? cmd : load, sizeof(load));
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

/* Room for another read; -1 past LINE_MAX_BYTES or out of memory. */
static int grow(struct load_proc *lp)
{
	size_t cap = lp->cap ? 2 * lp->cap : 16384;
	char *b;

	if (cap > LINE_MAX_BYTES || !(b = realloc(lp->buf, cap)))
		return -1;
	lp->buf = b;
	lp->cap = cap;
	return 0;
}

/* Reads until a full line is in buf; the line is returned NUL-terminated. */
static char *read_line(struct load_proc *lp, int timeout_ms, const char *what)
{
	uint64_t deadline = now_ns() + (uint64_t)timeout_ms * 1000000ull;

	for (;;) {
		char *nl = lp->len ? memchr(lp->buf, '\n', lp->len) : NULL;
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
		if (lp->cap - lp->len < 4096 && grow(lp)) {
			lp_fail(lp, "workload's %s is too long", what);
			return NULL;
		}
		n = read(lp->result_r, lp->buf + lp->len, lp->cap - 1 - lp->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			lp_fail(lp, "workload exited before its %s", what);
			return NULL;
		}
		lp->len += (size_t)n;
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

static int64_t int_of(json_t *o, const char *key)
{
	return json_integer_value(json_object_get(o, key));
}

/* A thread's "lat": exact figures and index, count pairs, merged into @h. */
static int merge_lat(struct hist *h, json_t *lat)
{
	json_t *b = json_object_get(lat, "b");
	struct hist one;
	size_t n = json_array_size(b);

	if (!json_is_object(lat) || !json_is_array(b) || n % 2)
		return -1;
	hist_init(&one);
	for (size_t i = 0; i < n; i += 2)
		if (hist_add_bucket(&one, (unsigned)json_integer_value(json_array_get(b, i)),
				    (uint64_t)json_integer_value(json_array_get(b, i + 1))))
			return -1;
	if (one.count)
		hist_set_exact(&one, (uint64_t)int_of(lat, "sum"),
			       json_number_value(json_object_get(lat, "sumsq")),
			       (uint64_t)int_of(lat, "min"), (uint64_t)int_of(lat, "max"));
	hist_merge(h, &one);
	return 0;
}

/* Every thread's figures; the mean over threads; the histograms merged. */
static int read_threads(struct load_result *res, json_t *per, int64_t iters)
{
	size_t n = json_array_size(per);

	res->th = calloc(n ? n : 1, sizeof(*res->th));
	if (!res->th)
		die("out of memory");
	res->nthreads = (int)n;
	for (size_t i = 0; i < n; i++) {
		json_t *th = json_array_get(per, i);
		struct load_thread *t = &res->th[i];
		double ns = (double)int_of(th, "ns");

		t->cpu = (int)int_of(th, "cpu");
		t->events = int_of(th, "events");
		t->ns_per_op = ns / (double)iters;
		t->cycles_per_op = (double)int_of(th, "cycles") / (double)iters;
		res->ns_per_op += t->ns_per_op / (double)n;
		res->cycles_per_op += t->cycles_per_op / (double)n;
		if (ns > res->max_thread_ns)
			res->max_thread_ns = ns;
		if (res->lat) {
			res->timer_ns += json_number_value(json_object_get(th, "timer_ns")) / (double)n;
			if (merge_lat(res->lat, json_object_get(th, "lat")))
				return -1;
		}
	}
	return 0;
}

int load_read_result(struct load_proc *lp, int timeout_ms, struct load_result *res)
{
	char *line = read_line(lp, timeout_ms, "result line");
	json_error_t jerr;
	json_t *doc, *per;
	int64_t iters;
	int bad;

	memset(res, 0, sizeof(*res));
	if (!line)
		return -1;
	doc = json_loads(line, 0, &jerr);
	if (!doc)
		return lp_fail(lp, "cannot parse workload result: %s", jerr.text);
	res->events = int_of(doc, "events");
	res->bad = int_of(doc, "bad");
	res->recorded = int_of(doc, "recorded");
	res->bytes_per_op = int_of(doc, "bytes_per_op");
	iters = int_of(doc, "iterations");
	per = json_object_get(doc, "per_thread");
	if (json_object_get(json_array_get(per, 0), "lat")) {
		if (!(res->lat = malloc(sizeof(*res->lat))))
			die("out of memory");
		hist_init(res->lat);
	}
	bad = !json_array_size(per) || iters <= 0;
	if (!bad && read_threads(res, per, iters))
		bad = 2;
	json_decref(doc);
	consume_line(lp);
	if (bad == 2)
		return lp_fail(lp, "workload result has a broken latency histogram");
	if (bad)
		return lp_fail(lp, "workload result has no per-thread timings");
	return 0;
}

void load_result_release(struct load_result *res)
{
	free(res->th);
	free(res->lat);
	res->th = NULL;
	res->lat = NULL;
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
	if (lp->pgid > 0)
		kill(-lp->pgid, SIGKILL);	/* what the command started, too */
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
	free(lp->buf);
	lp->buf = NULL;
	lp->len = lp->cap = 0;
	lp->pid = lp->load_pid = -1;
	lp->pgid = 0;
	lp->pidfd = lp->load_pidfd = lp->start_w = lp->result_r = -1;
	return st;
}
