/*
 * ftrace:function: the function tracer of our own instance, limited to the
 * kernel function behind the target syscall (set_ftrace_filter) and to the
 * workload (set_ftrace_pid, function-fork for its threads), no reader. Its
 * cost is the mcount/fentry trampoline plus the record: what `trace-cmd
 * record -p function -l __x64_sys_getpid` pays. Some kernels refuse it
 * (lockdown, or a hypervisor-hardened build): supported() tries it for real.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tracefs.h>

#include "base/tracefs_util.h"
#include "tracers/ftrace/dynprobe.h"
#include "tracers/tracer.h"
#include "base/util.h"

#define EVENT_PREFIX "sys_enter_"

struct function_priv {
	struct tracefs_instance *inst;
};

/*
 * The syscall's entry function as the kernel names it: the wrapper the
 * syscall table calls (__x64_sys_close on x86-64, __arm64_sys_close on
 * arm64, sys_close where there are no wrappers), so that exactly one call
 * is traced per syscall. A syscall without arguments has no wrapper of its
 * own on x86-64 since 4.17: __x64_sys_getpid is an alias of __do_sys_getpid,
 * and available_filter_functions lists the one name ftrace keeps, which is
 * the latter on 6.1. The event name carries the kernel's name for the
 * syscall (newstat for stat). --target kfunc:NAME: NAME, if ftrace can
 * trace it. 0 and @fn set, or -1 with a message.
 */
static int kernel_func(const struct tracer *t, char *fn, size_t fnlen, char *err, size_t len)
{
	static const char *const prefixes[] = { "__x64_sys_", "__arm64_sys_", "__riscv_sys_",
						"__s390x_sys_", "__do_sys_", "sys_" };
	static const char *const none[] = { "" };
	const char *kfunc = tracer_kfunc(t);
	const char *const *pre = kfunc ? none : prefixes;
	const char *name = kfunc ? kfunc : t->target->event + strlen(EVENT_PREFIX);
	char *path = tracefs_get_tracing_file("available_filter_functions");
	char *line = NULL;
	size_t cap = 0;
	const size_t npre = kfunc ? 1 : sizeof(prefixes) / sizeof(prefixes[0]);
	size_t best = npre;
	FILE *f = path ? fopen(path, "re") : NULL;

	tracefs_put_tracing_file(path);
	if (!f) {
		snprintf(err, len, "cannot read 'available_filter_functions': %s", strerror(errno));
		return -1;
	}
	while (getline(&line, &cap, f) > 0) {
		line[strcspn(line, " \t\n")] = '\0';	/* "func [module]" */
		for (size_t i = 0; i < best; i++) {
			size_t n = strlen(pre[i]);

			if (!strncmp(line, pre[i], n) && !strcmp(line + n, name)) {
				best = i;
				snprintf(fn, fnlen, "%s", line);
			}
		}
	}
	free(line);
	fclose(f);
	if (best == npre) {
		snprintf(err, len, kfunc ? "kernel function '%s' is not in "
			 "'available_filter_functions' (not traceable)" :
			 "no traceable kernel function for syscall '%s' in "
			 "'available_filter_functions'", name);
		return -1;
	}
	return 0;
}

/*
 * Try the function tracer in a throwaway instance (ours: no supported()
 * runs while a cell holds it). Listing it in available_tracers is no
 * promise: a kernel may list it and still refuse to start it (EPERM).
 */
static int probe_function_tracer(char *reason, size_t len)
{
	struct tracefs_instance *inst = tt_instance_create(reason, len);
	int ret = 0, e;

	if (!inst)
		return -1;
	if (tracefs_instance_file_write(inst, "current_tracer", "function") < 0) {
		e = errno;
		if (!tracefs_tracer_available(NULL, "function"))
			snprintf(reason, len, "kernel built without the function tracer "
				 "('function' not in available_tracers)");
		else
			snprintf(reason, len, "kernel refused the function tracer: %s", strerror(e));
		ret = -1;
	} else {
		tracefs_instance_file_write(inst, "current_tracer", "nop");
	}
	tt_instance_destroy(&inst);
	return ret;
}

static int function_supported(const struct tracer *t, char *reason, size_t len)
{
	char fn[128];

	if (!tracefs_tracing_dir()) {
		snprintf(reason, len, "cannot find or mount tracefs: %s", strerror(errno));
		return TT_SKIP;
	}
	if (probe_function_tracer(reason, len) || kernel_func(t, fn, sizeof(fn), reason, len))
		return TT_SKIP;
	return TT_OK;
}

static int function_setup(struct tracer *t)
{
	struct function_priv *p = calloc(1, sizeof(*p));
	char fn[128];
	int64_t kb;
	int env;

	if (!p)
		return tracer_error(t, "out of memory");
	t->priv = p;
	if (kernel_func(t, fn, sizeof(fn), t->err, sizeof(t->err)))
		return TT_FAIL;
	env = tt_buffer_kb_env(&kb, t->err, sizeof(t->err));
	if (env < 0)
		return TT_FAIL;
	/* Records of the function tracer have the format of the event ftrace:function. */
	if (!env && tt_buffer_kb_for(t, "ftrace", "function", &kb))
		return TT_FAIL;
	p->inst = tt_instance_setup(kb, t->err, sizeof(t->err));
	if (!p->inst)
		return TT_FAIL;
	/* Only this function gets its call site patched: the rest of the kernel runs untouched. */
	if (tracefs_instance_file_write(p->inst, "set_ftrace_filter", fn) < 0)
		return tracer_error(t, "cannot write '%s' to 'set_ftrace_filter': %s",
				    fn, strerror(errno));
	/* The workload's threads are born after start(): function-fork adds them to set_ftrace_pid. */
	if (tracefs_option_enable(p->inst, TRACEFS_OPTION_FUNCTION_FORK))
		return tracer_error(t, "cannot enable option 'function-fork': %s", strerror(errno));
	debug("%s: tracing kernel function '%s', buffer %ld KiB per cpu", t->name, fn, kb);
	return TT_OK;
}

/* Started per run: while the tracer is on, the filtered function is patched for every task. */
static int function_start(struct tracer *t, pid_t pid)
{
	struct function_priv *p = t->priv;
	char buf[32];

	snprintf(buf, sizeof(buf), "%d", (int)pid);
	if (tracefs_instance_file_write(p->inst, "set_ftrace_pid", buf) < 0)
		return tracer_error(t, "cannot write '%s' to 'set_ftrace_pid': %s", buf, strerror(errno));
	if (tracefs_instance_file_write(p->inst, "current_tracer", "function") < 0)
		return tracer_error(t, "kernel refused the function tracer: %s", strerror(errno));
	/* After the tracer switch, so that nothing it recorded meanwhile is counted. */
	if (tracefs_instance_file_clear(p->inst, "trace"))
		return tracer_error(t, "cannot clear 'trace': %s", strerror(errno));
	if (tracefs_trace_on(p->inst))
		return tracer_error(t, "cannot write 'tracing_on': %s", strerror(errno));
	return 0;
}

static int function_off(struct function_priv *p)
{
	int ret = 0;

	if (tracefs_trace_off(p->inst))
		ret = -1;
	if (tracefs_instance_file_write(p->inst, "current_tracer", "nop") < 0)
		ret = -1;
	return ret;
}

/* Hits as in ftrace:syscall: every record the ring buffer took or lost. */
static int function_stop(struct tracer *t, struct tt_hits *out)
{
	struct function_priv *p = t->priv;

	if (tracefs_trace_off(p->inst))
		return tracer_error(t, "cannot write 'tracing_on': %s", strerror(errno));
	/* Counters first: they must not depend on what a tracer switch does to the buffer. */
	if (ftrace_count(t, p->inst, out))
		return TT_FAIL;
	if (function_off(p))
		return tracer_error(t, "cannot stop the function tracer: %s", strerror(errno));
	return 0;
}

static void function_teardown(struct tracer *t)
{
	struct function_priv *p = t->priv;

	if (!p)
		return;
	if (p->inst)
		function_off(p);
	tt_instance_destroy(&p->inst);
	free(p);
	t->priv = NULL;
}

const struct tracer_ops tracer_ftrace_function = {
	.name = "ftrace:function",
	.hooks = TT_HOOK_SYSCALL | TT_HOOK_KFUNC,
	.summary = "function tracer on the syscall's kernel function (set_ftrace_filter), "
		   "pid-filtered, into a ring buffer, no reader",
	.supported = function_supported,
	.setup = function_setup,
	.start = function_start,
	.stop = function_stop,
	.teardown = function_teardown,
};
