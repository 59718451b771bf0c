/* tracetax list: every tracer and workload, available or skipped and why. */
#include <getopt.h>
#include <stdio.h>

#include "base/lock.h"
#include "base/signals.h"
#include "base/util.h"
#include "cmd/cmd.h"
#include "output/list.h"

static const char usage_list[] =
	"usage: tracetax list [--json] [--wait SECONDS | --no-wait]\n"
	"       tracetax list --names tracers|workloads\n"
	"\n"
	"Lists every tracer (with its variants) and whether it can run here, with\n"
	"the kernel's or the system's reason when it cannot; then the workloads.\n"
	"Probing takes the machine's measurement lock: another measurement holding\n"
	"it is waited for, at most --wait seconds (default %d), then exit 2;\n"
	"--no-wait: exit 2 at once. --names: the names alone, one a line, probing\n"
	"nothing and taking no lock (shell completion).\n";

int cmd_list(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "names", required_argument, NULL, 'n' },
		{ "wait", required_argument, NULL, 'W' },
		{ "no-wait", no_argument, NULL, 'N' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *names = NULL;
	int c, json = 0, wait_s = cmd_wait_default(), rc;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		if (c == 'j')
			json = 1;
		else if (c == 'n')
			names = optarg;
		else if (c == 'W' && cmd_parse_wait(optarg, &wait_s))
			die_usage("invalid --wait '%s' (0 to %d seconds)", optarg, LOCK_WAIT_MAX_S);
		else if (c == 'W')
			continue;
		else if (c == 'N')
			wait_s = LOCK_NOWAIT;
		else if (c == 'h') {
			printf(usage_list, LOCK_WAIT_DEFAULT_S);
			return 0;
		} else if (c == ':')
			die_usage("option '%s' needs a value (see 'tracetax list --help')",
				  argv[optind - 1]);
		else
			die_usage("unknown option '%s' (see 'tracetax list --help')", argv[optind - 1]);
	}
	if (optind < argc)
		die_usage("unexpected argument '%s' (see 'tracetax list --help')", argv[optind]);
	if (names && output_list_names(stdout, names))
		die_usage("invalid --names '%s' (tracers, workloads)", names);
	if (names)
		return fflush(stdout) ? 1 : 0;
	/*
	 * Probing creates tracefs instances and loads programs: Ctrl-C or
	 * SIGTERM is only noted, the probe under way tears down what it made,
	 * the rest are not probed, and then tracetax dies of the signal, as
	 * run does. --no-wait fails before the signal thread exists (run_measure).
	 */
	if (wait_s == LOCK_NOWAIT)
		cmd_take_lock(LOCK_NOWAIT);
	cmd_signals_once();
	/* probing loads and attaches programs: not in the middle of a measurement */
	if (wait_s != LOCK_NOWAIT)
		cmd_take_lock(wait_s);
	rc = output_list(stdout, json, cmd_find_load()) ? 1 : 0;
	signals_reraise();
	return rc;
}
