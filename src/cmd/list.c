/* tracetax list: every tracer and workload, available or skipped and why. */
#include <getopt.h>
#include <stdio.h>

#include "base/util.h"
#include "cmd/cmd.h"
#include "output/list.h"

static const char usage_list[] =
	"usage: tracetax list [--json]\n"
	"       tracetax list --names tracers|workloads\n"
	"\n"
	"Lists every tracer (with its variants) and whether it can run here, with\n"
	"the kernel's or the system's reason when it cannot; then the workloads.\n"
	"--names: the names alone, one a line, probing nothing (shell completion).\n";

int cmd_list(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "names", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *names = NULL;
	int c, json = 0;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (c == 'j')
			json = 1;
		else if (c == 'n')
			names = optarg;
		else if (c == 'h') {
			fputs(usage_list, stdout);
			return 0;
		} else
			die_usage("unknown option '%s' (see 'tracetax list --help')", argv[optind - 1]);
	}
	if (optind < argc)
		die_usage("unexpected argument '%s' (see 'tracetax list --help')", argv[optind]);
	if (names && output_list_names(stdout, names))
		die_usage("invalid --names '%s' (tracers, workloads)", names);
	if (names)
		return fflush(stdout) ? 1 : 0;
	/* probing loads and attaches programs: not in the middle of a measurement */
	cmd_take_lock(false);
	return output_list(stdout, json, cmd_find_load()) ? 1 : 0;
}
