/* tracetax: what tracing costs. main() only dispatches: each command is in src/cmd/. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tracefs.h>

#include "base/tracefs_util.h"
#include "base/util.h"
#include "cmd/cmd.h"
#include "cmd/experiment.h"
#include "version.h"

static const char usage_main[] =
	"usage: tracetax <command> [options]\n"
	"\n"
	"commands:\n"
	"  run        measure what each tracer adds per event (default plan: every\n"
	"             available tracer on the getpid workload, 1 thread)\n"
	"  list       every tracer and workload: available, or skipped and why\n"
	"  clocks     every clock: cost per read, resolution, vDSO, monotonic\n"
	"  pair       the delay between two BPF probes that fire back to back, per\n"
	"             place the start is stored and per thread count\n"
	"  rate       the highest event rate a tracer's consumer keeps up with\n"
	"             (default: auditd's flush modes), its CPU per event\n"
	"  cleanup    remove tracing state left by a tracetax that was killed\n"
	"  history    the runs in the results store (every run records there)\n"
	"  show       a stored run's table again, or a results document's\n"
	"  compare    two runs cell by cell, with verdicts: worse, better, same\n"
	"  export     a run as CSV, Markdown, Prometheus metrics or its results document\n"
	"  import     record results documents (from other machines) in the store\n"
	"  report     one self-contained HTML page of runs: charts, comparison, data\n"
	"  experiment the five threads' experiments: list, show NAME, run NAME (the\n"
	"             original claims beside today's figures)\n"
	"  budget     what tracing would cost this box now: live event rates times\n"
	"             measured cost per event; -w cmd:'...' checks it on a program\n"
	"  vm         any command in a VM of another kernel (--kernel IMAGE -- CMD):\n"
	"             what must not run on this host (audit leaves a cost behind)\n"
	"\n"
	"'tracetax <command> --help' tells more; exit codes: 0 ok, 1 a measurement\n"
	"failed, 2 usage error, 3 another tracer disturbed a cell, 128+N interrupted\n"
	"by signal N; compare: 4 a cell got worse\n";

static const struct { const char *name; int (*fn)(int argc, char **argv); } cmds[] = {
	{ "run", cmd_run }, { "list", cmd_list }, { "cleanup", cmd_cleanup },
	{ "history", cmd_history }, { "show", cmd_show }, { "compare", cmd_compare },
	{ "export", cmd_export }, { "import", cmd_import }, { "report", cmd_report },
	{ "clocks", cmd_clocks }, { "pair", cmd_pair }, { "rate", cmd_rate },
	{ "experiment", cmd_experiment },
	{ "budget", cmd_budget }, { "vm", cmd_vm },
};

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : NULL;

	/*
	 * Whole lines on stdout: `tracetax run > log 2>&1` must not have a
	 * progress or store line of stderr land in the middle of a table row,
	 * which a block-buffered stdout cuts wherever its buffer fills.
	 */
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (getenv("TRACETAX_VERBOSE"))
		tt_verbose = 1;
	/*
	 * A fresh machine may not have tracefs mounted; libtracefs mounts it at
	 * /sys/kernel/tracing on first use (as perf and bpftrace do). Do it
	 * before any tracer probes a path under it.
	 */
	if (cmd && (!strcmp(cmd, "list") || !strcmp(cmd, "cleanup")))
		tracefs_tracing_dir();
	if (!cmd || !strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
		fputs(usage_main, cmd ? stdout : stderr);
		return cmd ? 0 : 2;
	}
	if (!strcmp(cmd, "--version") || !strcmp(cmd, "version")) {
		printf("tracetax %s\n", TRACETAX_VERSION);
		return 0;
	}
	/* run --plan FILE: a plan file's runs (cmd/experiment.c) */
	if (!strcmp(cmd, "run"))
		for (int i = 2; i < argc; i++)
			if (!strcmp(argv[i], "--plan") || !strncmp(argv[i], "--plan=", 7))
				return experiment_run_plan(argc - 1, argv + 1, i - 1);
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(cmd, cmds[i].name))
			return cmds[i].fn(argc - 1, argv + 1);
	die_usage("'%s' is not a tracetax command (see 'tracetax --help')", cmd);
}
