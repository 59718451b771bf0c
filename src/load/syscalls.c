#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>

#include "load/syscalls.h"

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

/* tracefs names its systems and events with letters, digits and '_'. */
static size_t name_len(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_')
			return 0;
	return n;
}

int tt_tracepoint_split(const char *target, char *system, size_t slen, char *event, size_t elen)
{
	const char *colon = target ? strchr(target, ':') : NULL;
	size_t sl, el;

	if (!colon)
		return 0;
	sl = name_len(target, (size_t)(colon - target));
	el = name_len(colon + 1, strlen(colon + 1));
	if (!sl || !el)
		return 0;
	if (system)
		snprintf(system, slen, "%.*s", (int)sl, target);
	if (event)
		snprintf(event, elen, "%s", colon + 1);
	return 1;
}
