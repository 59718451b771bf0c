/*
 * BPF program self-time (progstats.h).
 *
 * Stats cost time themselves: while they are on, every run of every BPF
 * program reads the clock twice and adds to per-CPU counters. So they are
 * never on during a rep. After the reps, three more traced runs are made
 * with them on, and the program's run_time_ns and run_cnt (bpf_prog_info)
 * are read around each. They are turned on with BPF_ENABLE_STATS, whose fd turns
 * them off again when closed, even if tracetax is killed: the sysctl
 * kernel.bpf_stats_enabled is never written (and reads the same before and
 * after a run: the kernel keeps the fd's count apart from it).
 *
 * Once a run, the first BPF cell also measures what stats cost an event:
 * pairs of traced runs, one with stats on and one without, in alternating
 * order, as the reps pair a baseline with a traced run.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <linux/bpf.h>

#include "measure/progstats.h"
#include "base/signals.h"
#include "results/stats.h"
#include "base/util.h"

#define COST_MAX_PAIRS PROGSTATS_COST_MAX_PAIRS
#define PASS_RUNS PROGSTATS_PASS_RUNS

int progstats_sysctl(void)
{
	char buf[16];

	if (read_file_str("/proc/sys/kernel/bpf_stats_enabled", buf, sizeof(buf)))
		return -1;
	return strcmp(buf, "0") ? 1 : 0;
}

/* BPF stats on until the fd is closed; -1 and the kernel's words in @why. */
static int stats_on(char *why, size_t len)
{
	int fd = bpf_enable_stats(BPF_STATS_RUN_TIME);

	if (fd < 0)
		snprintf(why, len, "kernel refused BPF_ENABLE_STATS: %s", strerror(-fd));
	return fd;
}

/* One traced run for the cost of stats; its ns/op. 0, or -1 (the cell failed). */
static int cost_run(struct cell_ctx *x, bool stats, double *ns)
{
	struct load_result res = { 0 };
	struct tt_hits h;
	char why[TT_REASON_MAX];
	int fd = stats ? stats_on(why, sizeof(why)) : -1, rc;

	if (stats && fd < 0)
		return cell_fail(x->c, "%s", why);
	rc = cell_run_traced(x, &res, &h);
	if (fd >= 0)
		close(fd);
	*ns = res.ns_per_op;
	load_result_release(&res);
	return rc;
}

static void measure_cost(struct cell_ctx *x, struct stats_cost *cost)
{
	int n = progstats_cost_pairs(x->a->reps);
	double d[COST_MAX_PAIRS];

	signals_doing("measuring what BPF stats cost on '%s'", x->t.name);
	x->t.phase = "stats-cost";
	for (int i = 0; i < n; i++) {
		double on, off;
		bool on_first = i % 2 == 0;

		if (cost_run(x, on_first, on_first ? &on : &off) ||
		    cost_run(x, !on_first, on_first ? &off : &on)) {
			/* the next BPF cell tries again: cost->measured is still false */
			cell_keep_reps(x, "the pairs measuring what BPF stats cost");
			return;
		}
		d[i] = on - off;
	}
	snprintf(cost->tracer, sizeof(cost->tracer), "%s", x->c->tracer);
	snprintf(cost->workload, sizeof(cost->workload), "%s", x->c->workload);
	cost->threads = x->c->threads;
	cost->pairs = n;
	cost->mean = stats_mean(d, (size_t)n);
	stats_t_ci(d, (size_t)n, 0.95, cost->ci95);
	cost->measured = true;
}

/*
 * The pass's runs, stats on: per-run ns of each (the program's counters
 * read around it), totals into @p. A VM exit or an interrupt inside the
 * program's window counts as program time: the median of PASS_RUNS runs
 * keeps one such run from moving the figure. 0, 1 (the counters could
 * not be read: t->err), or -1 (a run failed the cell).
 */
static int pass_runs(struct cell_ctx *x, struct prog_time *p, double *per_run)
{
	struct tt_prog_stats s0, s1;
	struct load_result res = { 0 };
	struct tt_hits h;
	int rc;

	for (int i = 0; i < PASS_RUNS; i++) {
		if (tracer_prog_stats(&x->t, &s0) != TT_OK)
			return 1;
		rc = cell_run_traced(x, &res, &h);
		p->events += rc ? 0 : res.events;
		load_result_release(&res);	/* its threads' figures: not needed here */
		if (rc)
			return -1;
		if (tracer_prog_stats(&x->t, &s1) != TT_OK)
			return 1;
		p->run_cnt += (int64_t)(s1.run_cnt - s0.run_cnt);
		p->run_ns += (double)(s1.run_ns - s0.run_ns);
		p->hits = p->hits < 0 || h.hits < 0 ? -1 : p->hits + h.hits;
		per_run[i] = s1.run_cnt > s0.run_cnt ?
			(double)(s1.run_ns - s0.run_ns) / (double)(s1.run_cnt - s0.run_cnt) : NAN;
	}
	return 0;
}

void progstats_pass(struct cell_ctx *x, struct stats_cost *cost)
{
	struct prog_time *p = &x->c->prog;
	double per_run[PASS_RUNS];
	int fd, rc;

	if (!x->t.ops->prog_stats || signals_interrupted())
		return;
	p->bpf = true;
	if (progstats_sysctl() == 1)
		tracer_note(&x->t, "BPF stats were on during the reps (kernel.bpf_stats_enabled): "
			    "the overhead includes their cost");
	signals_doing("measuring the program of '%s' with BPF stats on", x->t.name);
	fd = stats_on(p->reason, sizeof(p->reason));
	if (fd < 0) {
		tracer_note(&x->t, "no program time: %s", p->reason);
		return;
	}
	x->t.phase = "stats-pass";
	rc = pass_runs(x, p, per_run);
	close(fd);
	if (rc < 0) {
		/* what the pass counted is partial: no program time, and why */
		snprintf(p->reason, sizeof(p->reason), "the BPF-stats pass failed: %s", x->c->reason);
		p->run_cnt = 0;
		p->run_ns = 0;
		p->hits = p->events = 0;
		cell_keep_reps(x, "the BPF-stats pass");
		return;
	}
	if (!rc && p->run_cnt <= 0)
		snprintf(x->t.err, sizeof(x->t.err), "the program did not run with stats on");
	if (rc || p->run_cnt <= 0) {
		snprintf(p->reason, sizeof(p->reason), "%s", x->t.err);
		tracer_note(&x->t, "no program time: %s", p->reason);
		return;
	}
	p->runs = PASS_RUNS;
	p->ns_per_run = stats_median(per_run, PASS_RUNS);
	p->range[0] = p->range[1] = per_run[0];
	for (int i = 1; i < PASS_RUNS; i++) {
		p->range[0] = fmin(p->range[0], per_run[i]);
		p->range[1] = fmax(p->range[1], per_run[i]);
	}
	p->measured = isfinite(p->ns_per_run);
	if (!p->measured)	/* a command that made no target event: nothing to divide by */
		snprintf(p->reason, sizeof(p->reason), "the workload made no target event");
	/* every hit is a run of the program: fewer runs mean a count of ours is wrong */
	if (p->hits > p->run_cnt)
		tracer_note(&x->t, "the program ran %lld times for %lld hits",
			    (long long)p->run_cnt, (long long)p->hits);
	if (cost && !cost->measured)
		measure_cost(x, cost);
}
