/*
 * The ptrace tracer process of ptrace:all and ptrace:seccomp.
 *
 * It is a helper process we fork, not a thread of ours. The kernel lets
 * every thread of the tracer's thread group wait for a tracee, and when the
 * tracee's real parent is in that same group it reports ptrace stops to it
 * too (wait_consider_task: "traced by its real parent's group"). The
 * runner's waitpid(pid) would then take syscall stops that only the tracer
 * thread may resume, and the workload would hang (seen on 6.18). A tracer in
 * its own thread group, as strace is, hides the stops from the runner; the
 * tracee's exit goes to the tracer first (EXIT_TRACE), which hands it on to
 * the real parent: the runner reaps it as it always does.
 *
 * The helper is forked from a runner that may have threads: until it exits
 * it calls async-signal-safe functions only.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdnoreturn.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/cpus.h"
#include "tracers/tracer.h"
#include "base/util.h"
#include "tracers/ptrace/ptrace_helper.h"

enum { STEP_NONE, STEP_SEIZE, STEP_INTERRUPT, STEP_WAIT, STEP_INFO, STEP_RESUME, STEP_LOOP };

const char *pt_step_name(int step)
{
	static const char *const name[] = {
		"tracer process", "PTRACE_SEIZE", "PTRACE_INTERRUPT", "waiting for the attach stop",
		"PTRACE_GET_SYSCALL_INFO", "resuming", "waiting for stops",
	};

	return step >= 0 && step <= STEP_LOOP ? name[step] : name[0];
}

static void count(int64_t *c)
{
	__atomic_fetch_add(c, 1, __ATOMIC_RELAXED);
}

static int fail(struct pt_shared *sh, int step)
{
	sh->step = step;
	sh->err = errno;
	return -1;
}

/* Signal to pass on when resuming: none for syscall and event stops. */
static int stop_signal(int st)
{
	int sig = WSTOPSIG(st);

	/*
	 * Event stops include SEIZE group-stops: resuming them ignores job
	 * control (strace would PTRACE_LISTEN), fine for a benchmark.
	 */
	if (st >> 16 || sig == (SIGTRAP | 0x80))
		return 0;
	return sig;
}

static int helper_attach(const struct pt_run *r, int *st)
{
	long opts = PTRACE_O_EXITKILL | PTRACE_O_TRACECLONE |
		    (r->seccomp ? PTRACE_O_TRACESECCOMP : PTRACE_O_TRACESYSGOOD);
	struct __ptrace_syscall_info si;

	if (ptrace(PTRACE_SEIZE, r->pid, 0, opts))
		return fail(r->sh, STEP_SEIZE);
	/* It waits in child_prep (the probe: in read): it stops, the call restarts on resume. */
	if (ptrace(PTRACE_INTERRUPT, r->pid, 0, 0))
		return fail(r->sh, STEP_INTERRUPT);
	while (waitpid(r->pid, st, __WALL) < 0)
		if (errno != EINTR)
			return fail(r->sh, STEP_WAIT);
	if (!WIFSTOPPED(*st)) {
		errno = ESRCH;
		return fail(r->sh, STEP_WAIT);
	}
	/*
	 * PTRACE_GET_SYSCALL_INFO (5.3+) rather than PEEKUSER of orig_rax: both
	 * cost one ptrace call (~200 ns here), but only this one also says
	 * entry or exit. PEEKUSER would need a per-thread in/out toggle that a
	 * missed stop desynchronises, or a second call (rax == -ENOSYS).
	 */
	if (!r->seccomp && ptrace(PTRACE_GET_SYSCALL_INFO, r->pid, sizeof(si), &si) <= 0)
		return fail(r->sh, STEP_INFO);
	return 0;
}

/* Service every stop of every thread until none is left (ECHILD). */
static int helper_loop(const struct pt_run *r)
{
	int req = r->seccomp ? PTRACE_CONT : PTRACE_SYSCALL, st;
	struct __ptrace_syscall_info si;
	pid_t tid;

	for (;;) {
		tid = waitpid(-1, &st, __WALL);
		if (tid < 0) {
			if (errno == EINTR)
				continue;
			return errno == ECHILD ? 0 : fail(r->sh, STEP_LOOP);
		}
		/* A thread is gone; for the leader, this hands its exit on to the runner. */
		if (!WIFSTOPPED(st))
			continue;
		if (WSTOPSIG(st) == (SIGTRAP | 0x80)) {
			count(&r->sh->stops);
			if (ptrace(PTRACE_GET_SYSCALL_INFO, tid, sizeof(si), &si) > 0 &&
			    si.op == PTRACE_SYSCALL_INFO_ENTRY && (long)si.entry.nr == r->nr)
				count(&r->sh->hits);
		} else if (r->seccomp) {
			count(&r->sh->stops);
			if (st >> 8 == (SIGTRAP | (PTRACE_EVENT_SECCOMP << 8)))
				count(&r->sh->hits);
		}
		/* New threads start in a PTRACE_EVENT_STOP: resumed here like any stop. */
		if (ptrace(req, tid, 0, stop_signal(st)) && errno != ESRCH)
			return fail(r->sh, STEP_RESUME);
	}
}

static noreturn void helper_main(const struct pt_run *r, pid_t parent)
{
	static const int dfl_sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE };
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	sigset_t none;
	int st, rc;

	/* If we die, EXITKILL kills the workload; if the runner dies, we die. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	cpus_pin_self(r->cpu);	/* a syscall: async-signal-safe */
	if (getppid() != parent)
		_exit(1);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	for (size_t i = 0; i < sizeof(dfl_sigs) / sizeof(dfl_sigs[0]); i++)
		sigaction(dfl_sigs[i], &dfl, NULL);
	/* Hold no pipe of the runner's open: it waits for their EOF. */
	if (r->ready_fd > 3)
		close_range(3, (unsigned)r->ready_fd - 1, 0);
	close_range((unsigned)r->ready_fd + 1, ~0U, 0);

	if (helper_attach(r, &st))
		_exit(2);
	if (!r->probe && ptrace(r->seccomp ? PTRACE_CONT : PTRACE_SYSCALL, r->pid, 0, stop_signal(st))) {
		fail(r->sh, STEP_RESUME);
		_exit(2);
	}
	if (write(r->ready_fd, "r", 1) != 1 || r->probe)
		_exit(r->probe ? 0 : 2);	/* EXITKILL ends a probe's tracee */
	close(r->ready_fd);
	rc = helper_loop(r);
	r->sh->cpu_end = process_cpu_ns();
	_exit(rc ? 3 : 0);
}

/* ---- in the runner */

/*
 * Not base/spawn.c's fork+exec: the helper runs our own code after fork,
 * it does not exec, so fds cannot be left to close-on-exec; it closes all
 * but its ready pipe itself (helper_main), and in what it calls after fork
 * it keeps to async-signal-safe functions, which spawn.c's exec path need
 * not care about once exec'd.
 */
static pid_t spawn_helper(struct pt_run *r, int *ready)
{
	pid_t parent = getpid(), h;
	int fds[2];

	if (pipe2(fds, O_CLOEXEC))
		return -1;
	memset(r->sh, 0, sizeof(*r->sh));
	r->ready_fd = fds[1];
	h = fork();
	if (h == 0)
		helper_main(r, parent);
	close(fds[1]);
	if (h < 0)
		close(fds[0]);
	else
		*ready = fds[0];
	return h;
}

/* 0: attached; -1: the helper gave up (see sh); -2: timed out. */
static int wait_ready(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	char c;
	int r;

	while ((r = poll(&p, 1, ms)) < 0 && errno == EINTR)
		;
	if (r == 0)
		return -2;
	return read(fd, &c, 1) == 1 ? 0 : -1;
}

/* Exit status of helper @h, or -1 if it is still running after @ms. */
int pt_reap(pid_t h, int ms)
{
	struct timespec tick = { 0, 1000000 };
	int st;

	if (h <= 0)
		return 0;	/* never waitpid(-1): it would reap the runner's children */
	for (int i = 0; i <= ms; i++) {
		pid_t r = waitpid(h, &st, WNOHANG);

		if (r == h || (r < 0 && errno == ECHILD))
			return r == h ? st : 0;
		nanosleep(&tick, NULL);
	}
	return -1;
}

/* Kill the helper: EXITKILL takes a still running workload with it. */
void pt_kill(pid_t *h)
{
	if (*h <= 0)
		return;
	kill(*h, SIGKILL);
	if (pt_reap(*h, PT_KILL_TIMEOUT_MS) < 0)
		warning("tracer process %d did not die", (int)*h);
	*h = -1;
}

/* Fork a helper that attaches to @r->pid; TT_OK once it has. */
int pt_attach(char *err, size_t len, struct pt_run *r, pid_t *h)
{
	int fd, rc;

	*h = spawn_helper(r, &fd);
	if (*h < 0) {
		snprintf(err, len, "cannot fork tracer process: %s", strerror(errno));
		return TT_FAIL;
	}
	rc = wait_ready(fd, PT_ATTACH_TIMEOUT_MS);
	close(fd);
	if (rc == 0)
		return TT_OK;
	if (rc == -1 && pt_reap(*h, PT_KILL_TIMEOUT_MS) >= 0)
		*h = -1;
	pt_kill(h);
	if (rc == -2)
		snprintf(err, len, "cannot attach to pid %d: timed out", (int)r->pid);
	else
		snprintf(err, len, "cannot attach to pid %d: %s failed: %s", (int)r->pid,
			 pt_step_name(r->sh->step), strerror(r->sh->err));
	return TT_FAIL;
}
