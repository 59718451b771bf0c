/*
 * A dynamic event of ours (a kprobe or uprobe defined through tracefs,
 * group tracetax_<pid>) recorded into our own instance, no reader: what
 * kprobe:tracefs and uprobe:tracefs share, from the check that the kernel
 * has such events to the teardown that always deletes them (dynprobe.c).
 */
#ifndef TRACETAX_TRACERS_FTRACE_DYNPROBE_H
#define TRACETAX_TRACERS_FTRACE_DYNPROBE_H

#include <stddef.h>
#include <sys/types.h>

#include "base/tracefs_util.h"
#include "tracers/tracer.h"

struct tracefs_instance;
struct tracefs_dynevent;

struct dynprobe {
	struct tracefs_instance *inst;
	struct tracefs_dynevent *ev;   /* created in the kernel while set */
	char system[32], event[64];
	const char *kind;              /* "kprobe", "uprobe": for messages */
};

/*
 * Whether tracefs has @file ("kprobe_events"): TT_OK, or TT_SKIP with the
 * reason, CONFIG_@config when it is not there.
 */
int dynprobe_available(const char *file, const char *config, char *reason, size_t len);
/* Delete @*ev, forced (disabled wherever it is enabled); a warning if the kernel refuses. NULL-safe. */
void dynprobe_delete(struct tracefs_dynevent **ev, const char *kind);
/* supported()'s end: @ev, just defined, probed in an instance, then deleted. TT_OK or TT_SKIP. */
int dynprobe_try(struct tracefs_dynevent *ev, const char *system, const char *event,
		 const char *kind, char *reason, size_t len);
/* setup()'s end, p->ev defined: the instance, its buffer sized for @t's events. */
int dynprobe_instance(struct tracer *t, struct dynprobe *p);
/* Enabling the event arms the probe (a call site, a breakpoint), for @pid. */
int dynprobe_start(struct tracer *t, struct dynprobe *p, pid_t pid);
/* Disarmed; hits as in ftrace:syscall: every record the ring buffer took or lost. */
int dynprobe_stop(struct tracer *t, struct dynprobe *p, struct tt_hits *out);
/* Disarmed, the instance removed, then the event deleted; safe after a partial setup. */
void dynprobe_release(struct dynprobe *p);

/*
 * The counters of @inst into @out (hits, lost, no reader), for a tracer
 * whose events are recorded there and never read (these two and
 * ftrace:function).
 */
int ftrace_count(struct tracer *t, struct tracefs_instance *inst, struct tt_hits *out);

#endif
