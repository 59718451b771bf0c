/* tracetax cleanup: what a killed tracetax left behind. */
#include <stdio.h>
#include <string.h>

#include "base/tracefs_util.h"
#include "base/util.h"
#include "cmd/cmd.h"
#include "vm/vm.h"
#include "tracers/tracer.h"

static int nkept, nforeign;

/* Whatever is kept is named, with why: "removed 0" alone hides a leftover. */
static void say_kept(const char *what, const char *why)
{
	printf("kept %s: %s\n", what, why);
	nkept++;
}

/* Not ours: another user's, or a link where a directory of ours would be. */
static void say_foreign(const char *what, const char *why)
{
	printf("kept %s: %s\n", what, why);
	nforeign++;
}

int cmd_cleanup(int argc, char **argv)
{
	int removed = 0;

	if (argc > 1) {
		if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
			puts("usage: tracetax cleanup\n\nRemoves tracefs instances, uprobe and kprobe events, tool and VM\n"
			     "directories left by a tracetax that was killed (SIGKILL): those whose\n"
			     "process is gone, or is a zombie its parent has not reaped yet, and puts\n"
			     "back the audit state its audit cells changed (/run/tracetax-audit-PID.state).\n"
			     "Those of a process that still runs stay, and so do tool and VM\n"
			     "directories not ours (a link, another user's), each named with the reason.");
			return 0;
		}
		die_usage("unexpected argument '%s' (see 'tracetax cleanup --help')", argv[1]);
	}
	int tools = 0, rc = tracefs_cleanup_stale(&removed, say_kept);

	if (tracers_cleanup_stale(&tools, say_kept, say_foreign))
		rc = -1;
	/* a killed run --kernel: its VM died with it (PR_SET_PDEATHSIG), its directory stays */
	if (vm_cleanup_stale(&tools, say_kept, say_foreign))
		rc = -1;
	printf("removed %d leftover item(s)", removed + tools);
	if (nkept)
		printf(", kept %d of a process that still runs", nkept);
	if (nforeign)
		printf(", kept %d not ours", nforeign);
	putchar('\n');
	return rc ? 1 : 0;
}
