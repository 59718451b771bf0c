/* Workloads: tight loops that make a known number of events of one kind. */
#ifndef TRACETAX_LOAD_WORKLOADS_H
#define TRACETAX_LOAD_WORKLOADS_H

#include <stdint.h>

/* Where the function each op calls lives, for user-space tracers. */
enum wl_lib {
	WL_NONE,     /* no function call: syscall(2) straight from the loop */
	WL_LIBC,     /* a libc wrapper (interposable, probe-able in libc.so.6) */
	WL_TARGET,   /* tt_func in libtracetax-target.so, next to tracetax-load */
};

struct workload {
	const char *name;
	const char *syscall;      /* tt_syscalls name each op makes; NULL: none */
	const char *func;         /* function each op calls; NULL: none */
	enum wl_lib lib;
	const char *usdt;         /* "provider:name" of the USDT site in the loop; NULL: none */
	const char *summary;
	int cmd;                  /* cmd:'COMMAND': the user's program, not a loop */
};

#define TT_USDT_PROVIDER "tracetax"
#define TT_USDT_NAME "func"
#define TT_TARGET_LIB "libtracetax-target.so"

extern const struct workload workloads[];
/* A table entry by name; "cmd:'COMMAND'" (any command) gives the cmd entry. */
const struct workload *workload_find(const char *name);
/* The LTTng-UST event in @w's loop ("tracetax:func", WL_UST); NULL: none. */
const char *workload_ust(const struct workload *w);

/* The target function: in its own library, so that LD_PRELOAD can interpose it. */
int tt_func(int x);

#endif
