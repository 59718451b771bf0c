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
#include <unistd.h>

#include <tracefs.h>

#include "base/elf_sym.h"
#include "base/tracefs_util.h"
#include "tracers/ftrace/dynprobe.h"
#include "tracers/tracer.h"
#include "base/util.h"

struct uprobe_priv {
	struct dynprobe d;
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

/*
 * A real probe: the kernel has uprobe events (CONFIG_UPROBE_EVENTS), accepts
 * ours at the function's offset, and lets us create an instance.
 */
static int uprobe_supported(const struct tracer *t, char *reason, size_t len)
{
	char system[32], event[64];

	if (dynprobe_available("uprobe_events", "UPROBE_EVENTS", reason, len))
		return TT_SKIP;
	names_of(t, system, sizeof(system), event, sizeof(event));
	return dynprobe_try(uprobe_define(t, system, event, reason, len), system, event, "uprobe",
			    reason, len);
}

static int uprobe_setup(struct tracer *t)
{
	struct uprobe_priv *p = calloc(1, sizeof(*p));

	if (!p)
		return tracer_error(t, "out of memory");
	t->priv = p;
	p->d.kind = "uprobe";
	names_of(t, p->d.system, sizeof(p->d.system), p->d.event, sizeof(p->d.event));
	p->d.ev = uprobe_define(t, p->d.system, p->d.event, t->err, sizeof(t->err));
	if (!p->d.ev)
		return TT_FAIL;
	return dynprobe_instance(t, &p->d);
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
		if (sscanf(line, "%4095s %127s %lld", file, name, &n) == 3 && !strcmp(name, p->d.event))
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
	return dynprobe_start(t, &p->d, pid);
}

/*
 * Hits as in ftrace:syscall: every record the ring buffer took or lost. The
 * kernel's own count in uprobe_profile, taken before the pid filter, can
 * only be higher: lower, and one of the two counts is wrong.
 */
static int uprobe_stop(struct tracer *t, struct tt_hits *out)
{
	struct uprobe_priv *p = t->priv;
	int64_t prof;

	if (dynprobe_stop(t, &p->d, out))
		return TT_FAIL;
	prof = profile_hits(p);
	if (prof >= 0 && p->profile0 >= 0)
		prof -= p->profile0;
	debug("%s: uprobe_profile counted %ld hits of '%s' in all processes", t->name, prof,
	      p->d.event);
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
	dynprobe_release(&p->d);
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
