/* fork + exec with one fd rule (base/spawn.h). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "base/signals.h"
#include "base/spawn.h"

/*
 * Every fd above 2 but the moved ones is marked close-on-exec, not closed:
 * a tracer's setup still uses its own (seccomp:notify sends its listener
 * over a socket), and closing them after it would make close(2) calls the
 * tracer's filter may trap and count (--target close). exec closes them
 * in the kernel, with no syscall of the child's.
 */
static void cloexec_all_but(const struct spawn *s)
{
	if (close_range(3, ~0U, CLOSE_RANGE_CLOEXEC) < 0)
		for (int fd = 3; fd < 4096; fd++)	/* before Linux 5.11 */
			fcntl(fd, F_SETFD, FD_CLOEXEC);
	for (int i = 0; i < s->nmove; i++)
		if (fcntl(s->move[i][1], F_SETFD, 0) < 0)
			_exit(SPAWN_EXIT_SETUP);
}

/* In the child: async-signal-safe calls only, as the runner may have threads. */
static void child(const struct spawn *s)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	signals_unblock_in_child();
	if (s->own_group)
		setpgid(0, 0);
	for (int i = 0; i < s->nmove; i++)
		if (dup2(s->move[i][0], s->move[i][1]) < 0)
			_exit(SPAWN_EXIT_SETUP);
	for (int i = 0; i < 3; i++) {
		int fd = s->fd[i];

		if (fd == SPAWN_DEVNULL && (fd = open("/dev/null", i ? O_WRONLY : O_RDONLY)) < 0)
			_exit(SPAWN_EXIT_SETUP);
		if (fd >= 0 && fd != i && dup2(fd, i) < 0)
			_exit(SPAWN_EXIT_SETUP);
	}
	if (s->dir && chdir(s->dir))
		_exit(SPAWN_EXIT_SETUP);
	cloexec_all_but(s);
	if (s->prep && s->prep(s->prep_arg))
		_exit(SPAWN_EXIT_PREP);
	execv(s->argv[0], s->argv);
	_exit(SPAWN_EXIT_EXEC);
}

pid_t spawn_start(const struct spawn *s, char *msg, size_t len)
{
	pid_t pid = fork();

	if (pid == 0)
		child(s);
	if (pid < 0) {
		snprintf(msg, len, "cannot fork: %s", strerror(errno));
		return -1;
	}
	if (s->own_group)
		setpgid(pid, pid);	/* both sides: the group exists before either goes on */
	return pid;
}
