/* The workload table, shared by tracetax (names, what to hook) and the load. */
#include <string.h>

#include "workloads.h"

const struct workload workloads[] = {
	{ "getpid", "getpid", NULL, WL_NONE, NULL, "syscall(SYS_getpid): the minimal syscall" },
	{ "getuid", "getuid", NULL, WL_NONE, NULL, "syscall(SYS_getuid): the ftrace/ktrace benchmark" },
	{ "close", "close", NULL, WL_NONE, NULL, "syscall(SYS_close, 1000) -> EBADF: the utrace/kprobes benchmark" },
	{ "stat", "stat", NULL, WL_NONE, NULL, "syscall(SYS_stat, \"/tmp\"): the bpftrace/strace post" },
	{ "getpid-libc", "getpid", "getpid", WL_LIBC, NULL, "getpid() through libc: something to interpose" },
	{ "close-libc", "close", "close", WL_LIBC, NULL, "close(1000) through libc" },
	{ "stat-libc", "newfstatat", "stat", WL_LIBC, NULL, "stat(\"/tmp\") through libc (glibc makes it newfstatat)" },
	{ "func", NULL, "tt_func", WL_TARGET, NULL, "a call of a non-inlined function: the user-probe target" },
	{ "func-usdt", NULL, "tt_func", WL_TARGET, TT_USDT_PROVIDER ":" TT_USDT_NAME,
	  "the same call, behind a USDT probe with a semaphore" },
	{ NULL, NULL, NULL, WL_NONE, NULL, NULL },
};

const struct workload *workload_find(const char *name)
{
	for (const struct workload *w = workloads; w->name; w++)
		if (!strcmp(w->name, name))
			return w;
	return NULL;
}
