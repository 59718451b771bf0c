/*
 * The session daemon of the lttng-ust tracer (lttng.h): one per traced
 * run, so that no daemon idles through the baseline runs and the start-up
 * figure holds what a user pays to trace one program. It runs as our
 * child in a process group of its own (its consumer daemons join it) and
 * dies with tracetax (PR_SET_PDEATHSIG, tool_fork); what it leaves in
 * /var/run/lttng and /dev/shm is removed when we created it.
 */
#include <errno.h>
#include <ftw.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/proc.h"
#include "base/signals.h"
#include "base/util.h"
#include "tracers/tools/lttng.h"

#define CLIENT_SOCK LTTNG_RUNDIR "/client-lttng-sessiond"
#define STOP_MS 5000      /* SIGTERM: it tears its consumers down and exits at once */
#define GONE_MS 3000      /* its consumer daemons, killed with the group, reaped by init */
#define CMD_MS 30000

const char *const lttng_owned_paths[LTTNG_NOWNED] = {
	LTTNG_RUNDIR, "/dev/shm/lttng-ust-wait-8", "/dev/shm/lttng-ust-wait-8-0",
};

struct lttng_find {
	pid_t pgid;
	bool daemon_only;
};

static bool is_lttng(pid_t pid, const struct proc_stat *st, void *arg)
{
	const struct lttng_find *f = arg;

	(void)pid;
	if (strncmp(st->comm, "lttng-", 6))
		return false;
	return f->daemon_only ? !strcmp(st->comm, "lttng-sessiond") && st->pgrp != f->pgid :
				st->pgrp == f->pgid;
}

/*
 * Processes named lttng-* (comm is cut to 15 bytes): those in group @pgid
 * when it is > 0, else any lttng-sessiond outside group -@pgid. The first
 * found, or 0.
 */
static pid_t find_lttng(pid_t pgid, bool daemon_only)
{
	return proc_find(is_lttng, &(struct lttng_find){ .pgid = pgid, .daemon_only = daemon_only });
}

pid_t lttng_other_sessiond(void)
{
	return find_lttng(0, true);
}

static int rm_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st; (void)ftw;
	return type == FTW_DP ? rmdir(path) : unlink(path);
}

static void remove_path(const char *path)
{
	if (nftw(path, rm_entry, 8, FTW_DEPTH | FTW_PHYS) && errno != ENOENT)
		warning("cannot remove '%s': %s", path, strerror(errno));
}

/* The marker `tracetax cleanup` reads: our daemon's group, the paths it may create. */
static int write_owned(struct lttng *l, char *err, size_t len)
{
	char path[PATH_MAX];
	FILE *f;

	tool_file(&l->tl, LTTNG_OWNED_FILE, path, sizeof(path));
	if (!(f = fopen(path, "we"))) {
		snprintf(err, len, "cannot create '%s': %s", path, strerror(errno));
		return -1;
	}
	fprintf(f, "pgid %d\n", (int)l->tl.pid);
	for (int i = 0; i < LTTNG_NOWNED; i++)
		if (l->owned[i])
			fprintf(f, "%s\n", lttng_owned_paths[i]);
	return fclose(f) ? -1 : 0;
}

/*
 * The client socket appears once the daemon listens; a command sent
 * before its other threads are up waits in its queue, so the socket is
 * enough. -1 when it exited first, or after TOOL_READY_MS.
 */
static int wait_socket(struct tracer *t, struct lttng *l)
{
	uint64_t deadline = now_ns() + (uint64_t)TOOL_READY_MS * 1000000ull;
	char words[200];

	while (access(CLIENT_SOCK, F_OK)) {
		if (tool_wait_exit(&l->tl, 5) == 0) {
			tool_last_words(&l->tl, words, sizeof(words));
			return tracer_error(t, "'lttng-sessiond' exited before it took commands: %s",
					    words);
		}
		if (signals_interrupted())
			return tracer_error(t, "interrupted while 'lttng-sessiond' was starting");
		if (now_ns() > deadline)
			return tracer_error(t, "'lttng-sessiond' made no '%s' within %d s", CLIENT_SOCK,
					    TOOL_READY_MS / 1000);
	}
	return TT_OK;
}

int lttng_daemon_start(struct tracer *t, struct lttng *l)
{
	char *argv[] = { l->tl.path, "--no-kernel", NULL };
	pid_t other = lttng_other_sessiond();

	if (other > 0)
		return tracer_error(t, "another lttng-sessiond is running (pid %d): tracetax starts its own",
				    (int)other);
	if (tool_files_open(&l->tl, t->err, sizeof(t->err)))
		return TT_FAIL;
	if (mkdir(l->home, 0700))
		return tracer_error(t, "cannot create '%s': %s", l->home, strerror(errno));
	for (int i = 0; i < LTTNG_NOWNED; i++)
		l->owned[i] = access(lttng_owned_paths[i], F_OK) != 0;
	l->tl.pid = tool_fork(&l->tl, argv, l->tl.out_fd, l->tl.err_fd, t->err, sizeof(t->err));
	if (l->tl.pid < 0)
		return TT_FAIL;
	l->tl.reap = true;
	l->tl.status = -1;
	l->tl.pidfd = (int)syscall(SYS_pidfd_open, l->tl.pid, 0);
	if (l->tl.pidfd < 0)
		return tracer_error(t, "pidfd_open of 'lttng-sessiond': %s", strerror(errno));
	if (write_owned(l, t->err, sizeof(t->err)))
		return TT_FAIL;
	return wait_socket(t, l);
}

/* Until no process is left in group @pgid (init reaps the consumer daemons), or GONE_MS. */
static void wait_group_gone(pid_t pgid)
{
	uint64_t deadline = now_ns() + (uint64_t)GONE_MS * 1000000ull;

	while (kill(-pgid, 0) == 0 && now_ns() < deadline)
		usleep(2000);
	if (kill(-pgid, 0) == 0)
		warning("lttng daemons of group %d still there %d s after SIGKILL", (int)pgid,
			GONE_MS / 1000);
}

void lttng_daemon_stop(struct lttng *l)
{
	pid_t pgid = l->tl.pid;
	char path[PATH_MAX];

	if (pgid > 0) {
		kill(pgid, SIGTERM);	/* the daemon alone: it stops its consumers itself */
		tool_wait_exit(&l->tl, STOP_MS);
		tool_forget(&l->tl);	/* SIGKILL to the group, the leader reaped */
		wait_group_gone(pgid);
	}
	tool_files_close(&l->tl);
	for (int i = 0; i < LTTNG_NOWNED; i++) {
		if (l->owned[i])
			remove_path(lttng_owned_paths[i]);
		l->owned[i] = false;
	}
	if (l->tl.dir[0]) {
		tool_file(&l->tl, LTTNG_OWNED_FILE, path, sizeof(path));
		unlink(path);
	}
}

int lttng_cmd(struct tracer *t, struct lttng *l, const char *out_name, ...)
{
	char *argv[16] = { l->lttng, "--no-sessiond" };
	int n = 2;
	va_list ap;

	va_start(ap, out_name);
	for (char *a; (a = va_arg(ap, char *)) && n < 15;)
		argv[n++] = a;
	va_end(ap);
	argv[n] = NULL;
	return tool_run(t, &l->tl, argv, out_name, CMD_MS);
}

/*
 * A tool directory of a tracetax that is gone: kill what is left of its
 * daemon's group, then remove the paths it created -- unless a session
 * daemon runs now, whose they have become.
 */
void lttng_cleanup_stale(const char *dir)
{
	char path[PATH_MAX], line[PATH_MAX];
	int pgid = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, LTTNG_OWNED_FILE);
	if (!(f = fopen(path, "re")))
		return;
	if (fgets(line, sizeof(line), f) && sscanf(line, "pgid %d", &pgid) == 1 && pgid > 1 &&
	    find_lttng((pid_t)pgid, false) > 0) {
		kill(-(pid_t)pgid, SIGKILL);
		wait_group_gone((pid_t)pgid);
	}
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		for (int i = 0; i < LTTNG_NOWNED; i++)
			if (!strcmp(line, lttng_owned_paths[i]) && !lttng_other_sessiond())
				remove_path(line);
	}
	fclose(f);
}
