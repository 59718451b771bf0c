/*
 * A measurement session, shared by run, pair and experiment: the lock,
 * signals, the plan through the runner, then the outputs and the store.
 */
#include <string.h>
#include <stdlib.h>

#include <tracefs.h>

#include "base/cpus.h"
#include "base/signals.h"
#include "base/tracefs_util.h"
#include "base/util.h"
#include "cmd/cmd.h"
#include "cmd/session.h"
#include "doc/write.h"
#include "measure/clocks.h"
#include "measure/env.h"
#include "measure/plan.h"
#include "measure/runner.h"
#include "output/export.h"
#include "output/pair.h"
#include "output/table.h"
#include "tracers/tracer.h"

static void run_output(const struct run_args *a, const struct results *r, int *ret)
{
	/* --json -: stdout holds the document alone; the table goes to stderr */
	bool json_out = a->json_path && !strcmp(a->json_path, "-");
	FILE *table = a->no_table ? NULL : json_out ? (a->quiet ? NULL : stderr) : stdout;

	if (table)
		output_table(r, table, cmd_want_colour(a->colour, fileno(table)));
	if (table && a->explain[0])
		output_explain(r, a->explain, table);
	if (a->json_path && output_json_file(r, a->json_path))
		*ret = EXIT_FAILED;
	if (a->csv_path && output_file(a->csv_path, NULL, r, output_csv))
		*ret = EXIT_FAILED;
	if (a->markdown_path && output_file(a->markdown_path, NULL, r, output_markdown))
		*ret = EXIT_FAILED;
	/* after the table: a store that fails costs the record, not the figures */
	if (!a->no_store && cmd_record_run(a->store, r, a->quiet))
		*ret = EXIT_FAILED;
}

int run_measure(const struct run_args *a, run_hook hook, void *arg)
{
	struct results r;
	struct plan p;
	cpu_set_t cpus, old_cpus;
	char err[256];
	int ret, removed = 0;

	if (plan_build(&a->m, &p))
		die("out of memory");
	if (a->dry_run) {
		plan_print(&p, &a->m, stdout);
		plan_release(&p);
		return 0;
	}
	if (a->json_path && output_json_check(a->json_path, err, sizeof(err)))
		die_usage("%s", err);
	if (a->csv_path && output_json_check(a->csv_path, err, sizeof(err)))
		die_usage("%s", err);
	if (a->markdown_path && output_json_check(a->markdown_path, err, sizeof(err)))
		die_usage("%s", err);
	/*
	 * --no-wait fails before the signal thread exists: a process that exits
	 * while a detached thread is still starting leaves LeakSanitizer a
	 * half-built thread to report. Waiting needs the thread (Ctrl-C).
	 */
	if (a->no_wait)
		cmd_take_lock(true);
	cmd_signals_once();
	if (!a->no_wait)
		cmd_take_lock(false);
	/* a fresh machine may not have tracefs mounted: libtracefs mounts it */
	tracefs_tracing_dir();
	memset(&r, 0, sizeof(r));
	tracefs_cleanup_stale(&removed);
	if (removed)
		warning("removed %d tracefs instance(s) left by a killed tracetax", removed);
	removed = 0;
	tracers_cleanup_stale(&removed);
	if (removed)
		warning("removed %d tool directory(ies) left by a killed tracetax", removed);
	/* --cpus: every process a cell starts inherits the set (base/cpus.h) */
	if (a->m.cpus && (cpus_parse_list(a->m.cpus, "--cpus", &cpus, err, sizeof(err)) ||
			  cpus_restrict(&cpus, &old_cpus)))
		die("cannot run on CPUs '%s'", a->m.cpus);
	environment_collect(&r.env);
	clocks_for_run(&r.timing);
	ret = runner_run(&p, &a->m, cmd_find_load(), &r, a->quiet ? NULL : stderr);
	if (a->m.cpus)
		cpus_restrict(&old_cpus, NULL);
	snprintf(r.opts.cpus, sizeof(r.opts.cpus), "%s", a->m.cpus ? a->m.cpus : "");
	r.opts.rotate = a->m.rotate;
	if (ret >= 128)
		error("interrupted by signal %d: tracing torn down, no results written", ret - 128);
	else {
		if (hook)
			hook(&r, arg);
		run_output(a, &r, &ret);
	}
	r.claims = NULL;
	results_release(&r);
	plan_release(&p);
	return ret;
}

int pair_measure(const struct pair_args *a, pair_hook hook, void *arg)
{
	struct pair_results *r = malloc(sizeof(*r));
	char err[256];
	int ret;

	if (!r)
		die("out of memory");
	if (a->json_path && output_json_check(a->json_path, err, sizeof(err)))
		die_usage("%s", err);
	cmd_signals_once();
	cmd_take_lock(false);
	ret = pair_run(a, cmd_find_load(), r);
	if (ret >= 128) {
		error("interrupted by signal %d: probes detached, no results written", ret - 128);
	} else {
		if (!a->json_path || strcmp(a->json_path, "-"))
			output_pair_table(r, stdout);
		if (a->json_path && output_pair_json(r, a->json_path))
			ret = 1;
		if (hook)
			hook(r, arg);
	}
	pair_release(r);
	free(r);
	return ret;
}
