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

/* @wait_s of lock_acquire(): fail at once when another process holds it. */
#define LOCK_NOWAIT 0
/*
 * How long run, list, clocks and pair wait by default (--wait): a lock
 * any local user can hold (flock needs only read access) must not stall
 * root's measurements forever.
 */
#define LOCK_WAIT_DEFAULT_S 600
#define LOCK_WAIT_MAX_S (7 * 24 * 3600)
/* Another default for --wait, in seconds: a CI runner shared by long jobs sets it once. */
#define TT_WAIT_ENV "TRACETAX_WAIT"

/* The default --wait: $TRACETAX_WAIT, else LOCK_WAIT_DEFAULT_S; -1 when the variable is not 0 to LOCK_WAIT_MAX_S. */
int lock_wait_default(void);

/*
 * 0: the lock is held until lock_release() or exit (again 0 if this
 * process holds it already). -1: one line in @err, such as
 * "another measurement is running: pid 1234 (tracetax run -t ptrace:all),
 * user alice" or "cannot open lock file '/x': Permission denied".
 *
 * With @wait_s > 0 it prints that line once to stderr as "waiting up to
 * N s ..." and waits, at most @wait_s seconds ("gave up after waiting N s:
 * ..."). It polls every 100 ms rather than block in flock(): tracetax
 * blocks SIGINT and SIGTERM in every thread, so flock() would never see
 * EINTR. It gives up with -1 when @interrupted (may be NULL) returns
 * non-zero.
 *
 * The file is opened without following a symbolic link, must be a regular
 * file, and when we are root must be root's; it is created 0644.
 */
int lock_acquire(int wait_s, int (*interrupted)(void), char *err, size_t len);

/* Drop the lock (NULL-safe in spirit: a no-op when not held). */
void lock_release(void);

/* The lock file this process uses (for messages and docs). */
const char *lock_path(void);

#endif
