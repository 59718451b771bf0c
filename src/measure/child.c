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
#include "base/spawn.h"
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

static size_t words(char *const *w)
{
	size_t n = 0;

	while (w && w[n])
		n++;
	return n;
}

/*
 * The child's words: a wrapping tool's (strace -f ...), then the load's
 * with its options; a cmd: workload's load only waits for go, then execs
 * the command (tracetax-load -w cmd ... -- COMMAND). Made here in the
 * parent, into @num (room for the numbers); free() the result.
 */
static char **load_argv(const struct load_spec *spec, char *const *wrap, char num[][32])
{
	char **argv = calloc(words(wrap) + words(spec->cmd) + 32, sizeof(*argv));
	size_t ac = 0;

	if (!argv)
		die("out of memory");
	for (size_t i = 0; wrap && wrap[i]; i++)
		argv[ac++] = wrap[i];
	snprintf(num[0], 32, "%d", START_FD);
	snprintf(num[1], 32, "%d", RESULT_FD);
	argv[ac++] = (char *)spec->load_path;
	argv[ac++] = "-w";
	if (spec->cmd) {
		argv[ac++] = "cmd";
		argv[ac++] = "--start-fd";
		argv[ac++] = num[0];
		argv[ac++] = "--result-fd";
		argv[ac++] = num[1];
		argv[ac++] = "--";
		argv[ac++] = (char *)spec->cmd_path;
		for (size_t i = 0; spec->cmd[i]; i++)
			argv[ac++] = spec->cmd[i];
		return argv;
	}
	snprintf(num[2], 32, "%lld", (long long)spec->iterations);
	snprintf(num[3], 32, "%lld", (long long)spec->warmup);
	snprintf(num[4], 32, "%d", spec->threads);
	argv[ac++] = (char *)spec->workload;
	argv[ac++] = "-n";
	argv[ac++] = num[2];
	argv[ac++] = "-W";
	argv[ac++] = num[3];
	argv[ac++] = "-t";
	argv[ac++] = num[4];
	argv[ac++] = "--start-fd";
	argv[ac++] = num[0];
	argv[ac++] = "--result-fd";
	argv[ac++] = num[1];
	if (spec->msg_size) {
		snprintf(num[5], 32, "%d", spec->msg_size);
		argv[ac++] = "--msg-size";
		argv[ac++] = num[5];
	}
	if (spec->cpu_offset) {
		snprintf(num[7], 32, "%d", spec->cpu_offset);
		argv[ac++] = "--cpu-offset";
		argv[ac++] = num[7];
	}
	if (spec->rate) {
		snprintf(num[8], 32, "%lld", (long long)spec->rate);
		argv[ac++] = "--rate";
		argv[ac++] = num[8];
	}
	if (spec->latency) {
		argv[ac++] = "--latency";
		if (spec->tsc_hz) {
			snprintf(num[6], 32, "%llu", (unsigned long long)spec->tsc_hz);
			argv[ac++] = "--tsc-hz";
			argv[ac++] = num[6];
		}
	}
	return argv;
}

static int tracer_prep(void *t)
{
	struct tracer *tr = t;

	return tr->ops->child_prep(tr);
}

int load_spawn(struct load_proc *lp, const struct load_spec *spec, struct tracer *t)
{
	int sp[2] = { -1, -1 }, rp[2] = { -1, -1 }, out = -1;
	char num[9][32], **argv;
	struct spawn sw = { .fd = { SPAWN_INHERIT, SPAWN_INHERIT, SPAWN_INHERIT } };
	char *const *wrap;

	memset(lp, 0, sizeof(*lp));
	lp->pid = lp->load_pid = -1;
	lp->pidfd = lp->load_pidfd = lp->start_w = lp->result_r = -1;
	if (pipe2(sp, O_CLOEXEC) || pipe2(rp, O_CLOEXEC)) {
		lp_fail(lp, "cannot create pipes: %s", strerror(errno));
		goto fail;
	}
	/* a command's output goes to a file, and it has nothing to read */
	if (spec->cmd &&
	    (out = open(spec->cmd_out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)) < 0) {
		lp_fail(lp, "cannot create '%s': %s", spec->cmd_out, strerror(errno));
		goto fail;
	}
	if (tracer_prefork(t)) {
		lp_fail(lp, "tracer '%s' failed before the fork: %s", t->name, t->err);
		goto fail;
	}
	wrap = tracer_wrap(t);
	argv = load_argv(spec, wrap, num);
	sw.argv = argv;
	sw.move[0][0] = sp[0];
	sw.move[0][1] = START_FD;
	sw.move[1][0] = rp[1];
	sw.move[1][1] = RESULT_FD;
	sw.nmove = 2;
	if (spec->cmd)
		sw.fd[0] = SPAWN_DEVNULL, sw.fd[1] = sw.fd[2] = out;
	if (t && t->ops->child_prep)
		sw.prep = tracer_prep, sw.prep_arg = t;
	lp->pid = spawn_start(&sw, lp->err, sizeof(lp->err));
	free(argv);
	if (lp->pid < 0)
		goto fail;
	lp->wrapped = wrap != NULL;
	if (out >= 0)
		close(out);
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
fail:
	for (int i = 0; i < 2; i++) {
		if (sp[i] >= 0)
			close(sp[i]);
		if (rp[i] >= 0)
			close(rp[i]);
	}
	if (out >= 0)
		close(out);
	return -1;
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
