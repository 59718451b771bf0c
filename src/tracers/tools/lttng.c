/*
 * lttng-ust, the tool over a tracepoint compiled into the program: the
 * neighbour of inline (a record the loop writes itself), preload (a
 * wrapper, in process) and bpf:usdt (a site the kernel traps on).
 *
 * lttng-ust  the func-ust workload's tracepoint tracetax:func (src/load/ust.h)
 *            is a flag test in the loop; LD_PRELOAD of our probe provider
 *            (build/libtracetax-ust.so) brings liblttng-ust, which
 *            registers the process with the session daemon and, once the
 *            event is enabled, makes the site call the probe: it reserves
 *            room in a per-CPU ring buffer shared with the consumer daemon,
 *            writes a compact header (timestamp, event id) and the field,
 *            and commits, with no syscall and no formatting. lttng-consumerd
 *            copies full sub-buffers to files; a full ring discards events
 *            (the channel's discard mode), which `lttng` counts.
 *
 * Each traced run gets its own lttng-sessiond (lttng_daemon.c), session,
 * channel sized from the run's events, and event, all before the workload
 * is spawned; LTTNG_UST_REGISTER_TIMEOUT makes liblttng-ust's constructor
 * wait until the daemon has registered the process and enabled its event,
 * so the workload's ready line comes after that, and start() checks the
 * daemon lists the workload's pid. Start-up is launch of the daemon to that
 * check; shut-down is `lttng stop` (which waits until the consumer has
 * written every sub-buffer), `lttng destroy` and the daemons' exit. Hits
 * are the events babeltrace2's counter reads from the trace afterwards
 * (untimed); lost the discarded events `lttng` reports.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "load/workloads.h"
#include "tracers/tracer.h"
#include "base/util.h"
#include "tracers/tools/lttng.h"

#define PROVIDER_LIB "libtracetax-ust.so"
#define SESSION "tracetax"
#define CHANNEL "tracetax"
#define TRACE_DIR "trace"
#define REGISTER_MS "8000"     /* below the core's 10 s wait for the ready line */
#define EVENT_BYTES 32         /* a compact header, the 8-byte field, padding */
#define SUBBUFS 4
#define COUNT_MS 120000

static const struct tool_spec sessiond_spec = { .prog = "lttng-sessiond", .package = "lttng-tools" };

/* The provider sits next to tracetax-load (or next to us, for `tracetax list`). */
static int provider_path(const struct tracer *t, char out[PATH_MAX])
{
	char dir[PATH_MAX], rel[PATH_MAX + sizeof(PROVIDER_LIB) + 1];
	const char *slash;
	ssize_t n;

	if (t->load_path) {
		snprintf(dir, sizeof(dir), "%s", t->load_path);
	} else {
		if ((n = readlink("/proc/self/exe", dir, sizeof(dir) - 1)) < 0)
			return -1;
		dir[n] = '\0';
	}
	slash = strrchr(dir, '/');
	snprintf(rel, sizeof(rel), "%.*s/%s", slash ? (int)(slash - dir) : 1, slash ? dir : ".",
		 PROVIDER_LIB);
	return realpath(rel, out) ? 0 : -1;
}

static int lt_supported(const struct tracer *t, char *reason, size_t len)
{
	static const char *const progs[] = { "lttng", "lttng-sessiond", "babeltrace2" };
	static const char *const packages[] = { "lttng-tools", "lttng-tools", "babeltrace2" };
	char path[PATH_MAX];
	pid_t other;

	for (size_t i = 0; i < sizeof(progs) / sizeof(progs[0]); i++) {
		if (path_which(progs[i], path, sizeof(path))) {
			tool_missing(reason, len, progs[i], packages[i]);
			return TT_SKIP;
		}
	}
	if (provider_path(t, path)) {
		snprintf(reason, len, "no '%s' next to tracetax-load: built without liblttng-ust-dev",
			 PROVIDER_LIB);
		return TT_SKIP;
	}
	if (geteuid() != 0) {
		snprintf(reason, len, "needs root: tracetax runs a root lttng-sessiond of its own");
		return TT_SKIP;
	}
	if ((other = lttng_other_sessiond()) > 0) {
		snprintf(reason, len, "another lttng-sessiond is running (pid %d): tracetax starts "
			 "its own and leaves that one alone", (int)other);
		return TT_SKIP;
	}
	return TT_OK;
}

static int lt_setup(struct tracer *t)
{
	struct lttng *l = calloc(1, sizeof(*l));
	const char *home = getenv("LTTNG_HOME");

	if (!l)
		return tracer_error(t, "cannot allocate tool state");
	t->priv = l;
	l->tl.spec = &sessiond_spec;
	l->tl.pid = -1;
	l->tl.pidfd = l->tl.out_fd = l->tl.err_fd = -1;
	l->tl.status = -1;
	if ((l->had_home = home != NULL) && !(l->old_home = strdup(home)))
		return tracer_error(t, "cannot allocate tool state");
	if (path_which("lttng-sessiond", l->tl.path, sizeof(l->tl.path)) ||
	    path_which("lttng", l->lttng, sizeof(l->lttng)) ||
	    path_which("babeltrace2", l->bt, sizeof(l->bt)) || provider_path(t, l->provider))
		return lt_supported(t, t->err, sizeof(t->err));
	if (tool_dir_create(&l->tl, t->err, sizeof(t->err)))
		return TT_FAIL;
	/* the client's ~/.lttngrc and the daemon's ~/.lttng: ours, removed with the directory */
	tool_file(&l->tl, "home", l->home, sizeof(l->home));
	if (setenv("LTTNG_HOME", l->home, 1))
		return tracer_error(t, "cannot set LTTNG_HOME: %s", strerror(errno));
	return TT_OK;
}

/* Room for the whole run in each CPU's ring, within reason: it is drained as it fills. */
static uint64_t subbuf_bytes(const struct tracer *t)
{
	uint64_t want = (uint64_t)(t->events_hint > 0 ? t->events_hint : 1) * EVENT_BYTES / SUBBUFS;
	uint64_t sz = 1 << 20;

	while (sz < want && sz < (64u << 20))
		sz <<= 1;
	return sz;
}

/* The daemon, the session, its channel and event, started: before the workload exists. */
static int arm(struct tracer *t, struct lttng *l)
{
	char out[PATH_MAX + 16], size[32], nsub[16], event[64];
	const char *ev = workload_ust(t->workload);

	snprintf(event, sizeof(event), "%s", ev ? ev : "");
	snprintf(size, sizeof(size), "--subbuf-size=%" PRIu64, subbuf_bytes(t));
	snprintf(nsub, sizeof(nsub), "--num-subbuf=%d", SUBBUFS);
	if (lttng_daemon_start(t, l))
		return TT_FAIL;
	snprintf(out, sizeof(out), "--output=%s/%s", l->tl.dir, TRACE_DIR);
	if (lttng_cmd(t, l, "create.out", "create", SESSION, out, NULL))
		return TT_FAIL;
	l->session = true;
	if (lttng_cmd(t, l, "channel.out", "enable-channel", "-u", "-s", SESSION, size, nsub,
		      CHANNEL, NULL) ||
	    lttng_cmd(t, l, "event.out", "enable-event", "-u", "-s", SESSION, "-c", CHANNEL, event,
		      NULL) ||
	    lttng_cmd(t, l, "start.out", "start", SESSION, NULL))
		return TT_FAIL;
	l->armed = true;
	return TT_OK;
}

/* The run's pre-fork step: the core's wrap op, with no words to put before the workload. */
static char *const *lt_wrap(struct tracer *t)
{
	struct lttng *l = t->priv;

	l->armed = l->session = false;
	lttng_daemon_stop(l);	/* one left over from a failed run */
	l->launched = now_ns();
	l->ready = l->detached = l->exited = 0;
	arm(t, l);
	return NULL;
}

/* In the forked child: our provider first, and a constructor that waits for the daemon. */
static int lt_child_prep(struct tracer *t)
{
	struct lttng *l = t->priv;

	if (!l->armed)
		return -1;	/* arm() failed: spawned() says why */
	return setenv("LD_PRELOAD", l->provider, 1) ||
	       setenv("LTTNG_UST_REGISTER_TIMEOUT", REGISTER_MS, 1) ? -1 : 0;
}

static int lt_spawned(struct tracer *t, pid_t pid)
{
	struct lttng *l = t->priv;

	(void)pid;
	return l->armed ? TT_OK : TT_FAIL;	/* t->err says why */
}

/* Registered, proven: the daemon lists the workload's pid among its applications. */
static int lt_start(struct tracer *t, pid_t pid)
{
	struct lttng *l = t->priv;
	char want[32], *text;
	bool found;

	if (!l->armed)
		return tracer_error(t, "lttng session is not started");
	if (lttng_cmd(t, l, "apps.out", "list", "-u", NULL))
		return TT_FAIL;
	snprintf(want, sizeof(want), "PID: %d ", (int)pid);
	text = tool_slurp(&l->tl, "apps.out");
	found = text && strstr(text, want);
	free(text);
	if (!found)
		return tracer_error(t, "the workload (pid %d) did not register with lttng-sessiond "
				    "within %s ms", (int)pid, REGISTER_MS);
	l->ready = now_ns();
	return TT_OK;
}

/* The number before @label on the last line that has it ("  100000 Event messages"); -1: none. */
static int64_t last_count(const char *text, const char *label)
{
	int64_t n = -1;

	for (const char *p = text; p && (p = strstr(p, label)); p += strlen(label)) {
		const char *b = p;

		while (b > text && b[-1] == ' ')
			b--;
		while (b > text && b[-1] >= '0' && b[-1] <= '9')
			b--;
		if (b < p && *b >= '0' && *b <= '9')
			n = strtoll(b, NULL, 10);
	}
	return n;
}

/* Hits: the event messages babeltrace2's counter read from the trace (the only event enabled). */
static int lt_count(struct tracer *t, struct lttng *l, struct tt_hits *out)
{
	char trace[PATH_MAX];
	char *argv[] = { l->bt, trace, "-c", "sink.utils.counter", NULL };
	char *text;

	tool_file(&l->tl, TRACE_DIR, trace, sizeof(trace));
	if (tool_run(t, &l->tl, argv, "count.out", COUNT_MS))
		return TT_FAIL;
	text = tool_slurp(&l->tl, "count.out");
	out->hits = text ? last_count(text, " Event message") : -1;
	free(text);
	if (out->hits < 0)
		return tracer_error(t, "babeltrace2's counter printed no count of event messages");
	return TT_OK;
}

/*
 * Detached once the session stops: `lttng stop` waits until the consumer
 * has written out every sub-buffer. Its channel's statistics, read before
 * the session goes, say what a full ring discarded.
 */
static int lt_stop(struct tracer *t, struct tt_hits *out)
{
	struct lttng *l = t->priv;
	char *text = NULL, *p;
	int rc = TT_OK;

	*out = (struct tt_hits){ .hits = -1, .lost = 0, .stops = -1 };
	l->detached = now_ns();
	if (!l->armed) {
		lttng_daemon_stop(l);
		return tracer_error(t, "lttng session is not started");
	}
	if (lttng_cmd(t, l, "stop.out", "stop", SESSION, NULL) ||
	    lttng_cmd(t, l, "list.out", "list", SESSION, NULL))
		rc = TT_FAIL;
	else if (!(text = tool_slurp(&l->tl, "list.out")) || !(p = strstr(text, "Discarded events:")))
		rc = tracer_error(t, "'lttng list %s' shows no discarded events count", SESSION);
	else
		out->lost = strtoll(p + strlen("Discarded events:"), NULL, 10);
	free(text);
	if (!rc && lttng_cmd(t, l, "destroy.out", "destroy", SESSION, NULL))
		rc = TT_FAIL;
	l->armed = l->session = false;
	lttng_daemon_stop(l);
	l->exited = now_ns();
	if (rc)
		return rc;
	out->startup_ms = (double)(l->ready - l->launched) / 1e6;
	out->shutdown_ms = (double)(l->exited - l->detached) / 1e6;
	return lt_count(t, l, out);
}

static void lt_teardown(struct tracer *t)
{
	struct lttng *l = t->priv;

	if (!l)
		return;
	lttng_daemon_stop(l);
	tool_dir_remove(&l->tl);
	if (l->had_home)
		setenv("LTTNG_HOME", l->old_home, 1);
	else
		unsetenv("LTTNG_HOME");
	free(l->old_home);
	free(l);
	t->priv = NULL;
}

const struct tracer_ops tracer_lttng_ust = {
	.name = "lttng-ust",
	.hooks = TT_HOOK_UST,
	.summary = "LTTng-UST: a tracepoint in the loop, per-CPU ring buffers drained by "
		   "lttng-consumerd, counted by babeltrace2",
	.flags = TT_F_TOOL,
	.supported = lt_supported,
	.setup = lt_setup,
	.wrap = lt_wrap,
	.child_prep = lt_child_prep,
	.spawned = lt_spawned,
	.start = lt_start,
	.stop = lt_stop,
	.teardown = lt_teardown,
};
