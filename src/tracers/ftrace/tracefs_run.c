/*
 * One event recorded into our own instance, run after run: the part the
 * ftrace, uprobe and function tracers share. Buffers are sized so that a run
 * never wraps unless asked to (TRACETAX_FTRACE_BUFFER_KB), and the event is
 * enabled per run, not per cell, so that baseline runs never pay for it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tracefs.h>

#include "base/tracefs_util.h"
#include "tracers/tracer.h"
#include "base/util.h"

#define SUBBUF_SIZE 4096	/* default buffer_subbuf_size_kb */
#define SUBBUF_HDR 16		/* struct buffer_data_page: timestamp + commit */
#define BUFFER_CAP_KB (1024 * 1024)	/* per CPU; the kernel allocates it on every CPU */

int tt_buffer_kb_env(int64_t *kb, char *err, size_t len)
{
	const char *env = getenv(TT_BUFFER_ENV);

	if (!env)
		return 0;
	if (parse_i64(env, 1, INT32_MAX, kb)) {
		snprintf(err, len, "invalid %s '%s'", TT_BUFFER_ENV, env);
		return -1;
	}
	return 1;
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
int tt_buffer_kb_for(struct tracer *t, const char *system, const char *event, int64_t *kb)
{
	int64_t per_page, pages, cap, avail, events = t->events_hint;
	int rec = tt_tracefs_record_size(system, event);

	if (rec <= 0) {
		tracer_error(t, "cannot read format of event '%s:%s': %s", system, event,
			     strerror(errno));
		return -1;
	}
	per_page = (SUBBUF_SIZE - SUBBUF_HDR) / rec;
	pages = (events > 0 ? events : 1) / per_page + 1;
	pages += pages / 8 + 16;
	*kb = pages * (SUBBUF_SIZE / 1024);
	/* Room on every CPU must not take the machine's memory away from the workload. */
	avail = mem_available_kb();
	cap = avail > 0 ? avail / 4 / sysconf(_SC_NPROCESSORS_CONF) : BUFFER_CAP_KB;
	if (cap > BUFFER_CAP_KB)
		cap = BUFFER_CAP_KB;
	if (*kb > cap) {
		tracer_note(t, "ftrace buffer capped at %ld KiB per cpu (a run needs %ld): "
			    "events may be lost", cap, *kb);
		*kb = cap;
	}
	debug("'%s:%s': %d bytes per record, buffer %ld KiB per cpu", system, event, rec, *kb);
	return 0;
}

struct tracefs_instance *tt_instance_setup(int64_t kb, char *err, size_t len)
{
	struct tracefs_instance *inst = tt_instance_create(err, len);
	char buf[32];

	if (!inst)
		return NULL;
	/* A new instance starts with tracing on: keep it quiet until armed. */
	if (tracefs_trace_off(inst)) {
		snprintf(err, len, "cannot write 'tracing_on': %s", strerror(errno));
		goto fail;
	}
	snprintf(buf, sizeof(buf), "%ld", kb);
	if (tracefs_instance_file_write(inst, "buffer_size_kb", buf) < 0) {
		snprintf(err, len, "cannot set 'buffer_size_kb' to %s: %s", buf, strerror(errno));
		goto fail;
	}
	/* The workload's threads are born after start(): event-fork adds them to set_event_pid. */
	if (tracefs_option_enable(inst, TRACEFS_OPTION_EVENT_FORK)) {
		snprintf(err, len, "cannot enable option 'event-fork': %s", strerror(errno));
		goto fail;
	}
	return inst;
fail:
	tt_instance_destroy(&inst);
	return NULL;
}

int tt_instance_arm(struct tracefs_instance *inst, int pid, const char *system,
		    const char *event, char *err, size_t len)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%d", pid);
	if (tracefs_instance_file_write(inst, "set_event_pid", buf) < 0) {
		snprintf(err, len, "cannot write '%s' to 'set_event_pid': %s", buf, strerror(errno));
		return -1;
	}
	/* Opening 'trace' with O_TRUNC empties every CPU's buffer and zeroes its counters. */
	if (tracefs_instance_file_clear(inst, "trace")) {
		snprintf(err, len, "cannot clear 'trace': %s", strerror(errno));
		return -1;
	}
	/*
	 * While a syscall event is on, every task on the machine takes the
	 * slow syscall path; while a uprobe is on, every process mapping the
	 * file traps on it: the baseline runs of the cell must not pay that.
	 */
	if (tracefs_event_file_write(inst, system, event, "enable", "1") < 0) {
		snprintf(err, len, "cannot enable event '%s:%s': %s", system, event, strerror(errno));
		return -1;
	}
	if (tracefs_trace_on(inst)) {
		snprintf(err, len, "cannot write 'tracing_on': %s", strerror(errno));
		return -1;
	}
	return 0;
}

int tt_instance_disarm(struct tracefs_instance *inst, const char *system, const char *event)
{
	int ret = 0, e = 0;

	if (tracefs_trace_off(inst))
		ret = -1, e = errno;
	if (tracefs_event_file_write(inst, system, event, "enable", "0") < 0)
		ret = -1, e = errno;
	errno = e;
	return ret;
}
