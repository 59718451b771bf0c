/* The VM's directory under /tmp: the initramfs, the logs and the share (tmpdir.c). */
#ifndef TRACETAX_VM_TMPDIR_H
#define TRACETAX_VM_TMPDIR_H

#include <stddef.h>

#include "base/owner.h"

#define VM_TMP_PREFIX "/tmp/tracetax-vm."    /* + "<our pid>.XXXXXX" */

/* A new one, with its share: 0, or -1 and err. */
int tmpdir_make(char *tmp, size_t len, char *err, size_t errlen);
/* It, and everything in it, gone. */
void tmpdir_remove(const char *tmp);
/*
 * The directories of a tracetax that is gone, removed: ours only (a
 * directory, not a link, owned by us), since /tmp is everybody's and its
 * names anybody's. @removed counts them; @kept (may be NULL) hears of each
 * one kept because its tracetax runs, @foreign (may be NULL) of each one
 * not ours, and why.
 */
int vm_cleanup_stale(int *removed, owner_kept_fn kept, owner_kept_fn foreign);

#endif
