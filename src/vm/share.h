/*
 * The share: a directory of the host's /tmp that the guest writes through
 * 9p as root (share.c). What it holds is the guest's, and a guest's root
 * process (a cmd: workload) may make any name a FIFO, a device, a symlink
 * to /dev/zero or to a host file: the host reads regular files only, never
 * through a link, without blocking, and no more than it expects.
 */
#ifndef TRACETAX_VM_SHARE_H
#define TRACETAX_VM_SHARE_H

#include <stdbool.h>
#include <stddef.h>

#define SHARE_RC_MAX 64
#define SHARE_LEFT_MAX (64u << 10)
#define SHARE_DOC_MAX (64u << 20)      /* doc/read.h's DOC_MAX_BYTES */
#define SHARE_TAIL_MAX (64u << 20)     /* the guest's stdout, its stderr */

/*
 * @dir/@name, a regular file of at most @max bytes, into *out (malloc'd,
 * NUL-ended): 0; 1 no such file; -1 refused or unreadable, with one line
 * in err ("the guest's share: 'rc' is a symbolic link").
 */
int share_read(const char *dir, const char *name, size_t max, char **out, char *err,
	       size_t errlen);
/* Whether the guest made @name, of any kind. */
bool share_has(const char *dir, const char *name);
/* What the guests of a former boot wrote, removed. */
void share_clear(const char *dir);

/*
 * A file the guest appends to, copied to @out as it grows, its control
 * characters (escape sequences) in caret notation: "^[" for ESC.
 */
struct share_tail {
	const char *name;
	int fd, out;
	size_t copied;
	bool lead;                /* the last byte read was a C2, held back */
};
/* What the guest added since the last call, copied: 0, or -1 refused with err. */
int share_tail_pump(const char *dir, struct share_tail *t, char *err, size_t errlen);
void share_tail_close(struct share_tail *t);

#endif
