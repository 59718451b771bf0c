/* kprobe:tracefs and uprobe:tracefs: the dynamic event's life (dynprobe.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <tracefs.h>

#include "base/util.h"
#include "tracers/ftrace/dynprobe.h"

int dynprobe_available(const char *file, const char *config, char *reason, size_t len)
{
	char path[4096];
	struct stat st;

	if (!tracefs_tracing_dir()) {
		snprintf(reason, len, "cannot find or mount tracefs: %s", strerror(errno));
		return TT_SKIP;
	}
	snprintf(path, sizeof(path), "%s/%s", tracefs_tracing_dir(), file);
	if (stat(path, &st)) {
		/* not being allowed to look is not the same as not being there */
		if (errno == ENOENT)
			snprintf(reason, len, "kernel built without CONFIG_%s (no '%s' in tracefs)",
				 config, file);
		else
			snprintf(reason, len, "cannot access '%s': %s", path, strerror(errno));
		return TT_SKIP;
	}
	return TT_OK;
}

void dynprobe_delete(struct tracefs_dynevent **ev, const char *kind)
{
	char *sys = NULL, *name = NULL;

	if (!*ev)
		return;
	/* force: disable it wherever it is still enabled, or the kernel says EBUSY */
	if (tracefs_dynevent_destroy(*ev, true)) {
		tracefs_dynevent_info(*ev, &sys, &name, NULL, NULL, NULL);
		warning("cannot delete %s event '%s:%s': %s (try 'tracetax cleanup')", kind,
			sys ? sys : "", name ? name : "", strerror(errno));
		free(sys);
		free(name);
	}
	tracefs_dynevent_free(*ev);
	*ev = NULL;
}

int dynprobe_try(struct tracefs_dynevent *ev, const char *system, const char *event,
		 const char *kind, char *reason, size_t len)
{
	int ret;

	if (!ev)
		return TT_SKIP;
	ret = tt_tracefs_probe(system, event, reason, len) ? TT_SKIP : TT_OK;
	dynprobe_delete(&ev, kind);
	return ret;
}

int dynprobe_instance(struct tracer *t, struct dynprobe *p)
{
	int64_t kb;
	int env = tt_buffer_kb_env(&kb, t->err, sizeof(t->err));

	if (env < 0)
		return TT_FAIL;
	if (!env && tt_buffer_kb_for(t, p->system, p->event, &kb))
		return TT_FAIL;
	p->inst = tt_instance_setup(kb, t->err, sizeof(t->err));
	return p->inst ? TT_OK : TT_FAIL;
}

int dynprobe_start(struct tracer *t, struct dynprobe *p, pid_t pid)
{
	return tt_instance_arm(p->inst, pid, p->system, p->event, t->err, sizeof(t->err))
		? TT_FAIL : TT_OK;
}

int ftrace_count(struct tracer *t, struct tracefs_instance *inst, struct tt_hits *out)
{
	struct tt_rb_stats st;

	if (tt_instance_stats(inst, &st))
		return tracer_error(t, "cannot read ring-buffer stats of '%s': %s",
				    tracefs_instance_get_name(inst), strerror(errno));
	tt_rb_count(&st, &out->hits, &out->lost);
	out->consumer_ns = 0;
	debug("%s: entries %ld overrun %ld dropped %ld", t->name, st.entries, st.overrun,
	      st.dropped);
	return TT_OK;
}

int dynprobe_stop(struct tracer *t, struct dynprobe *p, struct tt_hits *out)
{
	if (tt_instance_disarm(p->inst, p->system, p->event))
		return tracer_error(t, "cannot stop event '%s:%s': %s",
				    p->system, p->event, strerror(errno));
	return ftrace_count(t, p->inst, out);
}

void dynprobe_release(struct dynprobe *p)
{
	if (p->inst)
		tt_instance_disarm(p->inst, p->system, p->event);
	/* The instance first: while it is there the event may be enabled in it. */
	tt_instance_destroy(&p->inst);
	dynprobe_delete(&p->ev, p->kind);
}
