/* tracetax cleanup: what a killed tracetax left behind. */
#include <stdio.h>
#include <string.h>

#include "base/tracefs_util.h"
#include "base/util.h"
#include "cmd/cmd.h"
#include "measure/vm.h"
#include "tracers/tracer.h"

int cmd_cleanup(int argc, char **argv)
{
	int removed = 0;

	if (argc > 1) {
		if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
			puts("usage: tracetax cleanup\n\nRemoves tracefs instances, uprobe events, tool\n"
			     "directories and VM directories left by a tracetax that was killed (SIGKILL); those of running\n"
			     "ones stay.");
			return 0;
		}
		die_usage("unexpected argument '%s' (see 'tracetax cleanup --help')", argv[1]);
	}
	int tools = 0, rc = tracefs_cleanup_stale(&removed);

	if (tracers_cleanup_stale(&tools))
		rc = -1;
	/* a killed run --kernel: its VM died with it (PR_SET_PDEATHSIG), its directory stays */
	if (vm_cleanup_stale(&tools))
		rc = -1;
	printf("removed %d leftover item(s)\n", removed + tools);
	return rc ? 1 : 0;
}
