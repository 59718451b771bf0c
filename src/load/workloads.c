/* The workload table, shared by tracetax (names, what to hook) and the load. */
#include <stddef.h>
#include <string.h>
#include <sys/syscall.h>

#include "load/workloads.h"

/*
 * Each workload's syscall and function must have their own line in
 * workloads.def, and its lib must be its function's: a typo or a workload
 * left outside an #ifdef its syscall needs fails to compile here.
 */
enum {
#define WL_SYSCALL(name, event) WL_SYSCALL_LISTED_##name,
#include "load/workloads.def"
	WL_SYSCALL_LISTED_,	/* an empty syscall column: none */
};
enum {
#define WL_FUNC(name, lib, ...) WL_FUNC_LIB_##name = lib,
#include "load/workloads.def"
	WL_FUNC_LIB_ = WL_NONE,	/* an empty func column: none */
};
#define WORKLOAD(id, name, sc, fn, lib, ...)					\
	_Static_assert(WL_SYSCALL_LISTED_##sc >= 0, "only names the syscall");	\
	_Static_assert((int)WL_FUNC_LIB_##fn == (int)(lib),			\
		       "workload '" name "': lib is not its function's");
#include "load/workloads.def"

/* The name in a syscall or func column; NULL for an empty one. */
#define WL_NAME(x) (sizeof(#x) > 1 ? #x : NULL)

const struct workload workloads[] = {
#define WORKLOAD(id, name, sc, fn, lib, usdt, summary, ...)				\
	{ name, WL_NAME(sc), WL_NAME(fn), lib, usdt, summary, 0 },
#include "load/workloads.def"
	{ NULL, NULL, NULL, WL_NONE, NULL, NULL, 0 },
};

/* Not in workloads[]: no loop of the load's, and `tracetax list` shows it apart. */
static const struct workload wl_cmd = {
	.name = "cmd", .lib = WL_NONE, .cmd = 1,
	.summary = "any program, run to completion once per run (docs/workloads.md)",
};

const struct workload *workload_find(const char *name)
{
	if (!strncmp(name, "cmd:", 4) || !strcmp(name, "cmd"))
		return &wl_cmd;
	for (const struct workload *w = workloads; w->name; w++)
		if (!strcmp(w->name, name))
			return w;
	return NULL;
}

enum {
#define WORKLOAD(id, ...) WL_UST_INDEX_##id,
#include "load/workloads.def"
	WL_UST_COUNT
};
static const char *const ust_events[WL_UST_COUNT] = {
#define WL_UST(id, event) [WL_UST_INDEX_##id] = event,
#include "load/workloads.def"
};

const char *workload_ust(const struct workload *w)
{
	return ust_events[w - workloads];
}
