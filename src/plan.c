/*
 * The plan: which cells a run has, and what each tracer is told about its
 * workload (the syscall, the function and the ELF file that defines it,
 * where its helper runs).
 */
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "load/workloads.h"
#include "plan.h"
#include "tracer.h"

/* The libc.so.6 this process mapped. */
static int libc_path(char *buf, size_t len)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[4608];
	int ret = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *p = strchr(line, '/');

		if (p && strstr(p, "/libc.so")) {
			p[strcspn(p, "\n")] = '\0';
			snprintf(buf, len, "%s", p);
			ret = 0;
			break;
		}
	}
	fclose(f);
	return ret;
}

const char *plan_target(const struct run_args *a, const char *workload)
{
	const char *sc = workload_find(workload)->syscall;

	return a->target ? a->target : sc ? sc : "";
}

/* Whether workload @w offers what a tracer with @h hooks; the reason when not. */
int plan_hooks_ok(unsigned h, const struct workload *w, const char *target, char *reason,
		    size_t len)
{
	if ((h & TT_HOOK_SYSCALL) && !*target) {
		snprintf(reason, len, "workload '%s' makes no syscall to hook (try --target)", w->name);
		return 0;
	}
	if ((h & TT_HOOK_FUNC) && !w->func) {
		snprintf(reason, len, "workload '%s' calls syscall(2) directly: no function to hook "
			 "(try '%s-libc' or 'func')", w->name, w->name);
		return 0;
	}
	if ((h & TT_HOOK_USDT) && !w->usdt) {
		snprintf(reason, len, "workload '%s' has no USDT probe (try 'func-usdt')", w->name);
		return 0;
	}
	return 1;
}

/* The ELF file that defines the function the workload calls, for uprobes. */
static const char *func_path(const struct workload *w, const char *load_path)
{
	static char target[4096], libc[4096];

	if (w->lib == WL_TARGET) {
		char *slash;

		snprintf(target, sizeof(target), "%s", load_path);
		slash = strrchr(target, '/');
		snprintf(slash ? slash + 1 : target, sizeof(target) - (size_t)(slash ? slash + 1 - target : 0),
			 "%s", TT_TARGET_LIB);
		return target;
	}
	if (w->lib == WL_LIBC) {
		/* the load links the same libc as we do: find ours */
		if (!*libc && libc_path(libc, sizeof(libc)))
			return NULL;
		return libc;
	}
	return NULL;
}

void plan_bind(struct tracer *t, const char *workload, const char *load_path)
{
	t->load_path = load_path;
	t->workload = workload_find(workload);
	t->func = t->workload->func;
	t->func_path = func_path(t->workload, load_path);
}

/*
 * Where a tracer the workload waits on runs (ptrace helper, seccomp
 * supervisor). The workload's thread 0 runs on the first CPU we may use.
 * Each stop is a round trip: on one CPU it is two context switches; across
 * CPUs two wake-ups, which in a VM that halts idle vCPUs cost 3-10x more and
 * vary from run to run. "same" gives the reproducible figure; "any" leaves
 * it to the scheduler, as strace does.
 */
int plan_tracer_cpu(const char *where)
{
	cpu_set_t set;
	int first = -1;

	if (!strcmp(where, "any") || sched_getaffinity(0, sizeof(set), &set))
		return -1;
	for (int c = 0; c < CPU_SETSIZE; c++) {
		if (!CPU_ISSET(c, &set))
			continue;
		if (first < 0 && !strcmp(where, "same"))
			return c;
		if (first < 0)
			first = c;
		else
			return c;	/* "other": the second CPU we may use */
	}
	return first;
}

/* The default plan leaves out tracers that cannot hook the workload at all. */
int plan_fits(const struct run_args *a, const char *workload, const char *tracer)
{
	char err[256];
	const char *variant;
	const struct tracer_ops *ops = tracer_ops_find(tracer, &variant, err, sizeof(err));

	return ops && plan_hooks_ok(ops->hooks, workload_find(workload), plan_target(a, workload),
			       err, sizeof(err));
}
