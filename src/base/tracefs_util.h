/*
 * tracefs helpers shared by the ftrace and uprobe tracers and by
 * `tracetax cleanup`. Everything tracetax creates in tracefs carries our pid
 * in its name (instance "tracetax-<pid>", dynamic event group
 * "tracetax_<pid>"), so that what a crashed run left behind can be told
 * apart from what a live tracetax, or the user, is using.
 */
#ifndef TRACETAX_TRACEFS_UTIL_H
#define TRACETAX_TRACEFS_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "base/owner.h"

struct tracefs_instance;
struct tracer;

#define TT_INSTANCE_PREFIX "tracetax-"
#define TT_DYNEVENT_PREFIX "tracetax_"

/* Ring-buffer counters of an instance, summed over its CPUs. */
struct tt_rb_stats {
	int64_t entries;   /* events in the buffer now */
	int64_t overrun;   /* events overwritten by newer ones (overwrite mode) */
	int64_t commit_overrun; /* overwritten while a nested writer held the page */
	int64_t dropped;   /* events refused because the buffer was full (no-overwrite mode) */
	int64_t read;      /* events consumed by a reader */
	int64_t bytes;     /* bytes the entries take, headers included */
};

/* "tracetax-<pid>" of this process. */
void tt_instance_name(char *buf, size_t len);

/*
 * Create our own instance, fresh: one left over by an earlier cell of this
 * same process is removed first. NULL with a message in @err on failure.
 */
struct tracefs_instance *tt_instance_create(char *err, size_t len);

/* Remove the instance (also disables everything in it); NULL-safe. */
void tt_instance_destroy(struct tracefs_instance **inst);

/*
 * The checks supported() of a tracefs tracer makes: tracefs mounted (or
 * mountable), @system/@event present, and an instance can be created.
 */
int tt_tracefs_probe(const char *system, const char *event, char *reason, size_t len);

/* The tracepoint id perf_event_open() wants as config; -1 on error (errno). */
long tt_tracefs_event_id(const char *system, const char *event);

/*
 * Bytes one record of @system:@event takes in the ring buffer, header
 * included, computed from its format; -1 on error.
 */
int tt_tracefs_record_size(const char *system, const char *event);

/* Sum per_cpu/cpuN/stats over the CPUs of @inst; -1 with errno on error. */
int tt_instance_stats(struct tracefs_instance *inst, struct tt_rb_stats *out);

/*
 * What a run's counters say: @lost the events overwritten (overrun, commit
 * overrun) or refused (dropped), @hits every event the buffer was offered:
 * those read, those still in it, and the lost.
 */
void tt_rb_count(const struct tt_rb_stats *st, int64_t *hits, int64_t *lost);

/*
 * Whether @file ("kprobe_events", "events/syscalls/sys_enter_getpid/id")
 * exists in tracefs, wherever it is mounted: 1, or 0 with errno.
 */
int tt_tracefs_has(const char *file);

/*
 * Setting up and arming an instance for one event (tracefs_run.c).
 */
#define TT_BUFFER_ENV "TRACETAX_FTRACE_BUFFER_KB"

/* TRACETAX_FTRACE_BUFFER_KB: 1 and *@kb set, 0 when unset, -1 when invalid (@err). */
int tt_buffer_kb_env(int64_t *kb, char *err, size_t len);

/*
 * KiB per CPU that hold the t->events_hint records of @system:@event a run
 * makes with no reader, capped so that all CPUs' buffers take at most 1/4
 * of available memory: a note on @t says so, as events may then be lost.
 * -1 with t->err on error.
 */
int tt_buffer_kb_for(struct tracer *t, const char *system, const char *event, int64_t *kb);

/*
 * Our instance, quiet (tracing_on 0), with @kb KiB per CPU and the
 * event-fork option: threads the workload starts later are filtered in.
 */
struct tracefs_instance *tt_instance_setup(int64_t kb, char *err, size_t len);

/*
 * Start of a run: filter on @pid, empty the buffers (which zeroes their
 * counters), enable @system:@event, tracing_on 1.
 */
int tt_instance_arm(struct tracefs_instance *inst, int pid, const char *system,
		    const char *event, char *err, size_t len);

/* tracing_on 0 and the event disabled; -1 with errno if either failed. */
int tt_instance_disarm(struct tracefs_instance *inst, const char *system, const char *event);

/*
 * Remove instances named tracetax-<pid> and dynamic events in groups
 * tracetax_<pid> whose process is gone (owner_gone(): a zombie is gone).
 * @removed gets how many were removed; @kept (may be NULL) hears of each
 * one kept, and why. Returns 0, or -1 if one could not be removed (reported).
 */
int tracefs_cleanup_stale(int *removed, owner_kept_fn kept);

#endif
