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
#include <unistd.h>

#include <tracefs.h>

#include "base/tracefs_util.h"
#include "base/util.h"
#include "load/syscalls.h"
#include "tracers/ftrace/dynprobe.h"
#include "tracers/tracer.h"

#if defined(__x86_64__)
#define ARCH_SYS "__x64_sys_"
#elif defined(__aarch64__)
#define ARCH_SYS "__arm64_sys_"
#else
#define ARCH_SYS "sys_"
#endif

struct kprobe_priv {
	struct dynprobe d;
	char fn[128];
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

/* Define p:<system>/<event> <fn>; NULL with the kernel's words in @err. */
static struct tracefs_dynevent *kprobe_define(const char *system, const char *event,
					      const char *fn, char *err, size_t len)
{
	struct tracefs_dynevent *ev = tracefs_dynevent_get(TRACEFS_DYNEVENT_KPROBE, system, event);

	/* one of ours an earlier cell failed to delete */
	if (ev)
		dynprobe_delete(&ev, "kprobe");
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
	char system[32], event[64], fn[128];

	if (dynprobe_available("kprobe_events", "KPROBE_EVENTS", reason, len))
		return TT_SKIP;
	if (kprobe_func(t, fn, sizeof(fn), reason, len))
		return TT_SKIP;
	names_of(fn, system, sizeof(system), event, sizeof(event));
	return dynprobe_try(kprobe_define(system, event, fn, reason, len), system, event, "kprobe",
			    reason, len);
}

static int kprobe_setup(struct tracer *t)
{
	struct kprobe_priv *p = calloc(1, sizeof(*p));

	if (!p)
		return tracer_error(t, "out of memory");
	t->priv = p;
	p->d.kind = "kprobe";
	if (kprobe_func(t, p->fn, sizeof(p->fn), t->err, sizeof(t->err)))
		return TT_SKIP;
	names_of(p->fn, p->d.system, sizeof(p->d.system), p->d.event, sizeof(p->d.event));
	p->d.ev = kprobe_define(p->d.system, p->d.event, p->fn, t->err, sizeof(t->err));
	if (!p->d.ev)
		return TT_FAIL;
	debug("%s: on '%s'", t->name, p->fn);
	return dynprobe_instance(t, &p->d);
}

static int kprobe_start(struct tracer *t, pid_t pid)
{
	return dynprobe_start(t, &((struct kprobe_priv *)t->priv)->d, pid);
}

static int kprobe_stop(struct tracer *t, struct tt_hits *out)
{
	return dynprobe_stop(t, &((struct kprobe_priv *)t->priv)->d, out);
}

static void kprobe_teardown(struct tracer *t)
{
	struct kprobe_priv *p = t->priv;

	if (!p)
		return;
	dynprobe_release(&p->d);
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
