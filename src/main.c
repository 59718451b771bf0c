/* tracetax: what tracing costs. The CLI: run, list, cleanup; the results commands in cmd_*.c. */
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tracefs.h>

#include "cli.h"
#include "cmd.h"
#include "experiment.h"
#include "clocks.h"
#include "lock.h"
#include "output_export.h"
#include "output_list.h"
#include "pair.h"
#include "plan.h"
#include "results.h"
#include "runner.h"
#include "signals.h"
#include "tracefs_util.h"
#include "tracers/tool.h"
#include "util.h"
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
	"  cleanup    remove tracing state left by a tracetax that was killed\n"
	"  history    the runs in the results store (every run records there)\n"
	"  show       a stored run's table again, or a results document's\n"
	"  compare    two runs cell by cell, with verdicts: worse, better, same\n"
	"  export     a run as CSV, Markdown or its results document\n"
	"  import     record results documents (from other machines) in the store\n"
	"  report     one self-contained HTML page of runs: charts, comparison, data\n"
	"  experiment the five threads' experiments: list, show NAME, run NAME (the\n"
	"             original claims beside today's figures)\n"
	"\n"
	"'tracetax <command> --help' tells more; exit codes: 0 ok, 1 a measurement\n"
	"failed, 2 usage error, 3 another tracer disturbed a cell, 128+N interrupted\n"
	"by signal N; compare: 4 a cell got worse\n";

static const char usage_run[] =
	"usage: tracetax run [options]\n"
	"\n"
	"      --plan FILE         the plan in FILE (docs/experiments.md); the other\n"
	"                          options override its fields\n"
	"  -w, --workload LIST     workloads (see 'tracetax list'); default getpid\n"
	"  -t, --tracer LIST       tracers, patterns ('bpf:tp/*', 'all') or groups\n"
	"                          (@tools: strace, bpftrace...; @mechanisms), or\n"
	"                          cmd:'TEMPLATE' (a command of yours); default:\n"
	"                          every mechanism that can hook the workload\n"
	"  -T, --threads LIST      thread counts, one thread pinned per CPU; default 1\n"
	"  -r, --reps N            baseline/traced pairs per cell; default 5\n"
	"      --run-ms N          calibrate each run (baseline and traced, each on\n"
	"                          its own) to about N ms; default 100\n"
	"      --precision PCT     add reps to a cell until its overhead's 95% CI is\n"
	"                          within +-PCT% (A/A cell: of the baseline)\n"
	"      --max-time S        the run's time budget for --precision, shared by\n"
	"                          the cells still to run; default 300\n"
	"  -n, --iterations N      fixed hot-loop iterations per thread (no calibration)\n"
	"      --target SYSCALL    hook this syscall instead of the workload's own\n"
	"                          (collateral cost: what a tracer of close costs getpid)\n"
	"      --target SYS:EVENT  or any tracepoint, for ftrace:syscall, perf:* and\n"
	"                          bpf:tp ('tcp:tcp_probe'); other tracers skip\n"
	"      --msg-size N        bytes per message of tcp and tcp-rr; default 1448\n"
	"      --cmd-timeout S     a run of a cmd:'COMMAND' workload still going after\n"
	"                          S seconds is killed, and its cell fails; default 60\n"
	"      --ready ERE         a cmd:'TOOL ... {cmd}|{pid}' tracer is attached once\n"
	"                          its output matches (default: {pid} after 1 s)\n"
	"      --hits ERE          its hits: the numbers ERE's group captures, summed,\n"
	"                          or its matching lines; default unknown\n"
	"      --seed N            seed of rep order and bootstrap; default 1\n"
	"      --tracer-cpu WHERE  where a tracer the workload waits on runs (ptrace\n"
	"                          helper, seccomp supervisor): same CPU as the\n"
	"                          workload (default, reproducible), other, any\n"
	"      --json FILE         write the results document (schema: docs/schema.md);\n"
	"                          '-': to stdout, and the table to stderr\n"
	"      --csv FILE          also write the table as CSV, one row per cell\n"
	"      --markdown FILE     also write it as a Markdown table\n"
	"      --store PATH        record the run in this results store (default:\n"
	"                          $TRACETAX_DB, else $XDG_DATA_HOME/tracetax/results.db,\n"
	"                          else ~/.local/share/tracetax/results.db)\n"
	"      --no-store          record nothing\n"
	"      --dry-run           print the plan (cells, rep orders, an estimate of\n"
	"                          the time) and touch nothing\n"
	"      --color WHEN        auto, always, never (NO_COLOR is honoured)\n"
	"      --latency           also time every call: percentiles and log2 histograms\n"
	"                          per cell, from runs of their own after the reps\n"
	"      --no-wait           another measurement holds the machine's lock: exit 2\n"
	"                          at once (default: wait for it, saying for whom)\n"
	"      --explain TRACER    after the table, what one event goes through with\n"
	"                          TRACER (one of -t), a figure beside each step\n"
	"  -q, --quiet             no progress lines (and no table with --json -)\n";

static const char usage_clocks[] =
	"usage: tracetax clocks [--json] [--reads N]\n"
	"\n"
	"Reads every clock N times (default 1000000): the cost of a read (mean, and\n"
	"p99 of reads timed one by one), the resolution (clock_getres, and the\n"
	"smallest step seen), whether the vDSO serves it, whether it went back;\n"
	"then the clocksource and the TSC's rate and flags.\n";

static const char usage_pair[] =
	"usage: tracetax pair [options]\n"
	"\n"
	"Two BPF probes on the workload's syscall path: the first stores a\n"
	"timestamp, the second takes the difference. What separates them is the\n"
	"probes and the storage of the start, nothing else.\n"
	"\n"
	"  -w, --workload W        a syscall workload; default getpid\n"
	"      --pair KIND         enter: raw_syscalls:sys_enter -> syscalls:sys_enter_<sc>\n"
	"                          (one dispatch: the 'should be zero' case, default);\n"
	"                          syscall: sys_enter_<sc> -> sys_exit_<sc>; func: a\n"
	"                          kernel function and the one it calls (getpid)\n"
	"  -s, --storage LIST      where the start is kept: global, percpu, hash (by\n"
	"                          thread), lock (a map entry under bpf_spin_lock), all;\n"
	"                          default all\n"
	"  -T, --threads LIST      thread counts; default 1\n"
	"      --clock CLOCK       ktime (bpf_ktime_get_ns, default), boot, coarse\n"
	"  -n, --iterations N      ops per thread; default 200000\n"
	"      --json FILE         write the document ('-': stdout, no table)\n"
	"  -q, --quiet             no progress lines\n";

static const char usage_list[] =
	"usage: tracetax list [--json]\n"
	"\n"
	"Lists every tracer (with its variants) and whether it can run here, with\n"
	"the kernel's or the system's reason when it cannot; then the workloads.\n";

/* tracetax-load lives next to tracetax; TRACETAX_LOAD overrides. */
static const char *find_load(void)
{
	static char path[PATH_MAX];
	const char *env = getenv("TRACETAX_LOAD");
	ssize_t n;

	if (env && *env)
		return env;
	n = readlink("/proc/self/exe", path, sizeof(path) - 32);
	if (n < 0)
		die("cannot find own executable: readlink /proc/self/exe failed");
	path[n] = '\0';
	strcat(dirname(path), "/tracetax-load");
	if (access(path, X_OK))
		die("cannot find workload binary '%s'", path);
	return path;
}

static int want_colour(int setting, int fd)
{
	if (setting >= 0)
		return setting;
	return isatty(fd) && !getenv("NO_COLOR");
}

/* One hint per error line: the parser's own "(see ...)" wins over ours. */
static void die_usage_hint(const char *err, const char *hint)
{
	if (strstr(err, "(see '"))
		die_usage("%s", err);
	die_usage("%s (see '%s')", err, hint);
}

static void run_output(const struct run_args *a, const struct results *r, int *ret)
{
	/* --json -: stdout holds the document alone; the table goes to stderr */
	bool json_out = a->json_path && !strcmp(a->json_path, "-");
	FILE *table = json_out ? (a->quiet ? NULL : stderr) : stdout;

	if (table)
		output_table(r, table, want_colour(a->colour, fileno(table)));
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

/*
 * One measurement at a time on the machine. Waiting is the default: two
 * CI jobs that meet on one runner both get correct figures, the second
 * later, instead of the second failing for its neighbour (--no-wait: exit
 * 2 at once). Interrupted while waiting, tracetax dies of the signal.
 */
static void take_lock(bool no_wait)
{
	char err[256];

	if (!lock_acquire(no_wait ? LOCK_NOWAIT : LOCK_WAIT, signals_interrupted, err, sizeof(err)))
		return;
	if (signals_interrupted()) {
		error("%s", err);
		signals_reraise();
	}
	die_usage("%s%s", err, no_wait ? " (--no-wait)" : "");
}

/* Signal handling once per process: an experiment measures several times. */
static void signals_once(void)
{
	static bool ready;

	if (!ready && signals_init())
		die("cannot set up signal handling");
	ready = true;
}

int run_measure(const struct run_args *a, run_hook hook, void *arg)
{
	struct results r;
	struct plan p;
	char err[256];
	int ret, removed = 0;

	if (plan_build(a, &p))
		die("out of memory");
	if (a->dry_run) {
		plan_print(&p, a, stdout);
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
		take_lock(true);
	signals_once();
	if (!a->no_wait)
		take_lock(false);
	/* a fresh machine may not have tracefs mounted: libtracefs mounts it */
	tracefs_tracing_dir();
	memset(&r, 0, sizeof(r));
	tracefs_cleanup_stale(&removed);
	if (removed)
		warning("removed %d tracefs instance(s) left by a killed tracetax", removed);
	removed = 0;
	tool_cleanup_stale(&removed);
	if (removed)
		warning("removed %d tool directory(ies) left by a killed tracetax", removed);
	environment_collect(&r.env);
	clocks_for_run(&r.timing);
	ret = runner_run(&p, a, find_load(), &r, a->quiet ? NULL : stderr);
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
	signals_once();
	take_lock(false);
	ret = pair_run(a, find_load(), r);
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

static int cmd_run(int argc, char **argv)
{
	struct run_args a;
	char err[256];
	int ret;

	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--plan") || !strncmp(argv[i], "--plan=", 7))
			return experiment_run_plan(argc, argv, i);
	if (cli_parse_run(argc, argv, &a, err, sizeof(err)))
		die_usage_hint(err, "tracetax run --help");
	if (a.help) {
		fputs(usage_run, stdout);
		cli_release(&a);
		return 0;
	}
	ret = run_measure(&a, NULL, NULL);
	cli_release(&a);
	signals_reraise();
	return ret;
}

static int cmd_list(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, json = 0;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (c == 'j')
			json = 1;
		else if (c == 'h') {
			fputs(usage_list, stdout);
			return 0;
		} else
			die_usage("unknown option '%s' (see 'tracetax list --help')", argv[optind - 1]);
	}
	if (optind < argc)
		die_usage("unexpected argument '%s' (see 'tracetax list --help')", argv[optind]);
	/* probing loads and attaches programs: not in the middle of a measurement */
	take_lock(false);
	return output_list(stdout, json, find_load()) ? 1 : 0;
}

static int cmd_clocks(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "reads", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct clocks_report r;
	int64_t reads = 1000000;
	int c, json = 0;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		if (c == 'j')
			json = 1;
		else if (c == 'n' && !parse_i64(optarg, 1000, 1000000000, &reads))
			continue;
		else if (c == 'n')
			die_usage("invalid --reads '%s' (1000 to 1000000000)", optarg);
		else if (c == 'h') {
			fputs(usage_clocks, stdout);
			return 0;
		} else
			die_usage("unknown option '%s' (see 'tracetax clocks --help')", argv[optind - 1]);
	}
	if (optind < argc)
		die_usage("unexpected argument '%s' (see 'tracetax clocks --help')", argv[optind]);
	/* a run measuring meanwhile would slow our reads, and we its loops */
	take_lock(false);
	clocks_measure(&r, reads);
	if (json)
		return output_clocks_json(&r, stdout) ? 1 : 0;
	output_clocks_table(&r, stdout);
	return 0;
}

static int cmd_pair(int argc, char **argv)
{
	struct pair_args a;
	char err[256];
	int ret;

	if (pair_parse(argc, argv, &a, err, sizeof(err)))
		die_usage_hint(err, "tracetax pair --help");
	if (a.help) {
		fputs(usage_pair, stdout);
		return 0;
	}
	ret = pair_measure(&a, NULL, NULL);
	signals_reraise();
	return ret;
}

static int cmd_cleanup(int argc, char **argv)
{
	int removed = 0;

	if (argc > 1) {
		if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
			puts("usage: tracetax cleanup\n\nRemoves tracefs instances, uprobe events and tool\n"
			     "directories left by a tracetax that was killed (SIGKILL); those of running\n"
			     "ones stay.");
			return 0;
		}
		die_usage("unexpected argument '%s' (see 'tracetax cleanup --help')", argv[1]);
	}
	int tools = 0, rc = tracefs_cleanup_stale(&removed);

	if (tool_cleanup_stale(&tools))
		rc = -1;
	printf("removed %d leftover item(s)\n", removed + tools);
	return rc ? 1 : 0;
}

static const struct { const char *name; int (*fn)(int argc, char **argv); } results_cmds[] = {
	{ "history", cmd_history }, { "show", cmd_show }, { "compare", cmd_compare },
	{ "export", cmd_export }, { "import", cmd_import }, { "report", cmd_report },
};

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : NULL;

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
	if (!strcmp(cmd, "run"))
		return cmd_run(argc - 1, argv + 1);
	if (!strcmp(cmd, "list"))
		return cmd_list(argc - 1, argv + 1);
	if (!strcmp(cmd, "cleanup"))
		return cmd_cleanup(argc - 1, argv + 1);
	for (size_t i = 0; i < sizeof(results_cmds) / sizeof(results_cmds[0]); i++)
		if (!strcmp(cmd, results_cmds[i].name))
			return results_cmds[i].fn(argc - 1, argv + 1);
	if (!strcmp(cmd, "clocks"))
		return cmd_clocks(argc - 1, argv + 1);
	if (!strcmp(cmd, "pair"))
		return cmd_pair(argc - 1, argv + 1);
	if (!strcmp(cmd, "experiment"))
		return cmd_experiment(argc - 1, argv + 1);
	die_usage("'%s' is not a tracetax command (see 'tracetax --help')", cmd);
}
