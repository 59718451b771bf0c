/* tracetax list: every tracer and workload, available or skipped and why. */
#include <getopt.h>
#include <stdio.h>

#include "base/util.h"
#include "cmd/cmd.h"
#include "output/list.h"

static const char usage_list[] =
	"usage: tracetax list [--json]\n"
	"\n"
	"Lists every tracer (with its variants) and whether it can run here, with\n"
	"the kernel's or the system's reason when it cannot; then the workloads.\n";

int cmd_list(int argc, char **argv)
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
	cmd_take_lock(false);
	return output_list(stdout, json, cmd_find_load()) ? 1 : 0;
}
