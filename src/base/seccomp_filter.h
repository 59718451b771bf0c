/* The seccomp filter shared by seccomp:filter, seccomp:notify, ptrace:seccomp and `clocks`. */
#ifndef TRACETAX_SECCOMP_FILTER_H
#define TRACETAX_SECCOMP_FILTER_H

#include <stdint.h>

/*
 * In the forked child, before exec: NO_NEW_PRIVS, then a filter that checks
 * the arch, returns @action for syscall @nr and ALLOW for every other one.
 * Returns what seccomp(2) returns (a listener fd with
 * SECCOMP_FILTER_FLAG_NEW_LISTENER), -1 with errno on error.
 * Async-signal-safe: the runner may have threads when it forks.
 */
int tt_seccomp_install(long nr, uint32_t action, unsigned int flags);

#endif
