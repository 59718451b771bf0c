/*
 * Working directories of ours under $TMPDIR (or /tmp), named
 * WORKDIR_PREFIX<our pid>-XXXXXX: a tool's files, a cmd: workload's output.
 * A tracetax killed by SIGKILL leaves its own; the next one, or `tracetax
 * cleanup`, removes those whose owner is gone.
 */
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/owner.h"
#include "base/util.h"
#include "base/workdir.h"

int path_which(const char *prog, char *buf, size_t len)
{
	const char *path = getenv("PATH");

	if (strchr(prog, '/')) {	/* a path: made absolute, the tool runs in its directory */
		char abs[PATH_MAX];

		if (!realpath(prog, abs) || access(abs, X_OK))
			return -1;
		snprintf(buf, len, "%s", abs);
		return 0;
	}
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		size_t n = strcspn(path, ":");

		snprintf(buf, len, "%.*s/%s", (int)n, path, prog);
		if (n && buf[0] == '/' && access(buf, X_OK) == 0)
			return 0;
		path += n + (path[n] == ':');
	}
	return -1;
}

static const char *tmp_dir(void)
{
	const char *d = getenv("TMPDIR");

	return d && *d == '/' ? d : "/tmp";
}

int workdir_create(char *dir, size_t size, char *err, size_t len)
{
	snprintf(dir, size, "%s/" WORKDIR_PREFIX "%d-XXXXXX", tmp_dir(), (int)getpid());
	if (!mkdtemp(dir)) {
		snprintf(err, len, "cannot create a directory '%s': %s", dir, strerror(errno));
		dir[0] = '\0';
		return -1;
	}
	return 0;
}

static int rm_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st; (void)ftw;
	return type == FTW_DP ? rmdir(path) : unlink(path);
}

/* Removes @path and everything under it; the directory itself too unless @keep. */
static int rm_tree(const char *path, bool keep)
{
	DIR *d;
	struct dirent *e;
	int ret = 0;

	if (!keep)
		return nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	if (!(d = opendir(path)))
		return -1;
	while ((e = readdir(d))) {
		char sub[PATH_MAX];

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", path, e->d_name);
		if (nftw(sub, rm_entry, 16, FTW_DEPTH | FTW_PHYS))
			ret = -1;
	}
	closedir(d);
	return ret;
}

int workdir_empty(const char *dir)
{
	return rm_tree(dir, true);
}

void workdir_remove(const char *dir)
{
	if (dir[0] && rm_tree(dir, false))
		warning("cannot remove '%s': %s", dir, strerror(errno));
}

/* Directories named WORKDIR_PREFIX<pid>-... of a tracetax that is gone. */
int workdir_cleanup_stale(int *removed, void (*each)(const char *path), owner_kept_fn kept,
			  owner_kept_fn foreign)
{
	DIR *d = opendir(tmp_dir());
	struct dirent *e;
	int ret = 0;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		char path[PATH_MAX], why[160], what[PATH_MAX + 32], *end;
		long pid;

		if (strncmp(e->d_name, WORKDIR_PREFIX, strlen(WORKDIR_PREFIX)))
			continue;
		pid = strtol(e->d_name + strlen(WORKDIR_PREFIX), &end, 10);
		if (pid <= 0 || pid > INT32_MAX || *end != '-')
			continue;
		snprintf(path, sizeof(path), "%s/%s", tmp_dir(), e->d_name);
		snprintf(what, sizeof(what), "directory '%s'", path);
		if (!owner_gone((pid_t)pid, why, sizeof(why))) {
			if (kept)
				kept(what, why);
			continue;
		}
		/* another user's, or a link: neither @each nor nftw go into it */
		if (!owner_dir_ours(path, why, sizeof(why))) {
			if (foreign)
				foreign(what, why);
			continue;
		}
		if (each)
			each(path);
		if (rm_tree(path, false)) {
			ret = error("cannot remove '%s': %s", path, strerror(errno));
			continue;
		}
		(*removed)++;
	}
	closedir(d);
	return ret;
}
