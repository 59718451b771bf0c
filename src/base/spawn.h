/*
 * The one way tracetax starts another program: fork, then in the child
 * only what @s asks, then execv. One fd rule for every child: it holds
 * fds 0, 1 and 2 (as asked) and the fds of @s->move, and nothing else: no
 * pipe, socket or file of tracetax's leaks into a workload, a tool or a
 * shell (a leaked pipe end keeps a reader from ever seeing EOF). It dies
 * with tracetax (PR_SET_PDEATHSIG) and starts with no signal blocked.
 *
 * Not for the ptrace helper (tracers/ptrace/ptrace_helper.c): it forks to
 * run our own code, not to exec, and keeps its own pipe by number.
 */
#ifndef TRACETAX_SPAWN_H
#define TRACETAX_SPAWN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

enum { SPAWN_INHERIT = -1, SPAWN_DEVNULL = -2 };
#define SPAWN_MAX_MOVE 4

/* Exit statuses of a child that did not get to exec. */
enum { SPAWN_EXIT_PREP = 125, SPAWN_EXIT_SETUP = 126, SPAWN_EXIT_EXEC = 127 };

struct spawn {
	char *const *argv;            /* argv[0] a path: no PATH search */
	int fd[3];                    /* onto 0, 1, 2: an fd, SPAWN_INHERIT or SPAWN_DEVNULL */
	int move[SPAWN_MAX_MOVE][2];  /* { from, to }: also kept, at fd to */
	int nmove;
	const char *dir;              /* chdir here first; NULL: stay */
	bool own_group;               /* its own process group (a kill of it takes its children) */
	/* Last, in the child, before exec: nonzero ends it with SPAWN_EXIT_PREP. */
	int (*prep)(void *arg);
	void *prep_arg;
};

/* The child's pid, or -1 and @msg. The child exits SPAWN_EXIT_* when it
 * cannot get as far as exec. */
pid_t spawn_start(const struct spawn *s, char *msg, size_t len);

#endif
