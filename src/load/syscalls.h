#ifndef TRACETAX_SYSCALLS_H
#define TRACETAX_SYSCALLS_H

#include <stddef.h>

/* A syscall a workload makes or a tracer hooks. */
struct tt_syscall {
	const char *name;      /* "getpid", "stat" */
	long nr;               /* __NR_ on this architecture */
	const char *event;     /* tracefs event: "sys_enter_getpid", "sys_enter_newstat" */
};

const struct tt_syscall *tt_syscall_find(const char *name);
/*
 * --target SYSTEM:EVENT names a tracepoint ("tcp:tcp_probe") rather than a
 * syscall: 1 with its parts copied out (either buffer may be NULL), 0 when
 * @target is not of that form. Pure: whether the event exists is for the
 * tracer's supported() to ask the kernel.
 */
int tt_tracepoint_split(const char *target, char *system, size_t slen, char *event, size_t elen);
const struct tt_syscall *tt_syscall_by_nr(long nr);
extern const struct tt_syscall tt_syscalls[];

#endif
