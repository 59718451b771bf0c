#include <string.h>
#include <sys/syscall.h>

#include "syscalls.h"

/*
 * The syscalls workloads make and --target may name. stat(2) is the old
 * SYS_stat, whose tracepoint the kernel calls sys_enter_newstat.
 */
const struct tt_syscall tt_syscalls[] = {
	{ "getpid",  SYS_getpid,  "sys_enter_getpid" },
	{ "getuid",  SYS_getuid,  "sys_enter_getuid" },
	{ "getppid", SYS_getppid, "sys_enter_getppid" },
	{ "close",   SYS_close,   "sys_enter_close" },
	{ "stat",    SYS_stat,    "sys_enter_newstat" },
	{ "getgid",  SYS_getgid,  "sys_enter_getgid" },
	{ "newfstatat", SYS_newfstatat, "sys_enter_newfstatat" },
	{ NULL, 0, NULL },
};

const struct tt_syscall *tt_syscall_find(const char *name)
{
	for (const struct tt_syscall *s = tt_syscalls; s->name; s++)
		if (!strcmp(s->name, name))
			return s;
	return NULL;
}

const struct tt_syscall *tt_syscall_by_nr(long nr)
{
	for (const struct tt_syscall *s = tt_syscalls; s->name; s++)
		if (s->nr == nr)
			return s;
	return NULL;
}
