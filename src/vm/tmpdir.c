/* The VM's temporary directory, and those of a tracetax killed with SIGKILL. */
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/util.h"
#include "vm/say.h"
#include "vm/tmpdir.h"

int tmpdir_make(char *tmp, size_t len, char *err, size_t errlen)
{
	char share[PATH_MAX];

	snprintf(tmp, len, VM_TMP_PREFIX "%ld.XXXXXX", (long)getpid());
	if (!mkdtemp(tmp))
		return ERR("cannot make a directory for the VM in /tmp: %s", strerror(errno));
	snprintf(share, sizeof(share), "%s/share", tmp);
	if (mkdir(share, 0700)) {
		ERR("cannot make '%s': %s", share, strerror(errno));
		tmpdir_remove(tmp);
		return -1;
	}
	return 0;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return flag == FTW_DP ? rmdir(path) : unlink(path);
}

/* Not across a mount, never through a link: the guest wrote the share as root. */
static int rm_tree(const char *path)
{
	return nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

void tmpdir_remove(const char *tmp)
{
	if (tmp[0] && rm_tree(tmp))
		warning("cannot remove '%s': %s", tmp, strerror(errno));
}

int vm_cleanup_stale(int *removed, owner_kept_fn kept, owner_kept_fn foreign)
{
	DIR *d = opendir("/tmp");
	struct dirent *e;
	int rc = 0;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		char path[PATH_MAX], why[160], what[PATH_MAX + 32], *end;
		long pid;

		if (strncmp(e->d_name, "tracetax-vm.", 12))
			continue;
		pid = strtol(e->d_name + 12, &end, 10);
		if (pid <= 0 || pid > INT32_MAX || *end != '.')
			continue;
		snprintf(path, sizeof(path), "/tmp/%s", e->d_name);
		snprintf(what, sizeof(what), "'%s'", path);
		/* a directory of a tracetax still running stays */
		if (!owner_gone((pid_t)pid, why, sizeof(why))) {
			if (kept)
				kept(what, why);
			continue;
		}
		/* and so does anybody else's: nftw would follow what they swap in */
		if (!owner_dir_ours(path, why, sizeof(why))) {
			if (foreign)
				foreign(what, why);
			continue;
		}
		if (rm_tree(path))
			rc = error("cannot remove '%s': %s", path, strerror(errno));
		else
			(*removed)++;
	}
	closedir(d);
	return rc;
}
