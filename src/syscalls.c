#include <string.h>
#include <sys/syscall.h>

#include "syscalls.h"

/* The syscalls workloads make and --target may name: WL_SYSCALL lines. */
const struct tt_syscall tt_syscalls[] = {
#define WL_SYSCALL(name, event) { #name, SYS_##name, event },
#include "load/workloads.def"
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
