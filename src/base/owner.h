/*
 * Whether the tracetax a leftover is named after is gone. Everything
 * tracetax leaves (a tracefs instance tracetax-<pid>, a uprobe group
 * tracetax_<pid>, a working directory) carries its pid; `tracetax cleanup`
 * and the next run remove what belongs to a pid that no longer runs.
 */
#ifndef TRACETAX_OWNER_H
#define TRACETAX_OWNER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/*
 * true when @pid no longer runs: no such process, or a zombie (it has
 * exited; only its parent has not reaped it yet -- a SIGKILLed tracetax
 * under a busy or stopped parent). A zombie whose other threads still run
 * (its main thread exited first) runs. false: @why says what still holds
 * it, as "its process 123 still exists (tracetax, state S)". A pid reused
 * since by another process keeps the leftover: we would rather leave
 * litter than remove what a live tracetax is using.
 */
bool owner_gone(pid_t pid, char *why, size_t len);

/*
 * Whether @path is a directory of ours: a directory, not a symbolic link,
 * owned by our effective uid; else false and @why ("owned by uid 65534, not
 * by us"). /tmp is everybody's and a leftover's name anybody's: removing
 * what only carries our name would follow what another user swapped in.
 */
bool owner_dir_ours(const char *path, char *why, size_t len);

/* What a cleanup kept, and why: @what is "tracefs instance 'tracetax-123'". */
typedef void (*owner_kept_fn)(const char *what, const char *why);

#endif
