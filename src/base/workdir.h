/* Our working directories under $TMPDIR or /tmp, and the leftovers of a killed tracetax (workdir.c). */
#ifndef TRACETAX_WORKDIR_H
#define TRACETAX_WORKDIR_H

#include <stddef.h>

#include "base/owner.h"

#define WORKDIR_PREFIX "tt-tool-"   /* + "<our pid>-XXXXXX" */

/* @prog as an absolute path: itself if it has a '/', else the first in $PATH; -1: none. */
int path_which(const char *prog, char *buf, size_t len);
/* A new directory of ours into @dir; -1 and @err if it cannot be made. */
int workdir_create(char *dir, size_t size, char *err, size_t len);
/* What is in @dir, removed; the directory stays. 0, or -1. */
int workdir_empty(const char *dir);
/* @dir and everything in it ("" : nothing); a failure is warned about. */
void workdir_remove(const char *dir);
/*
 * The directories of a tracetax that is gone (owner_gone()), removed: ours
 * only (owner_dir_ours), as $TMPDIR is everybody's. @each (may be NULL)
 * sees each first, for what its files list outside it. @removed counts
 * them; @kept (may be NULL) hears of each one kept because its tracetax
 * runs, @foreign (may be NULL) of each one not ours, and why.
 */
int workdir_cleanup_stale(int *removed, void (*each)(const char *path), owner_kept_fn kept,
			  owner_kept_fn foreign);

#endif
