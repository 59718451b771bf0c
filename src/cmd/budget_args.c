/* `tracetax budget -t`'s options (budget_args.h). */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/lock.h"
#include "base/util.h"
#include "cmd/budget_args.h"
#include "cmd/cmd.h"
#include "load/syscalls.h"

static const char usage_budget[] =
	"usage: tracetax budget -t TRACERS [options]\n"
	"   or: tracetax budget --attached [--for SECONDS] [--json FILE]\n"
	"\n"
	"What each tracer would cost this box now: the events its hooks would see,\n"
	"counted for a while, times its measured cost per event (docs/budget.md).\n"
	"\n"
	"  -t, --tracer LIST       tracers that hook syscalls (as for run; repeatable)\n"
	"      --for SECONDS       count events for this long; default 5\n"
	"      --pid PID           only this process's events\n"
	"      --cgroup PATH       only this cgroup's (v2, with its descendants)\n"
	"      --target SYSCALL    only this syscall's events (and its cost)\n"
	"      --audit-rules FILE  for -t audit:rules: the audit rule set whose loading\n"
	"                          is predicted (auditctl -R's format; nothing is loaded\n"
	"                          but to measure its costs with --measure)\n"
	"      --measure           measure each tracer's cost now, not from the store\n"
	"      --accept-audit-residue  let --measure run audit cells on a boot that never\n"
	"                          enabled audit: every process started after them\n"
	"                          takes the syscall audit slow path until reboot\n"
	"      --max-age HOURS     a stored cost this old or newer counts; default 168\n"
	"  -w, --workload LIST     cmd:'COMMAND' workloads: predict each one's slowdown\n"
	"                          under each tracer, then measure it (implies --measure;\n"
	"                          repeatable, as -t is)\n"
	"  -r, --reps N            reps of a measurement, in pairs that rotate over\n"
	"                          the CPUs (cost per CPU); default 8\n"
	"      --run-ms N          its runs' length; default 100\n"
	"      --json FILE         write the budget document; '-': to stdout\n"
	"      --store PATH        the results store to read costs from and record in\n"
	"      --no-store          record nothing (stored costs are still read)\n"
	"      --wait SECONDS      for another measurement's lock, at most this long;\n"
	"                          default $TRACETAX_WAIT, else 600\n"
	"      --no-wait           fail at once when another measurement runs\n"
	"  -q, --quiet             no progress lines\n"
	"      --attached          what the tracing already attached costs, not -t's\n"
	"                          (tracetax budget --attached --help)\n";

void budget_common_init(struct budget_common *o)
{
	memset(o, 0, sizeof(*o));
	o->seconds = 5;
	o->max_age_h = 168;
	o->reps = 8;
	o->run_ms = 100;
	o->wait_s = cmd_wait_default();
}

bool budget_common_opt(int c, const char *arg, struct budget_common *o)
{
	switch (c) {
	case 'f': o->seconds = cmd_num_arg(arg, "--for", 1, 3600); break;
	case 'm': o->measure = true; break;
	case 'a': o->max_age_h = cmd_num_arg(arg, "--max-age", 0, 24 * 3650); break;
	case 'r': o->reps = cmd_num_arg(arg, "--reps", 2, 1000); break;
	case 'R': o->run_ms = cmd_num_arg(arg, "--run-ms", 10, 60000); break;
	case 'j': o->json = arg; break;
	case 's': o->store = arg; break;
	case 'O': o->no_store = true; break;
	case 'W': o->wait_s = cmd_num_arg(arg, "--wait", 0, LOCK_WAIT_MAX_S); break;
	case 'N': o->wait_s = LOCK_NOWAIT; break;
	case 'q': o->quiet = true; break;
	default: return false;
	}
	return true;
}

void budget_parse(int argc, char **argv, struct budget_args *a)
{
	static const struct option opts[] = {
		BUDGET_COMMON_OPTIONS,
		{ "tracer", required_argument, NULL, 't' },
		{ "workload", required_argument, NULL, 'w' },
		{ "pid", required_argument, NULL, 'p' },
		{ "cgroup", required_argument, NULL, 'g' },
		{ "target", required_argument, NULL, 'T' },
		{ "audit-rules", required_argument, NULL, 'A' },
		{ "accept-audit-residue", no_argument, NULL, 'E' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(a, 0, sizeof(*a));
	a->tracers = calloc((size_t)argc + 1, sizeof(*a->tracers));
	a->workloads = calloc((size_t)argc + 1, sizeof(*a->workloads));
	if (!a->tracers || !a->workloads)
		die("out of memory");
	budget_common_init(&a->common);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":t:w:r:qh", opts, NULL)) != -1) {
		if (budget_common_opt(c, optarg, &a->common))
			continue;
		switch (c) {
		case 't': a->tracers[a->ntracers++] = optarg; break;
		case 'w': a->workloads[a->nworkloads++] = optarg; break;
		case 'p': a->pid = cmd_num_arg(optarg, "--pid", 1, INT32_MAX); break;
		case 'g': a->cgroup = optarg; break;
		case 'T': a->target = optarg; break;
		case 'E': a->accept_residue = true; break;
		case 'A': {
			char err[512];

			if (a->audit_rules)
				audit_rules_free(&a->rs);
			if (audit_rules_parse(optarg, AUDIT_KEY_PREFIX "budget", &a->rs, err, sizeof(err)))
				die_usage("%s", err);
			a->audit_rules = optarg;
			break;
		}
		case 'h': fputs(usage_budget, stdout); exit(0);
		case ':': cmd_die_usage("option needs a value", "tracetax budget --help");
		default: cmd_die_usage("unknown option", "tracetax budget --help");
		}
	}
	if (optind < argc)
		die_usage("unexpected argument '%s'", argv[optind]);
	if (!a->ntracers)
		die_usage("which tracers? -t TRACERS (tracetax budget --help)");
	if (a->pid && a->cgroup)
		die_usage("--pid and --cgroup exclude each other");
	if (a->pid && kill(a->pid, 0) && errno == ESRCH)
		die_usage("no process '%d' (--pid)", (int)a->pid);
	if (a->cgroup) {
		struct stat st;

		if (stat(a->cgroup, &st) || !S_ISDIR(st.st_mode))
			die_usage("no cgroup '%s' (--cgroup)", a->cgroup);
	}
	if (a->target && !tt_syscall_find(a->target))
		die_usage("unknown syscall '%s' (--target)", a->target);
	if (a->nworkloads)
		a->measure = true;
}

/* Whether -t named @tracer itself (the items of each comma list). */
static bool asked(const struct budget_args *a, const char *tracer)
{
	size_t n = strlen(tracer);

	for (int i = 0; i < a->ntracers; i++)
		for (const char *p = a->tracers[i]; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
			if (!strncmp(p, tracer, n) && (p[n] == ',' || !p[n]))
				return true;
	return false;
}

void budget_run_args(const struct budget_args *a, const char *lead, struct run_args *r)
{
	char reps[16], ms[16], err[512];
	const char **argv = calloc((size_t)(28 + 2 * (a->ntracers + a->nworkloads)), sizeof(*argv));
	int n = 0;

	if (!argv)
		die("out of memory");
	snprintf(reps, sizeof(reps), "%d", a->reps);
	snprintf(ms, sizeof(ms), "%d", a->run_ms);
	argv[n++] = "run";
	for (int i = 0; i < a->ntracers; i++) {
		argv[n++] = "-t";
		argv[n++] = a->tracers[i];
	}
	/* audit:rules' cost of a record: audit:rule's (Debian's flush), measured beside it */
	if (a->audit_rules && lead && !asked(a, AUDIT_RECORD_TRACER)) {
		argv[n++] = "-t";
		argv[n++] = AUDIT_RECORD_TRACER;
	}
	if (a->audit_rules) {
		argv[n++] = "--audit-rules";
		argv[n++] = a->audit_rules;
	}
	if (lead && a->audit_path_wl && strcmp(lead, a->audit_path_wl)) {
		argv[n++] = "-w";
		argv[n++] = a->audit_path_wl;
	}
	if (lead || !a->nworkloads) {
		argv[n++] = "-w";
		argv[n++] = lead ? lead : "getpid";
	}
	for (int i = 0; i < a->nworkloads; i++) {
		argv[n++] = "-w";
		argv[n++] = a->workloads[i];
	}
	argv[n++] = "-r";
	argv[n++] = reps;
	argv[n++] = "--run-ms";
	argv[n++] = ms;
	/* the cost on each CPU, for budget to weight by where the events happen */
	argv[n++] = "--placement";
	argv[n++] = "rotate";
	if (a->target) {
		argv[n++] = "--target";
		argv[n++] = a->target;
	}
	if (a->store) {
		argv[n++] = "--store";
		argv[n++] = a->store;
	}
	if (a->no_store)
		argv[n++] = "--no-store";
	if (a->accept_residue)
		argv[n++] = "--accept-audit-residue";
	if (a->quiet)
		argv[n++] = "-q";
	argv[n] = NULL;
	if (cli_parse_run(n, (char **)argv, r, err, sizeof(err)))
		cmd_die_usage(err, "tracetax budget --help");
	free(argv);
	r->no_table = true;
}
