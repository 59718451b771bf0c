/* tracetax clocks: every clock's cost per read, resolution, vDSO. */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>

#include "base/lock.h"
#include "base/util.h"
#include "cmd/cmd.h"
#include "measure/clocks.h"
#include "output/clocks.h"

static const char usage_clocks[] =
	"usage: tracetax clocks [--json] [--reads N] [--wait SECONDS | --no-wait]\n"
	"\n"
	"Reads every clock N times (default 1000000): the cost of a read (mean, and\n"
	"p99 of reads timed one by one), the resolution (clock_getres, and the\n"
	"smallest step seen), whether the vDSO serves it, whether it went back;\n"
	"then the clocksource and the TSC's rate and flags. Another measurement\n"
	"holding the machine's lock is waited for, at most --wait seconds\n"
	"(default %d), then exit 2; --no-wait: exit 2 at once.\n";

int cmd_clocks(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "reads", required_argument, NULL, 'n' },
		{ "wait", required_argument, NULL, 'W' },
		{ "no-wait", no_argument, NULL, 'N' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct clocks_report r;
	int64_t reads = 1000000;
	int c, json = 0, wait_s = cmd_wait_default();

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		if (c == 'j')
			json = 1;
		else if (c == 'n' && !parse_i64(optarg, 1000, 1000000000, &reads))
			continue;
		else if (c == 'n')
			die_usage("invalid --reads '%s' (1000 to 1000000000)", optarg);
		else if (c == 'W' && cmd_parse_wait(optarg, &wait_s))
			die_usage("invalid --wait '%s' (0 to %d seconds)", optarg, LOCK_WAIT_MAX_S);
		else if (c == 'W')
			continue;
		else if (c == 'N')
			wait_s = LOCK_NOWAIT;
		else if (c == ':')
			die_usage("option '%s' needs a value (see 'tracetax clocks --help')",
				  argv[optind - 1]);
		else if (c == 'h') {
			printf(usage_clocks, LOCK_WAIT_DEFAULT_S);
			return 0;
		} else
			die_usage("unknown option '%s' (see 'tracetax clocks --help')", argv[optind - 1]);
	}
	if (optind < argc)
		die_usage("unexpected argument '%s' (see 'tracetax clocks --help')", argv[optind]);
	/* a run measuring meanwhile would slow our reads, and we its loops */
	cmd_take_lock(wait_s);
	clocks_measure(&r, reads);
	if (json)
		return output_clocks_json(&r, stdout) ? 1 : 0;
	output_clocks_table(&r, stdout);
	return 0;
}
