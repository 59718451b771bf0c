/*
 * ptrace:all      PTRACE_SYSCALL: the tracee stops at every syscall entry and
 *                 exit, and a minimal handler reads the number and resumes it
 *                 (what strace does). 2 stops per syscall: stops counts both,
 *                 hits counts the entries of the target syscall.
 * ptrace:seccomp  a seccomp filter returns RET_TRACE for the target only, the
 *                 tracer PTRACE_CONTs (what strace --seccomp-bpf does): one
 *                 PTRACE_EVENT_SECCOMP stop per target call (hits); stops also
 *                 counts the clone and new-thread stops.
 *
 * The tracer is a helper process that start() forks, not a thread of ours.
 * The kernel lets every thread of the tracer's thread group wait for a
 * tracee, and when the tracee's real parent is in that same group it reports
 * ptrace stops to it too (wait_consider_task: "traced by its real parent's
 * group"). The runner's waitpid(pid) would then take syscall stops that only
 * the tracer thread may resume, and the workload would hang (seen on 6.18).
 * A tracer in its own thread group, as strace is, hides the stops from the
 * runner; the tracee's exit goes to the tracer first (EXIT_TRACE), which
 * hands it on to the real parent: the runner reaps it as it always does.
 *
 * The helper attaches in spawned(), before exec, and child_prep waits until
 * it has: with no tracer yet, RET_TRACE fails the call with ENOSYS, and
 * ld.so dies of a failed close ("cannot close file descriptor: Error 38")
 * when close is the target. The counters count from start() (reset there).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdnoreturn.h>
#include <string.h>
#include <stdlib.h>
#include <linux/seccomp.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../tracer.h"
#include "../util.h"
#include "seccomp.h"

#define ATTACH_TIMEOUT_MS 5000	/* the helper has seized the workload by then */
#define EXIT_TIMEOUT_MS 5000	/* it has seen the workload's end by then */
#define KILL_TIMEOUT_MS 2000

extern const struct tracer_ops tracer_ptrace_seccomp;

/* Counted by the helper (atomics: we reset them in start()), read after reaping it. */
struct pt_shared {
	int64_t hits, stops;
	uint64_t cpu_end;	/* helper's process CPU clock when it left */
	int step, err;		/* what failed, errno */
};

enum { STEP_NONE, STEP_SEIZE, STEP_INTERRUPT, STEP_WAIT, STEP_INFO, STEP_RESUME, STEP_LOOP };
static const char *const step_name[] = {
	"tracer process", "PTRACE_SEIZE", "PTRACE_INTERRUPT", "waiting for the attach stop",
	"PTRACE_GET_SYSCALL_INFO", "resuming", "waiting for stops",
};

struct pt_run {
	pid_t pid;
	long nr;
	int seccomp;		/* ptrace:seccomp */
	int probe;		/* supported(): attach, then leave */
	int ready_fd;
	struct pt_shared *sh;
};

struct pt_priv {
	struct pt_shared *sh;	/* MAP_SHARED: survives the fork */
	pid_t helper;
	uint64_t cpu_start;	/* helper's CPU clock at start() */
};

static void count(int64_t *c)
{
	__atomic_fetch_add(c, 1, __ATOMIC_RELAXED);
}

/* ---- in the helper process (forked from a maybe-threaded runner: async-signal-safe only) */

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
static int reap(pid_t h, int ms)
{
	struct timespec tick = { 0, 1000000 };
	int st;

	for (int i = 0; i <= ms; i++) {
		pid_t r = waitpid(h, &st, WNOHANG);

		if (r == h || (r < 0 && errno == ECHILD))
			return r == h ? st : 0;
		nanosleep(&tick, NULL);
	}
	return -1;
}

/* Kill the helper: EXITKILL takes a still running workload with it. */
static void kill_helper(pid_t *h)
{
	if (*h <= 0)
		return;
	kill(*h, SIGKILL);
	if (reap(*h, KILL_TIMEOUT_MS) < 0)
		warning("tracer process %d did not die", (int)*h);
	*h = -1;
}

/* Fork a helper that attaches to @r->pid; TT_OK once it has. */
static int attach(char *err, size_t len, struct pt_run *r, pid_t *h)
{
	int fd, rc;

	*h = spawn_helper(r, &fd);
	if (*h < 0) {
		snprintf(err, len, "cannot fork tracer process: %s", strerror(errno));
		return TT_FAIL;
	}
	rc = wait_ready(fd, ATTACH_TIMEOUT_MS);
	close(fd);
	if (rc == 0)
		return TT_OK;
	if (rc == -1 && reap(*h, KILL_TIMEOUT_MS) >= 0)
		*h = -1;
	kill_helper(h);
	if (rc == -2)
		snprintf(err, len, "cannot attach to pid %d: timed out", (int)r->pid);
	else
		snprintf(err, len, "cannot attach to pid %d: %s failed: %s", (int)r->pid,
			 step_name[r->sh->step], strerror(r->sh->err));
	return TT_FAIL;
}

static int is_seccomp(const struct tracer *t)
{
	return t->ops == &tracer_ptrace_seccomp;
}

/* Yama scope 1 lets only ancestors trace: our helper is the tracee's sibling. */
static void allow_parent_tree(void)
{
	prctl(PR_SET_PTRACER, getppid(), 0, 0, 0);	/* EINVAL without Yama: fine */
}

/* Attach the way a run does, to a child parked in read(). */
static int probe(const struct tracer *t, char *reason, size_t len)
{
	struct pt_run r = { .nr = -1, .seccomp = is_seccomp(t), .probe = 1 };
	int gate[2], rc = TT_SKIP;
	pid_t h = -1;
	char c;

	r.sh = mmap(NULL, sizeof(*r.sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (r.sh == MAP_FAILED || pipe2(gate, O_CLOEXEC)) {
		snprintf(reason, len, "cannot prepare ptrace probe: %s", strerror(errno));
		if (r.sh != MAP_FAILED)
			munmap(r.sh, sizeof(*r.sh));
		return TT_SKIP;
	}
	r.pid = fork();
	if (r.pid == 0) {
		allow_parent_tree();
		close(gate[1]);
		_exit(read(gate[0], &c, 1) < 0);
	}
	close(gate[0]);
	if (r.pid < 0)
		snprintf(reason, len, "cannot fork ptrace probe: %s", strerror(errno));
	else if (attach(reason, len, &r, &h) == TT_OK)
		rc = TT_OK;
	close(gate[1]);
	if (reap(h, KILL_TIMEOUT_MS) < 0)
		kill_helper(&h);
	if (r.pid > 0) {
		kill(r.pid, SIGKILL);	/* untraced now: reaped at once */
		waitpid(r.pid, NULL, 0);
	}
	munmap(r.sh, sizeof(*r.sh));
	return rc;
}

static int pt_supported(const struct tracer *t, char *reason, size_t len)
{
	char scope[16];
	int rc;

	if (!read_file_str("/proc/sys/kernel/yama/ptrace_scope", scope, sizeof(scope)) &&
	    !strcmp(scope, "3")) {
		snprintf(reason, len, "ptrace disabled (kernel.yama.ptrace_scope = 3)");
		return TT_SKIP;
	}
	if (is_seccomp(t)) {
		rc = tt_seccomp_supported("trace", SECCOMP_RET_TRACE, 0, reason, len);
		if (rc != TT_OK)
			return rc;
	}
	return probe(t, reason, len);
}

static int pt_setup(struct tracer *t)
{
	struct pt_priv *p = calloc(1, sizeof(*p));

	if (!p)
		return tracer_error(t, "cannot allocate ptrace state");
	p->helper = -1;
	t->priv = p;
	p->sh = mmap(NULL, sizeof(*p->sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (p->sh == MAP_FAILED) {
		p->sh = NULL;
		return tracer_error(t, "cannot map ptrace counters: %s", strerror(errno));
	}
	return TT_OK;
}

/* In the child (async-signal-safe): until the helper has seized us, or @ms. */
static int wait_traced(int ms)
{
	struct timespec tick = { 0, 200000 };
	char buf[512], *p;

	for (int i = 0; i < ms * 5; i++) {
		int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
		ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

		if (fd >= 0)
			close(fd);
		if (n <= 0)
			return -1;
		buf[n] = '\0';
		p = strstr(buf, "TracerPid:");
		if (!p)
			return -1;
		for (p += 10; *p == '\t' || *p == ' '; p++)
			;
		if (*p != '0')
			return 0;
		nanosleep(&tick, NULL);
	}
	errno = ETIMEDOUT;
	return -1;
}

/* Wait for spawned()'s helper, then (ptrace:seccomp) the filter: it must not act untraced. */
static int pt_child_prep(struct tracer *t)
{
	allow_parent_tree();
	if (wait_traced(ATTACH_TIMEOUT_MS))
		return -1;
	if (!is_seccomp(t))
		return 0;
	return tt_seccomp_install(t->target->nr, SECCOMP_RET_TRACE, 0) < 0 ? -1 : 0;
}

static int pt_spawned(struct tracer *t, pid_t pid)
{
	struct pt_priv *p = t->priv;
	struct pt_run r = { .pid = pid, .nr = t->target->nr, .seccomp = is_seccomp(t), .sh = p->sh };

	kill_helper(&p->helper);	/* one left over from a failed run */
	return attach(t->err, sizeof(t->err), &r, &p->helper);
}

/* Forget ld.so's calls and the tracing of exec: count the workload only. */
static int pt_start(struct tracer *t, pid_t pid)
{
	struct pt_priv *p = t->priv;
	struct timespec ts = { 0, 0 };
	clockid_t clk;

	if (p->helper <= 0)
		return tracer_error(t, "tracer process not running for pid %d", (int)pid);
	__atomic_store_n(&p->sh->hits, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&p->sh->stops, 0, __ATOMIC_RELAXED);
	if (!clock_getcpuclockid(p->helper, &clk))
		clock_gettime(clk, &ts);
	p->cpu_start = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	return TT_OK;
}

/* The runner has reaped the workload: the helper has seen it go and exits. */
static int pt_stop(struct tracer *t, struct tt_hits *out)
{
	struct pt_priv *p = t->priv;
	int st;

	*out = (struct tt_hits){ .hits = -1, .lost = 0, .stops = -1 };
	if (p->helper <= 0)
		return tracer_error(t, "tracer process not running");
	st = reap(p->helper, EXIT_TIMEOUT_MS);
	if (st < 0) {
		kill_helper(&p->helper);
		return tracer_error(t, "tracer process still running %d s after the workload",
				    EXIT_TIMEOUT_MS / 1000);
	}
	p->helper = -1;
	if (WIFSIGNALED(st))
		return tracer_error(t, "tracer process killed: %s", strsignal(WTERMSIG(st)));
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		return tracer_error(t, "tracer process failed: %s: %s",
				    step_name[p->sh->step], strerror(p->sh->err));
	out->hits = p->sh->hits;
	out->stops = p->sh->stops;
	if (p->sh->cpu_end > p->cpu_start)
		out->consumer_ns = (double)(p->sh->cpu_end - p->cpu_start);
	return TT_OK;
}

static void pt_teardown(struct tracer *t)
{
	struct pt_priv *p = t->priv;

	if (!p)
		return;
	kill_helper(&p->helper);
	if (p->sh)
		munmap(p->sh, sizeof(*p->sh));
	free(p);
	t->priv = NULL;
}

const struct tracer_ops tracer_ptrace_all = {
	.name = "ptrace:all",
	.summary = "PTRACE_SYSCALL stop at every syscall entry and exit (what strace does)",
	.supported = pt_supported,
	.setup = pt_setup,
	.child_prep = pt_child_prep,
	.spawned = pt_spawned,
	.start = pt_start,
	.stop = pt_stop,
	.teardown = pt_teardown,
};

const struct tracer_ops tracer_ptrace_seccomp = {
	.name = "ptrace:seccomp",
	.summary = "seccomp RET_TRACE stop at the target syscall only (strace --seccomp-bpf)",
	.supported = pt_supported,
	.setup = pt_setup,
	.child_prep = pt_child_prep,
	.spawned = pt_spawned,
	.start = pt_start,
	.stop = pt_stop,
	.teardown = pt_teardown,
};
