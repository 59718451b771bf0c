/*
 * ftrace:syscall and ftrace:raw: a syscall tracepoint recorded into the ring
 * buffer of our own tracefs instance, with no reader. The buffer is sized so
 * that a run never wraps; the ring buffer's own counters give the hits, so a
 * buffer too small shows as lost events, never as a quietly lower count.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tracefs.h>

#include "../tracefs_util.h"
#include "../tracer.h"
#include "../util.h"

#define BUFFER_ENV "TRACETAX_FTRACE_BUFFER_KB"
#define SUBBUF_SIZE 4096	/* default buffer_subbuf_size_kb */
#define SUBBUF_HDR 16		/* struct buffer_data_page: timestamp + commit */
#define BUFFER_CAP_KB (1024 * 1024)	/* per CPU; the kernel allocates it on every CPU */

struct ftrace_priv {
	struct tracefs_instance *inst;
	const char *system, *event;
};

static bool is_raw(const struct tracer *t)
{
	return !strcmp(t->ops->name, "ftrace:raw");
}

static void event_of(const struct tracer *t, const char **system, const char **event)
{
	*system = is_raw(t) ? "raw_syscalls" : "syscalls";
	*event = is_raw(t) ? "sys_enter" : t->target->event;
}

static int ftrace_supported(const struct tracer *t, char *reason, size_t len)
{
	const char *system, *event;

	event_of(t, &system, &event);
	return tt_tracefs_probe(system, event, reason, len) ? TT_SKIP : TT_OK;
}

static int64_t mem_available_kb(void)
{
	char line[128];
	int64_t kb = -1;
	FILE *f = fopen("/proc/meminfo", "re");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %ld kB", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb;
}

/*
 * buffer_size_kb is per CPU, and every thread of the workload may run on the
 * same CPU, so each CPU's buffer must hold the whole run. Records are packed
 * into 4 KiB sub-buffers with a 16-byte header; the 1/8 margin covers the
 * time-extend records (one per gap over 134 ms), the page the writer cannot
 * fill before it wraps, and target calls the workload makes outside its loop.
 */
static int buffer_kb(struct tracer *t, int64_t *kb)
{
	const char *env = getenv(BUFFER_ENV), *system, *event;
	int64_t per_page, pages, cap, avail;
	int rec;

	if (env) {
		if (parse_i64(env, 1, INT32_MAX, kb))
			return tracer_error(t, "invalid %s '%s'", BUFFER_ENV, env);
		return 0;
	}
	event_of(t, &system, &event);
	rec = tt_tracefs_record_size(system, event);
	if (rec <= 0)
		return tracer_error(t, "cannot read format of event '%s:%s': %s",
				    system, event, strerror(errno));
	per_page = (SUBBUF_SIZE - SUBBUF_HDR) / rec;
	pages = (t->events_hint > 0 ? t->events_hint : 1) / per_page + 1;
	pages += pages / 8 + 16;
	*kb = pages * (SUBBUF_SIZE / 1024);
	/* Room on every CPU must not take the machine's memory away from the workload. */
	avail = mem_available_kb();
	cap = avail > 0 ? avail / 4 / sysconf(_SC_NPROCESSORS_CONF) : BUFFER_CAP_KB;
	if (cap > BUFFER_CAP_KB)
		cap = BUFFER_CAP_KB;
	if (*kb > cap) {
		warning("ftrace buffer for '%s' capped at %ld KiB per cpu (a run needs %ld): "
			"events may be lost", t->name, cap, *kb);
		*kb = cap;
	}
	debug("%s: %d bytes per record, buffer %ld KiB per cpu", t->name, rec, *kb);
	return 0;
}

static int ftrace_setup(struct tracer *t)
{
	struct ftrace_priv *p = calloc(1, sizeof(*p));
	char buf[64];
	int64_t kb;

	if (!p)
		return tracer_error(t, "out of memory");
	t->priv = p;
	event_of(t, &p->system, &p->event);
	if (buffer_kb(t, &kb))
		return TT_FAIL;
	p->inst = tt_instance_create(t->err, sizeof(t->err));
	if (!p->inst)
		return TT_FAIL;
	/* A new instance starts with tracing on: keep it quiet until start(). */
	if (tracefs_trace_off(p->inst))
		return tracer_error(t, "cannot write 'tracing_on': %s", strerror(errno));
	snprintf(buf, sizeof(buf), "%ld", kb);
	if (tracefs_instance_file_write(p->inst, "buffer_size_kb", buf) < 0)
		return tracer_error(t, "cannot set 'buffer_size_kb' to %s: %s", buf, strerror(errno));
	/* The workload's threads are born after start(): event-fork adds them to set_event_pid. */
	if (tracefs_option_enable(p->inst, TRACEFS_OPTION_EVENT_FORK))
		return tracer_error(t, "cannot enable option 'event-fork': %s", strerror(errno));
	if (is_raw(t)) {
		/*
		 * The filter runs on every syscall of the workload: its cost is
		 * part of what ftrace:raw measures. Events it rejects are
		 * built in a per-CPU scratch buffer and never reach the ring.
		 */
		snprintf(buf, sizeof(buf), "id == %ld", t->target->nr);
		if (tracefs_event_file_write(p->inst, p->system, p->event, "filter", buf) < 0)
			return tracer_error(t, "cannot set filter '%s' on '%s:%s': %s",
					    buf, p->system, p->event, strerror(errno));
	}
	return TT_OK;
}

static int ftrace_start(struct tracer *t, pid_t pid)
{
	struct ftrace_priv *p = t->priv;
	char buf[32];

	snprintf(buf, sizeof(buf), "%d", (int)pid);
	if (tracefs_instance_file_write(p->inst, "set_event_pid", buf) < 0)
		return tracer_error(t, "cannot write '%s' to 'set_event_pid': %s", buf, strerror(errno));
	/* Opening 'trace' with O_TRUNC empties every CPU's buffer and zeroes its counters. */
	if (tracefs_instance_file_clear(p->inst, "trace"))
		return tracer_error(t, "cannot clear 'trace': %s", strerror(errno));
	/*
	 * Enabled per run, not per cell: while any syscall event is on, every
	 * task on the machine takes the slow syscall path, and the baseline
	 * runs of this cell must not pay for it.
	 */
	if (tracefs_event_file_write(p->inst, p->system, p->event, "enable", "1") < 0)
		return tracer_error(t, "cannot enable event '%s:%s': %s",
				    p->system, p->event, strerror(errno));
	if (tracefs_trace_on(p->inst))
		return tracer_error(t, "cannot write 'tracing_on': %s", strerror(errno));
	return 0;
}

static int ftrace_disable(struct ftrace_priv *p)
{
	int ret = 0;

	if (tracefs_trace_off(p->inst))
		ret = -1;
	if (tracefs_event_file_write(p->inst, p->system, p->event, "enable", "0") < 0)
		ret = -1;
	return ret;
}

/*
 * The ring buffer's counters, summed over CPUs. entries are the records
 * still in the buffer, overrun the ones overwritten by newer records (we keep
 * the default overwrite mode), commit overrun the ones refused while a nested
 * writer held the page, dropped the ones refused in no-overwrite mode, read
 * the ones a reader consumed (none: we run no reader). All of them were
 * events the tracepoint fired for: hits counts them all, lost those that are
 * not in the buffer, so a small buffer shows as lost > 0 next to exact hits.
 */
static int ftrace_stop(struct tracer *t, struct tt_hits *out)
{
	struct ftrace_priv *p = t->priv;
	struct tt_rb_stats st;

	if (ftrace_disable(p))
		return tracer_error(t, "cannot stop event '%s:%s': %s",
				    p->system, p->event, strerror(errno));
	if (tt_instance_stats(p->inst, &st))
		return tracer_error(t, "cannot read ring-buffer stats of '%s': %s",
				    tracefs_instance_get_name(p->inst), strerror(errno));
	out->hits = st.entries + st.overrun + st.commit_overrun + st.dropped + st.read;
	out->lost = st.overrun + st.commit_overrun + st.dropped;
	out->consumer_ns = 0;
	debug("%s: entries %ld overrun %ld commit overrun %ld dropped %ld bytes %ld",
	      t->name, st.entries, st.overrun, st.commit_overrun, st.dropped, st.bytes);
	return 0;
}

static void ftrace_teardown(struct tracer *t)
{
	struct ftrace_priv *p = t->priv;

	if (!p)
		return;
	if (p->inst)
		ftrace_disable(p);
	tt_instance_destroy(&p->inst);
	free(p);
	t->priv = NULL;
}

const struct tracer_ops tracer_ftrace_syscall = {
	.name = "ftrace:syscall",
	.summary = "tracefs event syscalls:sys_enter_<target> into a ring buffer, no reader",
	.supported = ftrace_supported,
	.setup = ftrace_setup,
	.start = ftrace_start,
	.stop = ftrace_stop,
	.teardown = ftrace_teardown,
};

const struct tracer_ops tracer_ftrace_raw = {
	.name = "ftrace:raw",
	.summary = "tracefs event raw_syscalls:sys_enter filtered on the target, no reader",
	.supported = ftrace_supported,
	.setup = ftrace_setup,
	.start = ftrace_start,
	.stop = ftrace_stop,
	.teardown = ftrace_teardown,
};
