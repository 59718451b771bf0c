/* The seccomp filter shared by seccomp:filter, seccomp:notify and ptrace:seccomp. */
#ifndef TRACETAX_TRACERS_SECCOMP_H
#define TRACETAX_TRACERS_SECCOMP_H

#include <stddef.h>
#include <stdint.h>

/*
 * In the forked child, before exec: NO_NEW_PRIVS, then a filter that checks
 * the arch, returns @action for syscall @nr and ALLOW for every other one.
 * Returns what seccomp(2) returns (a listener fd with
 * SECCOMP_FILTER_FLAG_NEW_LISTENER), -1 with errno on error.
 * Async-signal-safe: the runner may have threads when it forks.
 */
int tt_seccomp_install(long nr, uint32_t action, unsigned int flags);

/*
 * TT_OK when the kernel offers seccomp action @avail_name (as spelled in
 * kernel.seccomp.actions_avail) and a child can install such a filter with
 * @flags; else TT_SKIP and the reason.
 */
int tt_seccomp_supported(const char *avail_name, uint32_t action, unsigned int flags,
			 char *reason, size_t len);

#endif
