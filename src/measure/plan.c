/*
 * The plan: which cells a run has, in which order, each rep's order, and
 * what each tracer is told about its workload (the syscall, the function
 * and the ELF file that defines it, where its helper runs).
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure/cmdload.h"
#include "base/cpus.h"
#include "base/util.h"
#include "load/workloads.h"
#include "measure/plan.h"
#include "results/results.h"
#include "results/stats.h"
#include "load/syscalls.h"
#include "tracers/tracer.h"

/*
 * What --dry-run's estimate adds to the timed work: a run's fork, exec,
 * ready line and attach (~10 ms here), and calibration, a few growing
 * runs on each side. An estimate: tracers far slower than the workload
 * (ptrace) spend longer calibrating.
 */
#define EST_RUN_OVERHEAD_S 0.010
#define EST_CALIBRATE_S 0.150
/* a cell's visit in a round beyond its first: setup, teardown, the activity check */
#define EST_VISIT_S 0.040
_Static_assert(PLAN_LATENCY_PAIRS == 2, "the plan's line says 2 pairs of --latency runs");

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

const char *plan_target(const struct measure_opts *a, const char *workload)
{
	const struct workload *w = workload_find(workload);

	/* a command's events: every syscall of its process tree */
	return a->target ? a->target : w->cmd ? CMDLOAD_TARGET : w->syscall ? w->syscall : "";
}

/* Whether workload @w offers what a tracer with @h hooks; the reason when not. */
int plan_hooks_ok(unsigned h, const struct workload *w, const char *target, char *reason,
		    size_t len)
{
	if ((h & TT_HOOK_SYSCALL) && !*target) {
		snprintf(reason, len, "workload '%s' makes no syscall to hook (try --target)", w->name);
		return 0;
	}
	/* kfunc:NAME: a kernel function, for the tracers that probe one */
	if (!strncmp(target, TT_KFUNC_PREFIX, strlen(TT_KFUNC_PREFIX))) {
		if (h & TT_HOOK_KFUNC)
			return 1;
		snprintf(reason, len, "hooks no kernel function '%s' (bpf:kprobe, bpf:kretprobe, "
			 "bpf:kprobe-multi, bpf:fentry, bpf:fexit, kprobe:tracefs and ftrace:function "
			 "do)", target + strlen(TT_KFUNC_PREFIX));
		return 0;
	}
	if ((h & TT_HOOK_SYSCALL) && !(h & TT_HOOK_TRACEPOINT) &&
	    !((h & TT_HOOK_ALLSYS) && !strcmp(target, CMDLOAD_TARGET)) &&
	    tt_tracepoint_split(target, NULL, 0, NULL, 0)) {
		snprintf(reason, len, "hooks syscalls only, not tracepoint '%s' (ftrace:syscall, "
			 "perf:count, perf:sample and bpf:tp hook any tracepoint)", target);
		return 0;
	}
	if ((h & TT_HOOK_FUNC) && !w->func) {
		char libc[48];

		/* suggest only a workload that exists: getpid-libc does, getuid-libc not */
		snprintf(libc, sizeof(libc), "%s-libc", w->name);
		snprintf(reason, len, "workload '%s' calls syscall(2) directly: no function to hook "
			 "(try %s%s%s'func')", w->name, workload_find(libc) ? "'" : "",
			 workload_find(libc) ? libc : "", workload_find(libc) ? "' or " : "");
		return 0;
	}
	if ((h & TT_HOOK_USDT) && !w->usdt) {
		snprintf(reason, len, "workload '%s' has no USDT probe (try 'func-usdt')", w->name);
		return 0;
	}
	if ((h & TT_HOOK_UST) && !workload_ust(w)) {
		snprintf(reason, len, "workload '%s' has no LTTng-UST tracepoint (try 'func-ust')",
			 w->name);
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
	int cpus[CPU_SETSIZE], n = cpus_allowed(cpus, CPU_SETSIZE);

	if (!strcmp(where, "any") || n == 0)
		return -1;
	/* "other": the second CPU we may use, if there is one */
	return !strcmp(where, "other") && n > 1 ? cpus[1] : cpus[0];
}

/* The default plan leaves out tracers that cannot hook the workload at all. */
static int plan_fits(const struct measure_opts *a, const char *workload, const char *tracer)
{
	char err[256];
	const char *variant;
	const struct tracer_ops *ops = tracer_ops_find(tracer, &variant, err, sizeof(err));

	return ops && plan_hooks_ok(ops->hooks, workload_find(workload), plan_target(a, workload),
			       err, sizeof(err));
}

static void cell_init(struct plan_cell *c, const struct measure_opts *a, const char *workload,
		      const char *tracer, int threads)
{
	snprintf(c->workload, sizeof(c->workload), "%s", workload);
	snprintf(c->tracer, sizeof(c->tracer), "%s", tracer);
	snprintf(c->target, sizeof(c->target), "%s", plan_target(a, workload));
	c->threads = threads;
	snprintf(c->id, sizeof(c->id), "%s|%s|%d|%s", c->workload, c->tracer, c->threads, c->target);
	c->seed = stats_seed_of(a->seed, c->id);
}

int plan_build(const struct measure_opts *a, struct plan *p)
{
	size_t max = (size_t)a->nworkloads * (size_t)a->nthreads * (size_t)a->ntracers;

	p->n = 0;
	p->cells = calloc(max ? max : 1, sizeof(*p->cells));
	if (!p->cells)
		return -1;
	for (int w = 0; w < a->nworkloads; w++)
		for (int th = 0; th < a->nthreads; th++)
			for (int k = 0; k < a->ntracers; k++) {
				if (a->tracers_default && !plan_fits(a, a->workloads[w], a->tracers[k]))
					continue;
				/* a command has its own threads: one cell, not one per -T */
				if (workload_find(a->workloads[w])->cmd && th > 0)
					continue;
				cell_init(&p->cells[p->n++], a, a->workloads[w], a->tracers[k],
					  workload_find(a->workloads[w])->cmd ? 1 : a->threads[th]);
			}
	return 0;
}

void plan_release(struct plan *p)
{
	free(p->cells);
	p->cells = NULL;
	p->n = 0;
}

bool plan_traced_first(const struct plan_cell *c, int rep)
{
	struct tt_rng rng;

	/* one draw per pair, from a stream of the cell's own: stable whatever else runs */
	rng_seed(&rng, c->seed ^ ((uint64_t)(rep / 2) * 0x9e3779b97f4a7c15ull));
	return (rng_next(&rng) & 1) ^ (unsigned)(rep & 1);
}

int plan_rounds(const struct measure_opts *a)
{
	int pairs = (a->reps + 1) / 2;

	return a->rounds < 1 ? 1 : a->rounds < pairs ? a->rounds : pairs < 1 ? 1 : pairs;
}

int plan_rotate_cpus(const struct measure_opts *a)
{
	int cpus[CPU_SETSIZE], n;

	if (!a->rotate)
		return 1;
	if (a->cpus) {	/* --dry-run has not restricted us yet; a run has, the same way */
		cpu_set_t set;
		char err[256];

		n = cpus_parse_list(a->cpus, "--cpus", &set, err, sizeof(err)) ? 1 : CPU_COUNT(&set);
	} else {
		n = cpus_allowed(cpus, CPU_SETSIZE);
	}
	return n < 2 ? 1 : n > CELL_MAX_CPUS ? CELL_MAX_CPUS : n;
}

int plan_round_reps(const struct measure_opts *a, int round)
{
	int R = plan_rounds(a), pairs = a->reps / 2, reps, all;

	if (round >= R)
		round = 0;
	reps = 2 * (pairs / R + (round < pairs % R)) + (a->reps % 2 && round == R - 1);
	/* --placement rotate: whole pairs, as many on each CPU, in every round */
	all = 2 * plan_rotate_cpus(a);
	return all > 2 ? (reps + all - 1) / all * all : reps;
}

int plan_total_reps(const struct measure_opts *a)
{
	int n = 0;

	for (int r = 0; r < plan_rounds(a); r++)
		n += plan_round_reps(a, r);
	return n;
}

void plan_round_order(const struct plan *p, const struct measure_opts *a, int round, int *order)
{
	struct tt_rng rng;
	char id[32];

	for (int i = 0; i < p->n; i++)
		order[i] = i;
	if (plan_rounds(a) < 2 && !(a->precision > 0))
		return;
	snprintf(id, sizeof(id), "round %d", round);
	rng_seed(&rng, stats_seed_of(a->seed, id));
	for (int i = p->n - 1; i > 0; i--) {	/* Fisher-Yates */
		int j = (int)rng_below(&rng, (uint64_t)i + 1), t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
}

double plan_estimate_s(const struct plan *p, const struct measure_opts *a)
{
	double per_run = (a->iterations ? 0 : a->run_ms / 1e3) + EST_RUN_OVERHEAD_S;
	double cal = a->iterations ? 0 : 2 * EST_CALIBRATE_S, extra = 0;
	const char *variant;
	char err[160];

	/* BPF cells: progstats.c's runs with BPF stats on, and once its pairs on and off */
	for (int i = 0; i < p->n; i++) {
		const struct tracer_ops *ops = tracer_ops_find(p->cells[i].tracer, &variant, err,
							       sizeof(err));

		if (ops && ops->prog_stats)
			extra += (PROGSTATS_PASS_RUNS + (extra ? 0 : 2 * progstats_cost_pairs(a->reps))) *
				 per_run;
	}
	return p->n * (cal + 2.0 * (plan_total_reps(a) + (a->latency ? PLAN_LATENCY_PAIRS : 0)) * per_run +
		       (plan_rounds(a) - 1) * EST_VISIT_S) + extra;
}

/* As many as --reps, even (as many pairs of each order), 2 to PROGSTATS_COST_MAX_PAIRS. */
int progstats_cost_pairs(int reps)
{
	int n = (reps + 1) / 2 * 2;

	return n < 2 ? 2 : n > PROGSTATS_COST_MAX_PAIRS ? PROGSTATS_COST_MAX_PAIRS : n;
}
