/*
 * kprobe:tracefs: a kprobe event on the kernel function behind the target
 * syscall (or --target kfunc:NAME), defined through tracefs (kprobe_events:
 * what the seeds' threads and `perf probe` do) and recorded into our own
 * instance, pid-filtered, no reader. Like uprobe:tracefs, the event lives in
 * the group tracetax_<pid>, so that `tracetax cleanup` removes it should we
 * die before teardown; teardown always deletes it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <tracefs.h>

#include "base/tracefs_util.h"
#include "base/util.h"
#include "load/syscalls.h"
#include "tracers/tracer.h"

#if defined(__x86_64__)
#define ARCH_SYS "__x64_sys_"
#elif defined(__aarch64__)
#define ARCH_SYS "__arm64_sys_"
#else
#define ARCH_SYS "sys_"
#endif

struct kprobe_priv {
	struct tracefs_instance *inst;
	struct tracefs_dynevent *ev;   /* created in the kernel while set */
	char system[32], event[64], fn[128];
};

/*
 * The function to probe: --target kfunc:NAME, else the syscall's entry as
 * the kernel names it (the arch wrapper __x64_sys_close, else __do_sys_getpid,
 * else sys_getpid), the first of them in /proc/kallsyms.
 */
static int kprobe_func(const struct tracer *t, char *fn, size_t fnlen, char *err, size_t len)
{
	const char *kfunc = tracer_kfunc(t);
	const struct tt_syscall *s = t->target ? t->target : tt_syscall_find("getpid");
	const char *base = strncmp(s->event, "sys_enter_", 10) ? s->name : s->event + 10;
	char cand[3][128], line[512], name[128], type;
	size_t n = kfunc ? 1 : 3, best = n;
	FILE *f = fopen("/proc/kallsyms", "re");

	if (kfunc)
		snprintf(cand[0], sizeof(cand[0]), "%s", kfunc);
	else {
		snprintf(cand[0], sizeof(cand[0]), ARCH_SYS "%s", base);
		snprintf(cand[1], sizeof(cand[1]), "__do_sys_%s", base);
		snprintf(cand[2], sizeof(cand[2]), "sys_%s", base);
	}
	if (!f) {
		snprintf(err, len, "cannot read '/proc/kallsyms': %s", strerror(errno));
		return -1;
	}
	while (best && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%*s %c %127s", &type, name) != 2 || (type != 'T' && type != 't'))
			continue;
		for (size_t i = 0; i < best; i++)
			if (!strcmp(name, cand[i]))
				best = i;
	}
	fclose(f);
	if (best == n) {
		if (kfunc)
			snprintf(err, len, "no kernel function '%s' in '/proc/kallsyms'", kfunc);
		else
			snprintf(err, len, "no kernel function for syscall '%s' in '/proc/kallsyms' "
				 "(tried '%s', '%s', '%s')", s->name, cand[0], cand[1], cand[2]);
		return -1;
	}
	snprintf(fn, fnlen, "%s", cand[best]);
	return 0;
}

static void names_of(const char *fn, char *system, size_t slen, char *event, size_t elen)
{
	snprintf(system, slen, TT_DYNEVENT_PREFIX "%d", (int)getpid());
	snprintf(event, elen, "k_%s", fn);
}

static void kprobe_delete(struct tracefs_dynevent **ev)
{
	char *sys = NULL, *name = NULL;

	if (!*ev)
		return;
	/* force: disable it wherever it is still enabled, or the kernel says EBUSY */
	if (tracefs_dynevent_destroy(*ev, true)) {
		tracefs_dynevent_info(*ev, &sys, &name, NULL, NULL, NULL);
		warning("cannot delete kprobe event '%s:%s': %s (try 'tracetax cleanup')",
			sys ? sys : "", name ? name : "", strerror(errno));
		free(sys);
		free(name);
	}
	tracefs_dynevent_free(*ev);
	*ev = NULL;
}

/* Define p:<system>/<event> <fn>; NULL with the kernel's words in @err. */
static struct tracefs_dynevent *kprobe_define(const char *system, const char *event,
					      const char *fn, char *err, size_t len)
{
	struct tracefs_dynevent *ev = tracefs_dynevent_get(TRACEFS_DYNEVENT_KPROBE, system, event);

	/* one of ours an earlier cell failed to delete */
	if (ev)
		kprobe_delete(&ev);
	ev = tracefs_kprobe_alloc(system, event, fn, NULL);
	if (!ev) {
		snprintf(err, len, "out of memory");
		return NULL;
	}
	if (tracefs_dynevent_create(ev)) {
		int e = errno;
		char *log = tracefs_error_last(NULL);

		snprintf(err, len, "kernel refused kprobe 'p:%s/%s %s': %s%s%s", system, event, fn,
			 strerror(e), log ? ": " : "", log ? log : "");
		if (log)
			err[strcspn(err, "\n")] = '\0';
		free(log);
		tracefs_dynevent_free(ev);
		return NULL;
	}
	debug("kprobe 'p:%s/%s %s' defined", system, event, fn);
	return ev;
}

static int kprobe_supported(const struct tracer *t, char *reason, size_t len)
{
	char system[32], event[64], fn[128], path[4096];
	struct tracefs_dynevent *ev;
	struct stat st;
	int ret;

	if (!tracefs_tracing_dir()) {
		snprintf(reason, len, "cannot find or mount tracefs: %s", strerror(errno));
		return TT_SKIP;
	}
	snprintf(path, sizeof(path), "%s/kprobe_events", tracefs_tracing_dir());
	if (stat(path, &st)) {
		if (errno == ENOENT)
			snprintf(reason, len, "kernel built without CONFIG_KPROBE_EVENTS "
				 "(no 'kprobe_events' in tracefs)");
		else
			snprintf(reason, len, "cannot access '%s': %s", path, strerror(errno));
		return TT_SKIP;
	}
	if (kprobe_func(t, fn, sizeof(fn), reason, len))
		return TT_SKIP;
	names_of(fn, system, sizeof(system), event, sizeof(event));
	ev = kprobe_define(system, event, fn, reason, len);
	if (!ev)
		return TT_SKIP;
	ret = tt_tracefs_probe(system, event, reason, len) ? TT_SKIP : TT_OK;
	kprobe_delete(&ev);
	return ret;
}

static int kprobe_setup(struct tracer *t)
{
	struct kprobe_priv *p = calloc(1, sizeof(*p));
	int64_t kb;
	int env;

	if (!p)
		return tracer_error(t, "out of memory");
	t->priv = p;
	if (kprobe_func(t, p->fn, sizeof(p->fn), t->err, sizeof(t->err)))
		return TT_SKIP;
	names_of(p->fn, p->system, sizeof(p->system), p->event, sizeof(p->event));
	p->ev = kprobe_define(p->system, p->event, p->fn, t->err, sizeof(t->err));
	if (!p->ev)
		return TT_FAIL;
	env = tt_buffer_kb_env(&kb, t->err, sizeof(t->err));
	if (env < 0)
		return TT_FAIL;
	if (!env && tt_buffer_kb_for(t, p->system, p->event, &kb))
		return TT_FAIL;
	p->inst = tt_instance_setup(kb, t->err, sizeof(t->err));
	debug("%s: on '%s'", t->name, p->fn);
	return p->inst ? TT_OK : TT_FAIL;
}

/* Enabling the event arms the kprobe: ftrace's call site or a breakpoint. */
static int kprobe_start(struct tracer *t, pid_t pid)
{
	struct kprobe_priv *p = t->priv;

	return tt_instance_arm(p->inst, pid, p->system, p->event, t->err, sizeof(t->err))
		? TT_FAIL : TT_OK;
}

/* Hits as in ftrace:syscall: every record the ring buffer took or lost. */
static int kprobe_stop(struct tracer *t, struct tt_hits *out)
{
	struct kprobe_priv *p = t->priv;
	struct tt_rb_stats st;

	if (tt_instance_disarm(p->inst, p->system, p->event))
		return tracer_error(t, "cannot stop event '%s:%s': %s",
				    p->system, p->event, strerror(errno));
	if (tt_instance_stats(p->inst, &st))
		return tracer_error(t, "cannot read ring-buffer stats of '%s': %s",
				    tracefs_instance_get_name(p->inst), strerror(errno));
	tt_rb_count(&st, &out->hits, &out->lost);
	out->consumer_ns = 0;
	debug("%s: entries %ld overrun %ld dropped %ld", t->name, st.entries, st.overrun,
	      st.dropped);
	return TT_OK;
}

static void kprobe_teardown(struct tracer *t)
{
	struct kprobe_priv *p = t->priv;

	if (!p)
		return;
	if (p->inst)
		tt_instance_disarm(p->inst, p->system, p->event);
	/* The instance first: while it is there the event may be enabled in it. */
	tt_instance_destroy(&p->inst);
	kprobe_delete(&p->ev);
	free(p);
	t->priv = NULL;
}

const struct tracer_ops tracer_kprobe_tracefs = {
	.name = "kprobe:tracefs",
	.hooks = TT_HOOK_SYSCALL | TT_HOOK_KFUNC,
	.summary = "kprobe event (tracefs kprobe_events) on the syscall's kernel function (or "
		   "--target kfunc:NAME) into a ring buffer, pid-filtered, no reader",
	.supported = kprobe_supported,
	.setup = kprobe_setup,
	.start = kprobe_start,
	.stop = kprobe_stop,
	.teardown = kprobe_teardown,
};
