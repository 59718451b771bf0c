/*
 * A cmd: workload's cell (cmdload_pass.h): its command split and found,
 * its directory made, and the counting pass that tells its events per run
 * before the reps; after the cell, its directory removed.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/util.h"
#include "base/workdir.h"
#include "measure/cell.h"
#include "measure/cmdload.h"
#include "measure/cmdload_pass.h"
#include "results/stats.h"

static int64_t read_counter(int fd)
{
	uint64_t v = 0;

	return fd >= 0 && read(fd, &v, sizeof(v)) == (ssize_t)sizeof(v) ? (int64_t)v : -1;
}

static double mean_of(const double *v, int n)
{
	double s = 0;

	for (int i = 0; i < n; i++)
		s += v[i] / n;
	return s;
}

/* The counting pass: untraced runs with the counters on. 0, or -1 with the cell failed. */
static int count_pass(struct cell_ctx *x, struct cmdload *cl)
{
	double tree[CMDLOAD_COUNT_RUNS], main_[CMDLOAD_COUNT_RUNS], ms[CMDLOAD_COUNT_RUNS];
	struct load_result res;
	int ret = 0;

	cl->counting = true;
	for (int i = 0; i < CMDLOAD_COUNT_RUNS && !ret; i++) {
		ret = cell_run_base(x, &res);
		ms[i] = res.max_thread_ns / 1e6;
		load_result_release(&res);
		tree[i] = (double)read_counter(cl->fd_tree);
		main_[i] = (double)read_counter(cl->fd_main);
		cmdload_close_counters(cl);
		if (!ret && (tree[i] < 0 || main_[i] < 0))
			ret = cell_fail(x->c, "cannot read the count of tracepoint '%s:%s'",
					cl->tp_system, cl->tp_event);
	}
	cl->counting = false;
	if (ret)
		return -1;
	cl->events = llround(mean_of(tree, CMDLOAD_COUNT_RUNS));
	cl->main_events = llround(mean_of(main_, CMDLOAD_COUNT_RUNS));
	cl->events_cv = cl->events > 0 ? stats_cv(tree, CMDLOAD_COUNT_RUNS) : 0;
	cl->run_ms = mean_of(ms, CMDLOAD_COUNT_RUNS);
	return 0;
}

int cmdload_prepare(struct cell_ctx *x)
{
	struct cmdload *cl = calloc(1, sizeof(*cl));
	struct cell *c = x->c;
	char err[256];

	if (!cl)
		die("out of memory");
	x->cmd = cl;
	cl->fd_tree = cl->fd_main = -1;
	cl->exit_status = -1;
	cl->timeout_ms = x->a->cmd_timeout_s * 1000;
	snprintf(cl->tp_system, sizeof(cl->tp_system), "%s", x->t.tp_system);
	snprintf(cl->tp_event, sizeof(cl->tp_event), "%s", x->t.tp_event);
	if (cmdline_split(c->workload + 4, &cl->line, err, sizeof(err)) || !cl->line.n) {
		return cell_fail(c, "invalid command of workload '%s'", c->workload);
	}
	if (path_which(cl->line.w[0], cl->path, sizeof(cl->path))) {
		return cell_fail(c, "command '%s' not found (not in PATH)", cl->line.w[0]);
	}
	/* a directory named as the tools' are: a tracetax killed leaves it to the next to remove */
	if (workdir_create(cl->dir, sizeof(cl->dir), err, sizeof(err)))
		return cell_fail(c, "%s", err);
	snprintf(cl->out, sizeof(cl->out), "%s/" CMDLOAD_OUTPUT_FILE, cl->dir);
	x->base.spec.cmd = x->traced.spec.cmd = cl->line.w;
	x->base.spec.cmd_path = x->traced.spec.cmd_path = cl->path;
	x->base.spec.cmd_out = x->traced.spec.cmd_out = cl->out;
	if (count_pass(x, cl))
		return -1;
	/* one op per run, of events ops: the core's ns per op is then ns per event */
	x->base.spec.iterations = x->traced.spec.iterations = cl->events > 0 ? cl->events : 1;
	x->base.spec.warmup = x->traced.spec.warmup = 0;
	x->base.expect_ms = x->traced.expect_ms = cl->run_ms;
	c->cmd.events_per_run = cl->events;
	c->cmd.main_events = cl->main_events;
	c->cmd.events_cv = cl->events_cv;
	c->cmd.run_ms = cl->run_ms;
	return 0;
}

void cmdload_release(struct cell_ctx *x)
{
	struct cmdload *cl = x->cmd;
	if (!cl)
		return;
	cmdload_close_counters(cl);
	x->c->cmd.exit_status = cl->exit_status;
	if (cl->keep) {
		snprintf(x->c->cmd.output, sizeof(x->c->cmd.output), "%s", cl->out);
	} else {
		workdir_remove(cl->dir);
	}
	free(cl);
	x->cmd = NULL;
}
