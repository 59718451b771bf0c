/*
 * uprobe:tracefs: a uprobe event on the workload's function, defined through
 * tracefs (uprobe_events) and recorded into our own instance, no reader —
 * what `perf probe -x` and trace-cmd set up. The event lives in the group
 * tracetax_<pid>, so that `tracetax cleanup` can remove it should we die
 * before teardown; teardown always deletes it, also after a signal.
 */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <tracefs.h>

#include "base/elf_sym.h"
#include "base/tracefs_util.h"
#include "tracers/tracer.h"
#include "base/util.h"

struct uprobe_priv {
	struct tracefs_instance *inst;
	struct tracefs_dynevent *ev;   /* created in the kernel while set */
	char system[32], event[64];
	int64_t profile0;              /* uprobe_profile's count at start(), -1: unknown */
};

/* Group tracetax_<pid>; event named after the function, in the characters tracefs allows. */
static void names_of(const struct tracer *t, char *system, size_t slen, char *event, size_t elen)
{
	size_t i;

	snprintf(system, slen, TT_DYNEVENT_PREFIX "%d", (int)getpid());
	for (i = 0; t->func[i] && i + 1 < elen; i++)
		event[i] = isalnum((unsigned char)t->func[i]) ? t->func[i] : '_';
	event[i] = '\0';
}

/* Remove an event of ours that an earlier cell failed to delete; 0 if none is left. */
static int remove_leftover(const char *system, const char *event)
{
	struct tracefs_dynevent *ev = tracefs_dynevent_get(TRACEFS_DYNEVENT_UPROBE, system, event);
	int ret = 0;

	if (ev) {
		debug("uprobe event '%s:%s' exists, recreating it", system, event);
		ret = tracefs_dynevent_destroy(ev, true);
		tracefs_dynevent_free(ev);
	}
	return ret;
}

/* Define p:<system>/<event> <path>:<offset>; NULL with a message in @err. */
static struct tracefs_dynevent *uprobe_define(const struct tracer *t, const char *system,
					      const char *event, char *err, size_t len)
{
	struct tracefs_dynevent *ev;
	uint64_t off;

	if (elf_func_offset(t->func_path, t->func, &off, err, len))
		return NULL;
	if (remove_leftover(system, event)) {
		snprintf(err, len, "cannot remove old uprobe event '%s:%s': %s",
			 system, event, strerror(errno));
		return NULL;
	}
	ev = tracefs_uprobe_alloc(system, event, t->func_path, off, NULL);
	if (!ev) {
		snprintf(err, len, "out of memory");
		return NULL;
	}
	if (tracefs_dynevent_create(ev)) {
		/* EINVAL and friends: the kernel wrote why to error_log. */
		snprintf(err, len, "cannot define uprobe '%s:%s' at '%s:0x%lx': %s",
			 system, event, t->func_path, off, strerror(errno));
		tracefs_dynevent_free(ev);
		return NULL;
	}
	debug("uprobe 'p:%s/%s %s:0x%lx' defined", system, event, t->func_path, off);
	return ev;
}

static void uprobe_delete(struct tracefs_dynevent **ev)
{
	char *sys = NULL, *name = NULL;

	if (!*ev)
		return;
	/* force: disable it wherever it is still enabled, or the kernel says EBUSY */
	if (tracefs_dynevent_destroy(*ev, true)) {
		tracefs_dynevent_info(*ev, &sys, &name, NULL, NULL, NULL);
		warning("cannot delete uprobe event '%s:%s': %s (try 'tracetax cleanup')",
			sys ? sys : "", name ? name : "", strerror(errno));
		free(sys);
		free(name);
	}
	tracefs_dynevent_free(*ev);
	*ev = NULL;
}

/*
 * A real probe: the kernel has uprobe events (CONFIG_UPROBE_EVENTS), accepts
 * ours at the function's offset, and lets us create an instance.
 */
static int uprobe_supported(const struct tracer *t, char *reason, size_t len)
{
	char system[32], event[64];
	struct tracefs_dynevent *ev;
	char path[4096];
	struct stat st;
	int ret;

	if (!tracefs_tracing_dir()) {
		snprintf(reason, len, "cannot find or mount tracefs: %s", strerror(errno));
		return TT_SKIP;
	}
	snprintf(path, sizeof(path), "%s/uprobe_events", tracefs_tracing_dir());
	if (stat(path, &st)) {
		/* not being allowed to look is not the same as not being there */
		if (errno == ENOENT)
			snprintf(reason, len, "kernel built without CONFIG_UPROBE_EVENTS "
				 "(no 'uprobe_events' in tracefs)");
		else
			snprintf(reason, len, "cannot access '%s': %s", path, strerror(errno));
		return TT_SKIP;
	}
	names_of(t, system, sizeof(system), event, sizeof(event));
	ev = uprobe_define(t, system, event, reason, len);
	if (!ev)
		return TT_SKIP;
	ret = tt_tracefs_probe(system, event, reason, len) ? TT_SKIP : TT_OK;
	uprobe_delete(&ev);
	return ret;
}

static int uprobe_setup(struct tracer *t)
{
	struct uprobe_priv *p = calloc(1, sizeof(*p));
	int64_t kb;
	int env;

	if (!p)
		return tracer_error(t, "out of memory");
	t->priv = p;
	names_of(t, p->system, sizeof(p->system), p->event, sizeof(p->event));
	p->ev = uprobe_define(t, p->system, p->event, t->err, sizeof(t->err));
	if (!p->ev)
		return TT_FAIL;
	env = tt_buffer_kb_env(&kb, t->err, sizeof(t->err));
	if (env < 0)
		return TT_FAIL;
	if (!env && tt_buffer_kb_for(t, p->system, p->event, &kb))
		return TT_FAIL;
	p->inst = tt_instance_setup(kb, t->err, sizeof(t->err));
	return p->inst ? TT_OK : TT_FAIL;
}

/*
 * uprobe_profile: "  <file> <event> <hits>" per uprobe, hits counted in the
 * kernel's handler for every process that runs the probed instruction,
 * before any pid filter. -1 if our line is not there.
 */
static int64_t profile_hits(const struct uprobe_priv *p)
{
	char *text = tracefs_instance_file_read(NULL, "uprobe_profile", NULL);
	char file[4096], name[128];
	int64_t hits = -1;
	long long n;

	for (char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
		if (sscanf(line, "%4095s %127s %lld", file, name, &n) == 3 && !strcmp(name, p->event))
			hits = hits < 0 ? n : -1;	/* same name in another group: ambiguous */
	free(text);
	return hits;
}

static int uprobe_start(struct tracer *t, pid_t pid)
{
	struct uprobe_priv *p = t->priv;

	p->profile0 = profile_hits(p);
	/*
	 * Enabling the event registers the uprobe: the kernel writes a
	 * breakpoint into every mapping of the file, the workload's included.
	 */
	return tt_instance_arm(p->inst, pid, p->system, p->event, t->err, sizeof(t->err))
		? TT_FAIL : TT_OK;
}

/*
 * Hits as in ftrace:syscall: every record the ring buffer took or lost. The
 * kernel's own count in uprobe_profile, taken before the pid filter, can
 * only be higher: lower, and one of the two counts is wrong.
 */
static int uprobe_stop(struct tracer *t, struct tt_hits *out)
{
	struct uprobe_priv *p = t->priv;
	struct tt_rb_stats st;
	int64_t prof;

	if (tt_instance_disarm(p->inst, p->system, p->event))
		return tracer_error(t, "cannot stop event '%s:%s': %s",
				    p->system, p->event, strerror(errno));
	if (tt_instance_stats(p->inst, &st))
		return tracer_error(t, "cannot read ring-buffer stats of '%s': %s",
				    tracefs_instance_get_name(p->inst), strerror(errno));
	tt_rb_count(&st, &out->hits, &out->lost);
	out->consumer_ns = 0;
	prof = profile_hits(p);
	if (prof >= 0 && p->profile0 >= 0)
		prof -= p->profile0;
	debug("%s: entries %ld overrun %ld dropped %ld; uprobe_profile counted %ld hits of "
	      "'%s' in all processes", t->name, st.entries, st.overrun, st.dropped, prof, p->event);
	if (prof >= 0 && prof < out->hits)
		return tracer_error(t, "uprobe_profile counted %ld hits, the ring buffer %ld",
				    prof, out->hits);
	return TT_OK;
}

static void uprobe_teardown(struct tracer *t)
{
	struct uprobe_priv *p = t->priv;

	if (!p)
		return;
	if (p->inst)
		tt_instance_disarm(p->inst, p->system, p->event);
	/* The instance first: while it is there the event may be enabled in it. */
	tt_instance_destroy(&p->inst);
	uprobe_delete(&p->ev);
	free(p);
	t->priv = NULL;
}

const struct tracer_ops tracer_uprobe_tracefs = {
	.name = "uprobe:tracefs",
	.hooks = TT_HOOK_FUNC,
	.summary = "uprobe event (tracefs uprobe_events) on the workload's function into a "
		   "ring buffer, no reader",
	.supported = uprobe_supported,
	.setup = uprobe_setup,
	.start = uprobe_start,
	.stop = uprobe_stop,
	.teardown = uprobe_teardown,
};
