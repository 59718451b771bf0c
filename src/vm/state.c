/* The VM's state directory: what one run --kernel leaves for the next, on purpose. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vm/state.h"

/* mkdir -p, 0755 */
static int make_dirs(char *path)
{
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0755) && errno != EEXIST) {
			*p = '/';
			return -1;
		}
		*p = '/';
	}
	return mkdir(path, 0755) && errno != EEXIST ? -1 : 0;
}

int vm_state_dir(char *dir, size_t len)
{
	const char *env = getenv("TRACETAX_STATE_DIR"), *xdg = getenv("XDG_STATE_HOME");
	const char *home = getenv("HOME");
	char path[4096];

	if (env && env[0] == '/')
		snprintf(path, sizeof(path), "%s", env);
	else if (!geteuid())
		snprintf(path, sizeof(path), "/var/lib/tracetax");
	else if (xdg && xdg[0] == '/')
		snprintf(path, sizeof(path), "%s/tracetax", xdg);
	else if (home && home[0] == '/')
		snprintf(path, sizeof(path), "%s/.local/state/tracetax", home);
	else {
		snprintf(dir, len, "no state directory: no HOME");
		return -1;
	}
	if (make_dirs(path)) {
		snprintf(dir, len, "cannot make '%s': %s", path, strerror(errno));
		return -1;
	}
	snprintf(dir, len, "%s", path);
	return 0;
}
