/* The seccomp filter shared by seccomp:filter, seccomp:notify, ptrace:seccomp and `clocks`. */
#ifndef TRACETAX_SECCOMP_FILTER_H
#define TRACETAX_SECCOMP_FILTER_H

#include <stdint.h>

#include <linux/audit.h>

/* The arch a filter checks first; undefined where tracetax knows none (filters skip). */
#if defined(__x86_64__)
#define TT_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define TT_AUDIT_ARCH AUDIT_ARCH_AARCH64
#elif defined(__i386__)
#define TT_AUDIT_ARCH AUDIT_ARCH_I386
#elif defined(__riscv) && __riscv_xlen == 64
#define TT_AUDIT_ARCH AUDIT_ARCH_RISCV64
#endif

/*
 * In the forked child, before exec: NO_NEW_PRIVS, then a filter that checks
 * the arch, returns @action for syscall @nr and ALLOW for every other one.
 * Returns what seccomp(2) returns (a listener fd with
 * SECCOMP_FILTER_FLAG_NEW_LISTENER), -1 with errno on error.
 * Async-signal-safe: the runner may have threads when it forks.
 */
int tt_seccomp_install(long nr, uint32_t action, unsigned int flags);

#endif
