/*
 * tracetax budget: what tracing would cost this box now. The events each
 * tracer's hooks would see, counted for --for seconds (measure/rates.c),
 * times each tracer's cost per event, from the results store or measured
 * now by the runner (session.c); with -w cmd:'COMMAND', that prediction
 * checked against COMMAND measured under each tracer. docs/budget.md.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "base/atomic_file.h"
#include "audit/audit_nl.h"
#include "base/cmdline.h"
#include "base/hostid.h"
#include "base/lock.h"
#include "base/signals.h"
#include "base/util.h"
#include "cli/cli.h"
#include "cmd/budget_args.h"
#include "cmd/budget_cost.h"
#include "cmd/cmd.h"
#include "cmd/session.h"
#include "doc/budget.h"
#include "doc/write.h"
#include "load/syscalls.h"
#include "load/workloads.h"
#include "measure/env.h"
#include "measure/rates.h"
#include "output/budget.h"
#include "store/store.h"
#include "tracers/tracer.h"

/*
 * The load's workload that matches the dominant events: the loop of the
 * most frequent syscall when the load has one, else getpid (the hook's
 * fixed cost on the cheapest syscall).
 */
static const char *cost_workload(const struct budget_args *a, const struct budget *b)
{
	const struct budget_rates *r = &b->rates;
	const struct budget_audit *au = budget_audit_of(b);
	const char *top = a->target ? a->target : r->nnrs ? r->nrs[0].name : "getpid";
	const struct workload *pick = NULL;

	for (const struct workload *w = workloads; w->name; w++)
		if (w->syscall && w->lib == WL_NONE && !strcmp(w->syscall, top))
			pick = w;
	/*
	 * audit:rules' walk is measured on a syscall its rules do not name:
	 * the top one, else getpid, else the first of the load's loops that is
	 * not named (a set naming every syscall: getpid, its cost then a record's)
	 */
	if (au && !au->all_syscalls && (!pick || budget_audit_names(au, pick))) {
		pick = workload_find("getpid");
		for (const struct workload *w = workloads; w->name && budget_audit_names(au, pick); w++)
			if (w->syscall && w->lib == WL_NONE && !w->cmd)
				pick = w;
	}
	return pick ? pick->name : "getpid";
}

/* audit:rules' prediction, from the rules of --audit-rules (a usage error without). */
static struct budget_audit *audit_budget(struct budget_args *a)
{
	struct budget_audit *au;

	if (!a->audit_rules)
		die_usage("which rules? -t " AUDIT_TRACER " needs --audit-rules FILE");
	au = budget_audit_new(a->rs.sum, a->rs.n);
	snprintf(au->file, sizeof(au->file), "%s", a->audit_rules);
	snprintf(au->digest, sizeof(au->digest), "%s", a->rs.digest);
	au->dropped = a->rs.dropped;
	return au;
}

/* The budget document into the store, beside the runs (report shows it). */
static int record_budget(const struct budget_args *a, const struct budget *b)
{
	char path[4096], err[512], *doc;
	struct store *s;
	int64_t id;
	int ret;

	if (store_path(a->store, path, sizeof(path), err, sizeof(err)))
		return error("cannot record the budget: %s", err);
	s = store_open(path, true, err, sizeof(err));
	if (!s)
		return error("cannot record the budget: %s", err);
	doc = doc_budget_json(b);
	ret = store_record_budget(s, doc, &id, err, sizeof(err));
	if (ret)
		error("%s", err);
	else if (!a->quiet)
		fprintf(stderr, "budget recorded as %lld in '%s' (tracetax report shows it)\n",
			(long long)id, store_name(s));	/* a URI's password redacted */
	free(doc);
	store_close(s);
	return ret;
}

/* The tracers of -t, checked and expanded as run does, into @b; -w's commands checked */
static void tracers_of(struct budget_args *a, struct budget *b)
{
	struct run_args ra;
	char err[512];

	budget_run_args(a, NULL, &ra);
	for (int i = 0; i < ra.m.nworkloads; i++)
		if (a->nworkloads && !workload_find(ra.m.workloads[i])->cmd)
			die_usage("budget checks cmd:'COMMAND' workloads only, not '%s' (-w)",
				  ra.m.workloads[i]);
	for (int i = 0; i < ra.m.ntracers; i++) {
		struct budget_tracer *t = budget_add_tracer(b);
		const char *variant;
		const struct tracer_ops *ops = tracer_ops_find(ra.m.tracers[i], &variant, err,
							       sizeof(err));

		snprintf(t->name, sizeof(t->name), "%s", ra.m.tracers[i]);
		if (ops && !(ops->hooks & TT_HOOK_SYSCALL))
			die_usage("tracer '%s' hooks no syscall: budget counts syscalls only", t->name);
		t->cost.tool = ops && (ops->flags & TT_F_TOOL);
		if (!strcmp(t->name, AUDIT_TRACER))
			t->audit = audit_budget(a);
	}
	/* --measure would run audit cells: before the count, not after it */
	if (a->measure)
		cmd_refuse_residue(ra.m.tracers, ra.m.ntracers, a->accept_residue);
	cli_release(&ra);
	if (a->audit_rules && !budget_audit_of(b))
		die_usage("--audit-rules '%s' is for -t " AUDIT_TRACER, a->audit_rules);
}

int cmd_budget(int argc, char **argv)
{
	struct budget_args a;
	struct budget *b = calloc(1, sizeof(*b));
	struct rates_opts ro;
	char err[512];
	const char *workload;
	int ret = 0;

	if (!b)
		die("out of memory");
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--attached")) {
			free(b);
			return cmd_budget_attached(argc, argv);
		}
	budget_parse(argc, argv, &a);
	tracers_of(&a, b);
	if (a.json && atomic_file_check(a.json, err, sizeof(err)))
		die_usage("%s", err);
	/* before the lock: what budget needs, said in one line (not a usage error) */
	if (rates_allowed(err, sizeof(err))) {
		error("%s", err);
		ret = EXIT_FAILED;
		goto out;
	}
	/* the lock as run takes it: --no-wait before the signal thread, waiting after */
	if (a.wait_s == LOCK_NOWAIT)
		cmd_take_lock(LOCK_NOWAIT);
	cmd_signals_once();
	if (a.wait_s != LOCK_NOWAIT)
		cmd_take_lock(a.wait_s);
	environment_collect(&b->env);
	b->max_age_h = a.max_age_h;
	ro = (struct rates_opts){ .seconds = a.seconds, .pid = a.pid, .cgroup = a.cgroup,
				  .target = a.target, .by_auid = budget_audit_of(b) != NULL };
	if (!a.quiet)
		fprintf(stderr, "counting events for %d s...\n", a.seconds);
	ret = rates_count(&ro, &b->rates, err, sizeof(err));
	if (ret >= 128) {
		error("interrupted by signal %d: the counter detached, no results", ret - 128);
		goto out;
	}
	if (ret) {
		error("%s", err);
		ret = EXIT_FAILED;
		goto out;
	}
	workload = cost_workload(&a, b);
	if (!a.measure) {
		budget_stored_costs(&a, b, workload);
		if (strcmp(workload, "getpid"))
			budget_stored_costs(&a, b, "getpid");
	} else if ((ret = budget_measure_now(&a, b, workload)) >= 128) {
		goto out;
	}
	budget_finish(b);
	for (int i = 0; i < b->ntracers; i++)
		output_budget_verdict(b, &b->tracers[i], b->tracers[i].verdict,
				      sizeof(b->tracers[i].verdict));
	if (!a.json || strcmp(a.json, "-"))
		output_budget(b, stdout);
	if (a.json && doc_budget_write(b, a.json))
		ret = exit_worst(ret, EXIT_FAILED);
	if (!a.no_store && record_budget(&a, b))
		ret = exit_worst(ret, EXIT_FAILED);
out:
	budget_release(b);
	free(b);
	free(a.tracers);
	free(a.workloads);
	if (a.audit_rules)
		audit_rules_free(&a.rs);
	signals_reraise();
	return ret;
}
