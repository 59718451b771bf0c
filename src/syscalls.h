#ifndef TRACETAX_SYSCALLS_H
#define TRACETAX_SYSCALLS_H

/* A syscall a workload makes or a tracer hooks. */
struct tt_syscall {
	const char *name;      /* "getpid", "stat" */
	long nr;               /* __NR_ on this architecture */
	const char *event;     /* tracefs event: "sys_enter_getpid", "sys_enter_newstat" */
};

const struct tt_syscall *tt_syscall_find(const char *name);
const struct tt_syscall *tt_syscall_by_nr(long nr);
extern const struct tt_syscall tt_syscalls[];

#endif
