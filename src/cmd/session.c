/*
 * A measurement session, shared by run, pair and experiment: the lock,
 * signals, the plan through the runner, then the outputs and the store.
 */
#include <string.h>
#include <stdlib.h>
#include <errno.h>
#include <unistd.h>

#include <tracefs.h>

#include "base/atomic_file.h"
#include "base/cpus.h"
#include "base/lock.h"
#include "base/signals.h"
#include "base/tracefs_util.h"
#include "base/util.h"
#include "cmd/cmd.h"
#include "cmd/session.h"
#include "doc/read.h"
#include "doc/write.h"
#include "measure/clocks.h"
#include "measure/env.h"
#include "measure/plan.h"
#include "measure/runner.h"
#include "measure/slowpath.h"
#include "vm/vm.h"
#include "output/export.h"
#include "output/pair.h"
#include "output/rate.h"
#include "output/plan.h"
#include "output/table.h"
#include "store/session.h"
#include "tracers/tracer.h"

/* Whether stdout holds an export (--json -, --csv -, --markdown -): the table goes to stderr. */
static bool export_to_stdout(const struct run_args *a)
{
	return (a->json_path && !strcmp(a->json_path, "-")) ||
	       (a->csv_path && !strcmp(a->csv_path, "-")) ||
	       (a->markdown_path && !strcmp(a->markdown_path, "-"));
}

/*
 * The outputs' paths, checked before minutes of measuring. node_exporter
 * reads the DIR/NAME.prom files only: the textfile is written as
 * .tracetax.prom.tmp.XXXXXX and renamed, so a scrape sees the last run or
 * this one.
 */
static void check_outputs(const struct run_args *a, char *prom_path, size_t len)
{
	char err[4200];

	if (a->json_path && atomic_file_check(a->json_path, err, sizeof(err)))
		die_usage("%s", err);
	if (a->csv_path && atomic_file_check(a->csv_path, err, sizeof(err)))
		die_usage("%s", err);
	if (a->markdown_path && atomic_file_check(a->markdown_path, err, sizeof(err)))
		die_usage("%s", err);
	if (a->prom_dir) {
		snprintf(prom_path, len, "%s/tracetax.prom", a->prom_dir);
		if (atomic_file_check(prom_path, err, sizeof(err)))
			die_usage("%s", err);
	}
}

/* The files: --json, --csv, --markdown, the Prometheus textfile. */
static void write_exports(const struct run_args *a, const char *prom_path, struct results *r,
			  int *ret)
{
	if (a->json_path && output_json_file(r, a->json_path))
		*ret = exit_worst(*ret, EXIT_FAILED);
	if (a->csv_path && output_file(a->csv_path, NULL, r, output_csv))
		*ret = exit_worst(*ret, EXIT_FAILED);
	if (a->markdown_path && output_file(a->markdown_path, NULL, r, output_markdown))
		*ret = exit_worst(*ret, EXIT_FAILED);
	if (a->prom_dir && output_file(prom_path, NULL, r, output_prometheus))
		*ret = exit_worst(*ret, EXIT_FAILED);
}

static void run_output(const struct run_args *a, const char *prom_path, struct results *r,
		       int *ret)
{
	/* --json -, --csv -, --markdown -: stdout holds the export alone; the
	 * table goes to stderr (nowhere with -q) */
	FILE *table = a->no_table ? NULL : export_to_stdout(a) ? (a->quiet ? NULL : stderr) : stdout;

	/* before every output: the table and the document state the same intervals */
	store_set_repeat(a->store, a->no_store, r);
	if (table)
		output_table(r, table, cmd_want_colour(a->colour, fileno(table)));
	if (table && a->explain)
		output_explain(r, a->explain, table);
	write_exports(a, prom_path, r, ret);
	/* after the table: a store that fails costs the record, not the figures */
	if (!a->no_store && store_record_run(a->store, r, a->quiet))
		*ret = exit_worst(*ret, EXIT_FAILED);
}

/*
 * The guest's command line: ours without what the host does itself (the
 * VM, the outputs, the store), and with the document written to the share.
 */
static const char **guest_argv(int argc, char **argv, bool colour, bool store)
{
	static const char *const host_only[] = { "--kernel", "--kernel-modules", "--json", "--csv",
						 "--markdown", "--store",
						 "--prometheus-textfile" };
	const char **v = calloc((size_t)argc + 8, sizeof(*v));
	int n = 0;

	if (!v)
		die("out of memory");
	for (int i = 0; i < argc; i++) {
		const char *s = argv[i];
		bool skip = !strcmp(s, "--no-store");

		for (size_t k = 0; !skip && k < sizeof(host_only) / sizeof(host_only[0]); k++) {
			size_t len = strlen(host_only[k]);

			if (!strncmp(s, host_only[k], len) && s[len] == '=')
				skip = true;
			else if (!strcmp(s, host_only[k]) && i + 1 < argc)
				skip = true, i++;
		}
		if (!skip)
			v[n++] = s;
	}
	if (store)
		v[n++] = "--no-store";
	v[n++] = "--json";
	v[n++] = VM_GUEST_DIR "/result.json";
	if (colour)
		v[n++] = "--color=always";
	v[n] = NULL;
	return v;
}

/*
 * The VM's part of run --kernel, pair --kernel and vm: the lock (the VM's
 * CPUs are the machine's), the VM, what its command left. The guest's exit
 * code (o->document its results, or NULL), or an exit code of ours with a
 * message.
 */
int session_vm(struct vm_spec *spec, int wait_s, struct vm_outcome *o)
{
	const char *who = spec->exe ? "command" : "tracetax";
	char err[1024];
	int ret, removed = 0;

	if (vm_kernel_release(spec->kernel, o->release, sizeof(o->release), err, sizeof(err)))
		die_usage("%s", err);
	if (wait_s == LOCK_NOWAIT)	/* before the signal thread: see run_measure */
		cmd_take_lock(LOCK_NOWAIT);
	cmd_signals_once();
	if (wait_s != LOCK_NOWAIT)
		cmd_take_lock(wait_s);
	vm_cleanup_stale(&removed, NULL, NULL);
	if (removed)
		warning("removed %d VM directory(ies) left by a killed tracetax", removed);
	fflush(stdout);
	ret = vm_run(spec, o, err, sizeof(err));
	if (ret == -2)
		die_usage("%s", err);
	if (ret < 0) {
		error("%s", err);
		return EXIT_FAILED;
	}
	if (ret >= 128) {
		error("interrupted by signal %d: the VM killed%s", ret - 128,
		      spec->exe ? "" : ", no results written");
		return ret;
	}
	if (!spec->quiet)
		fprintf(stderr, "tracetax: the VM (kernel %s, %s) booted in %.1f s, ran %.1f s%s%s\n",
			o->release, o->icount ? "tcg with icount" : o->accel, o->boot_s, o->total_s,
			o->accel_note[0] ? "; " : "",
			o->accel_note);
	ret = o->exit_code;
	/* what tracetax must never do, seen where it ran: a teardown that failed */
	if (o->left && o->left[0]) {
		for (char *l = strtok(o->left, "\n"); l; l = strtok(NULL, "\n"))
			error("the guest's %s left '%s' behind", who, l);
		if (!ret)
			ret = EXIT_FAILED;
	}
	if (!spec->exe && !o->document && ret && ret != EXIT_USAGE) {
		/* the guest said why (its stderr came through); a usage error stays one */
		error("the guest's tracetax exited %d and wrote no results", ret);
		ret = ret > 0 ? ret : EXIT_FAILED;
	}
	return ret;
}

/*
 * run --kernel: the same plan in a VM of the image, by this tracetax; its
 * table comes back as it prints, its document is written and recorded here,
 * in the host's store, with the guest's kernel.
 */
static int run_in_vm(const struct run_args *a, run_hook hook, void *arg)
{
	bool export_out = export_to_stdout(a);
	struct vm_spec spec = {
		.kernel = a->kernel, .modules = a->kernel_modules, .quiet = a->quiet,
		.stdout_to_stderr = export_out,
	};
	struct vm_outcome o = { 0 };
	struct plan p;
	struct doc d;
	char err[1024], prom_path[4096] = "";
	int ret;

	check_outputs(a, prom_path, sizeof(prom_path));
	/* the guest's deadline comes from what the plan should take here */
	if (plan_build(&a->m, &p))
		die("out of memory");
	spec.estimate_s = plan_estimate_s(&p, &a->m);
	spec.cells = p.n;
	if (a->m.precision > 0 && a->m.max_time_s > spec.estimate_s)
		spec.estimate_s = a->m.max_time_s;
	plan_release(&p);
	spec.argv = guest_argv(a->argc, a->argv, a->colour < 0 ?
			       cmd_want_colour(-1, export_out ? 2 : 1) : a->colour > 0, true);
	ret = session_vm(&spec, a->wait_s, &o);
	free((void *)spec.argv);
	if (!o.document) {
		vm_outcome_release(&o);
		return ret;
	}
	if (doc_parse(&d, o.document, strlen(o.document), err, sizeof(err))) {
		o.document = NULL;	/* doc_parse took it */
		vm_outcome_release(&o);
		error("the guest's results: %s", err);
		return EXIT_FAILED;
	}
	o.document = NULL;
	vm_outcome_release(&o);
	if (hook)
		hook(&d.r, arg);
	/* the repeat intervals stay the guest's (none: a VM's), as its table printed them */
	write_exports(a, prom_path, &d.r, &ret);
	if (!a->no_store && store_record_run(a->store, &d.r, a->quiet))
		ret = exit_worst(ret, EXIT_FAILED);
	d.r.claims = NULL;
	doc_release(&d);
	return ret;
}

/*
 * pair --kernel: the pair in a VM; its table comes back as it prints and
 * its document is copied as the guest wrote it (pairs are not stored, and
 * not read back: an experiment's claims on a pair in a VM have no figure).
 */
static int pair_in_vm(const struct pair_args *a)
{
	bool json_out = a->json_path && !strcmp(a->json_path, "-");
	struct vm_spec spec = {
		.kernel = a->kernel, .modules = a->kernel_modules, .quiet = a->quiet,
		.stdout_to_stderr = json_out,
		.cells = (a->nstorages ? a->nstorages : 1) * (a->nthreads ? a->nthreads : 1),
	};
	struct vm_outcome o = { 0 };
	char err[1024];
	int ret;

	if (a->json_path && atomic_file_check(a->json_path, err, sizeof(err)))
		die_usage("%s", err);
	spec.argv = guest_argv(a->argc, a->argv, false, false);
	ret = session_vm(&spec, a->wait_s, &o);
	free((void *)spec.argv);
	/* whole or not at all, as every document tracetax writes */
	if (o.document && a->json_path && atomic_file_text(a->json_path, o.document))
		ret = exit_worst(ret, EXIT_FAILED);
	vm_outcome_release(&o);
	return ret;
}

int run_measure(const struct run_args *a, run_hook hook, void *arg)
{
	struct results r;
	struct plan p;
	cpu_set_t cpus, old_cpus;
	char err[256], prom_path[4096] = "";
	int ret, removed = 0;

	if (a->kernel && !a->dry_run)
		return run_in_vm(a, hook, arg);
	if (plan_build(&a->m, &p))
		die("out of memory");
	if (a->dry_run) {
		plan_print(&p, &a->m, stdout);
		plan_release(&p);
		return 0;
	}
	check_outputs(a, prom_path, sizeof(prom_path));
	/* on the machine itself (a guest's run comes here too), before the lock */
	cmd_refuse_residue(a->m.tracers, a->m.ntracers, a->m.accept_residue);
	/*
	 * --no-wait fails before the signal thread exists: a process that exits
	 * while a detached thread is still starting leaves LeakSanitizer a
	 * half-built thread to report. Waiting needs the thread (Ctrl-C).
	 */
	if (a->wait_s == LOCK_NOWAIT)
		cmd_take_lock(LOCK_NOWAIT);
	cmd_signals_once();
	if (a->wait_s != LOCK_NOWAIT)
		cmd_take_lock(a->wait_s);
	/* a fresh machine may not have tracefs mounted: libtracefs mounts it */
	tracefs_tracing_dir();
	memset(&r, 0, sizeof(r));
	tracefs_cleanup_stale(&removed, NULL);
	if (removed)
		warning("removed %d tracefs instance(s) left by a killed tracetax", removed);
	removed = 0;
	tracers_cleanup_stale(&removed, NULL, NULL);
	if (removed)
		warning("removed %d tool directory(ies) left by a killed tracetax", removed);
	/* --cpus: every process a cell starts inherits the set (base/cpus.h) */
	if (a->m.cpus && (cpus_parse_list(a->m.cpus, "--cpus", &cpus, err, sizeof(err)) ||
			  cpus_restrict(&cpus, &old_cpus)))
		die("cannot run on CPUs '%s'", a->m.cpus);
	environment_collect(&r.env);
	slowpath_probe(&r.slow_path);
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
		run_output(a, prom_path, &r, &ret);
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

	if (a->kernel) {
		free(r);
		return pair_in_vm(a);
	}
	if (!r)
		die("out of memory");
	if (a->json_path && atomic_file_check(a->json_path, err, sizeof(err)))
		die_usage("%s", err);
	if (a->wait_s == LOCK_NOWAIT)	/* before the signal thread: see run_measure */
		cmd_take_lock(LOCK_NOWAIT);
	cmd_signals_once();
	if (a->wait_s != LOCK_NOWAIT)
		cmd_take_lock(a->wait_s);
	ret = pair_run(a, cmd_find_load(), r);
	if (ret >= 128) {
		error("interrupted by signal %d: probes detached, no results written", ret - 128);
	} else {
		if (!a->json_path || strcmp(a->json_path, "-"))
			output_pair_table(r, stdout);
		if (a->json_path && output_pair_json(r, a->json_path))
			ret = exit_worst(ret, EXIT_FAILED);
		if (hook)
			hook(r, arg);
	}
	pair_release(r);
	free(r);
	return ret;
}

int rate_measure(const struct rate_args *a)
{
	struct rate_results *r = malloc(sizeof(*r));
	int ret, removed = 0;

	char *names[RATE_MAX_TRACERS];

	if (!r)
		die("out of memory");
	for (int i = 0; i < a->ntracers; i++)
		names[i] = (char *)a->tracers[i];
	cmd_refuse_residue(names, a->ntracers, a->accept_residue);
	if (a->wait_s == LOCK_NOWAIT)	/* before the signal thread: see run_measure */
		cmd_take_lock(LOCK_NOWAIT);
	cmd_signals_once();
	if (a->wait_s != LOCK_NOWAIT)
		cmd_take_lock(a->wait_s);
	/* what a killed tracetax left (its audit state) is put back before we look */
	tracers_cleanup_stale(&removed, NULL, NULL);
	if (removed)
		warning("removed %d tool directory(ies) left by a killed tracetax", removed);
	ret = rate_run(a, cmd_find_load(), r, a->quiet ? NULL : stderr);
	if (ret >= 128)
		error("interrupted by signal %d: tracing torn down, no results written", ret - 128);
	else
		output_rate_table(r, stdout);
	free(r);
	return ret;
}
