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
 * The tracer is a process of its own (ptrace_helper.c says why). It attaches
 * in spawned(), before exec, and child_prep waits until it has: with no
 * tracer yet, RET_TRACE fails the call with ENOSYS, and ld.so dies of a
 * failed close ("cannot close file descriptor: Error 38") when close is the
 * target. The counters count from start() (reset there).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tracers/tracer.h"
#include "base/util.h"
#include "tracers/ptrace/ptrace_helper.h"
#include "tracers/ptrace/seccomp.h"

#define EXIT_TIMEOUT_MS 5000	/* the helper has seen the workload's end by then */

/* What tells ptrace:seccomp from ptrace:all (tracer_ops.data). */
struct pt_family {
	int seccomp;	/* a seccomp filter asks for the stops: the target's only */
};

static const struct pt_family pt_all = { .seccomp = 0 };
static const struct pt_family pt_seccomp = { .seccomp = 1 };

struct pt_priv {
	struct pt_shared *sh;	/* MAP_SHARED: survives the fork */
	pid_t helper;
	uint64_t cpu_start;	/* helper's CPU clock at start() */
};

static int is_seccomp(const struct tracer *t)
{
	return ((const struct pt_family *)t->ops->data)->seccomp;
}

/* Yama scope 1 lets only ancestors trace: our helper is the tracee's sibling. */
static void allow_parent_tree(void)
{
	prctl(PR_SET_PTRACER, getppid(), 0, 0, 0);	/* EINVAL without Yama: fine */
}

/* Attach the way a run does, to a child parked in read(). */
static int probe(const struct tracer *t, char *reason, size_t len)
{
	struct pt_run r = { .nr = -1, .seccomp = is_seccomp(t), .probe = 1, .cpu = -1 };
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
	else if (pt_attach(reason, len, &r, &h) == TT_OK)
		rc = TT_OK;
	close(gate[1]);
	if (pt_reap(h, PT_KILL_TIMEOUT_MS) < 0)
		pt_kill(&h);
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
	if (wait_traced(PT_ATTACH_TIMEOUT_MS))
		return -1;
	if (!is_seccomp(t))
		return 0;
	return tt_seccomp_install(t->target->nr, SECCOMP_RET_TRACE, 0) < 0 ? -1 : 0;
}

static int pt_spawned(struct tracer *t, pid_t pid)
{
	struct pt_priv *p = t->priv;
	struct pt_run r = { .pid = pid, .nr = t->target->nr, .seccomp = is_seccomp(t), .sh = p->sh,
			    .cpu = t->tracer_cpu };

	pt_kill(&p->helper);	/* one left over from a failed run */
	return pt_attach(t->err, sizeof(t->err), &r, &p->helper);
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
	st = pt_reap(p->helper, EXIT_TIMEOUT_MS);
	if (st < 0) {
		pt_kill(&p->helper);
		return tracer_error(t, "tracer process still running %d s after the workload",
				    EXIT_TIMEOUT_MS / 1000);
	}
	p->helper = -1;
	if (WIFSIGNALED(st))
		return tracer_error(t, "tracer process killed: %s", strsignal(WTERMSIG(st)));
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		return tracer_error(t, "tracer process failed: %s: %s",
				    pt_step_name(p->sh->step), strerror(p->sh->err));
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
	pt_kill(&p->helper);
	if (p->sh)
		munmap(p->sh, sizeof(*p->sh));
	free(p);
	t->priv = NULL;
}

const struct tracer_ops tracer_ptrace_all = {
	.name = "ptrace:all",
	.hooks = TT_HOOK_SYSCALL,
	.summary = "PTRACE_SYSCALL stop at every syscall entry and exit (what strace does)",
	.data = &pt_all,
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
	.hooks = TT_HOOK_SYSCALL,
	.summary = "seccomp RET_TRACE stop at the target syscall only (strace --seccomp-bpf)",
	.data = &pt_seccomp,
	.supported = pt_supported,
	.setup = pt_setup,
	.child_prep = pt_child_prep,
	.spawned = pt_spawned,
	.start = pt_start,
	.stop = pt_stop,
	.teardown = pt_teardown,
};
