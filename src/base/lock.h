/*
 * One measurement at a time, machine-wide: two tracetax runs at once
 * corrupt each other's figures (a BPF program of one silences the other's
 * perf counts; both double each other's overheads) without either noticing.
 *
 * flock(2) on one file: $TRACETAX_LOCK if set, else /run/lock/tracetax.lock
 * when /run/lock is a world-writable directory, else /dev/shm/tracetax.lock.
 * The choice depends on the machine, never on who asks, so root and
 * unprivileged runs always meet on the same file. A flock dies with its
 * holder, so a tracetax killed with SIGKILL never blocks the next one.
 */
#ifndef TRACETAX_LOCK_H
#define TRACETAX_LOCK_H

#include <stddef.h>

#define TT_LOCK_ENV "TRACETAX_LOCK"

enum lock_wait { LOCK_WAIT, LOCK_NOWAIT };

/*
 * 0: the lock is held until lock_release() or exit (again 0 if this
 * process holds it already). -1: one line in @err, such as
 * "another measurement is running: pid 1234 (tracetax run -t ptrace:all)"
 * or "cannot open lock file '/x': Permission denied".
 *
 * LOCK_WAIT prints that line once to stderr as "waiting: ..." and waits.
 * It polls every 100 ms rather than block in flock(): tracetax blocks
 * SIGINT and SIGTERM in every thread, so flock() would never see EINTR.
 * It gives up with -1 when @interrupted (may be NULL) returns non-zero.
 */
int lock_acquire(enum lock_wait mode, int (*interrupted)(void), char *err, size_t len);

/* Drop the lock (NULL-safe in spirit: a no-op when not held). */
void lock_release(void);

/* The lock file this process uses (for messages and docs). */
const char *lock_path(void);

#endif
