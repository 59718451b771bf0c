/* tracetax clocks: every clock's cost per read, resolution, vDSO. */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>

#include "base/util.h"
#include "cmd/cmd.h"
#include "measure/clocks.h"
#include "output/clocks.h"

static const char usage_clocks[] =
	"usage: tracetax clocks [--json] [--reads N]\n"
	"\n"
	"Reads every clock N times (default 1000000): the cost of a read (mean, and\n"
	"p99 of reads timed one by one), the resolution (clock_getres, and the\n"
	"smallest step seen), whether the vDSO serves it, whether it went back;\n"
	"then the clocksource and the TSC's rate and flags.\n";

int cmd_clocks(int argc, char **argv)
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
	cmd_take_lock(false);
	clocks_measure(&r, reads);
	if (json)
		return output_clocks_json(&r, stdout) ? 1 : 0;
	output_clocks_table(&r, stdout);
	return 0;
}
