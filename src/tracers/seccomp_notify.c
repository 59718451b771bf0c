/*
 * seccomp:notify: the filter returns SECCOMP_RET_USER_NOTIF for the target
 * syscall, and a supervisor thread of ours answers each notification with
 * SECCOMP_USER_NOTIF_FLAG_CONTINUE: the syscall then runs as if unfiltered.
 * What it costs is the round trip to the supervisor (two context switches,
 * or two cross-CPU wake-ups), which containers pay for each such syscall.
 *
 * The child sends us the listener fd over a socketpair (SCM_RIGHTS).
 * hits = notifications answered after start(); consumer_ns = the
 * supervisor's CPU time during the run.
 */
#include <errno.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../tracer.h"
#include "../util.h"
#include "seccomp.h"

#define FD_TIMEOUT_MS 5000	/* the child's listener fd must come by then */
#define JOIN_TIMEOUT_S 2	/* the supervisor sees POLLHUP well before */

struct notify {
	int sock[2];		/* [0] ours, [1] the child's: it sends the listener fd */
	int listener;		/* this run's SECCOMP_FILTER_FLAG_NEW_LISTENER fd */
	int quit;		/* eventfd: tells the supervisor to stop */
	pthread_t th;
	int running;		/* th is to be joined */
	struct seccomp_notif_sizes sizes;
	const struct tracer *t;	/* for its placement (--tracer-cpu) */
	_Atomic int64_t hits;	/* notifications answered since start() */
	_Atomic int err;	/* errno that stopped the supervisor, 0 if none */
	uint64_t cpu_start;	/* supervisor CPU at start(), from outside */
	_Atomic uint64_t cpu_end;	/* its CPU when it left, from inside */
};

static int notify_supported(const struct tracer *t, char *reason, size_t len)
{
	(void)t;
	return tt_seccomp_supported("user_notif", SECCOMP_RET_USER_NOTIF,
				    SECCOMP_FILTER_FLAG_NEW_LISTENER, reason, len);
}

static int notify_setup(struct tracer *t)
{
	struct notify *n = calloc(1, sizeof(*n));

	if (!n)
		return tracer_error(t, "cannot allocate seccomp:notify state");
	n->sock[0] = n->sock[1] = n->listener = n->quit = -1;
	t->priv = n;
	/* The kernel's structs may outgrow our headers: size buffers as it says. */
	if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &n->sizes))
		return tracer_error(t, "cannot get seccomp notification sizes: %s", strerror(errno));
	/* SEQPACKET: one message per child; CLOEXEC: the workload inherits neither end. */
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, n->sock))
		return tracer_error(t, "cannot create socketpair: %s", strerror(errno));
	n->quit = eventfd(0, EFD_CLOEXEC);
	if (n->quit < 0)
		return tracer_error(t, "cannot create eventfd: %s", strerror(errno));
	return TT_OK;
}

/*
 * In the child: filter, then send the listener with our pid (so that the
 * parent can tell a stale message of an earlier, failed run). Once the
 * filter is in, every target syscall blocks until the supervisor runs, so
 * getpid comes first, and close(lfd) may wait for spawned() (target close).
 */
static int notify_child_prep(struct tracer *t)
{
	struct notify *n = t->priv;
	pid_t self = getpid();
	union { char buf[CMSG_SPACE(sizeof(int))]; struct cmsghdr align; } u;
	struct iovec iov = { .iov_base = &self, .iov_len = sizeof(self) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
			      .msg_control = u.buf, .msg_controllen = sizeof(u.buf) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
	int lfd = tt_seccomp_install(t->target->nr, SECCOMP_RET_USER_NOTIF,
				     SECCOMP_FILTER_FLAG_NEW_LISTENER);

	if (lfd < 0)
		return -1;
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &lfd, sizeof(int));
	if (sendmsg(n->sock[1], &msg, MSG_NOSIGNAL) != sizeof(self))
		return -1;
	close(lfd);
	return 0;
}

/* Answer one notification: let the syscall run as if no filter were there. */
static int notify_answer(struct notify *n, struct seccomp_notif *req,
			 struct seccomp_notif_resp *resp)
{
	memset(req, 0, n->sizes.seccomp_notif);	/* the kernel insists on zeroes */
	if (ioctl(n->listener, SECCOMP_IOCTL_NOTIF_RECV, req) < 0)
		return errno == EINTR || errno == ENOENT ? 0 : -1;
	memset(resp, 0, n->sizes.seccomp_notif_resp);
	resp->id = req->id;
	resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
	/*
	 * Count before answering: counted after, the answer to the workload's
	 * last call before its ready line could land after start() reset the
	 * count, one hit too many.
	 */
	atomic_fetch_add_explicit(&n->hits, 1, memory_order_relaxed);
	if (ioctl(n->listener, SECCOMP_IOCTL_NOTIF_SEND, resp) < 0)
		return errno == ENOENT ? 0 : -1;	/* ENOENT: the caller was killed */
	return 0;
}

/*
 * poll, not a blocking RECV: RECV never returns once the workload is gone
 * (the kernel reports that as POLLHUP, when the last task using the filter
 * is reaped), and the quit eventfd must be able to stop us.
 */
static void *notify_supervisor(void *arg)
{
	struct notify *n = arg;
	struct seccomp_notif *req = calloc(1, n->sizes.seccomp_notif);
	struct seccomp_notif_resp *resp = calloc(1, n->sizes.seccomp_notif_resp);
	struct pollfd p[2] = { { .fd = n->listener, .events = POLLIN },
			       { .fd = n->quit, .events = POLLIN } };

	tracer_place_self(n->t);
	if (!req || !resp)
		atomic_store(&n->err, ENOMEM);
	while (!atomic_load(&n->err)) {
		if (poll(p, 2, -1) < 0) {
			if (errno != EINTR)
				atomic_store(&n->err, errno);
			continue;
		}
		if (p[1].revents)
			break;
		if (p[0].revents & POLLIN) {
			if (notify_answer(n, req, resp))
				atomic_store(&n->err, errno);
		} else if (p[0].revents) {
			break;	/* POLLHUP: the workload is gone */
		}
	}
	atomic_store(&n->cpu_end, thread_cpu_ns());
	/*
	 * Ours to close: a workload still running then gets ENOSYS from its
	 * target calls instead of blocking forever on a supervisor that left.
	 */
	close(n->listener);
	free(req);
	free(resp);
	return NULL;
}

/* Stop the supervisor: first let it notice the workload's end by itself. */
static void notify_halt(struct notify *n, int wait_s)
{
	struct timespec dl;
	uint64_t one = 1;

	if (!n->running)
		return;
	clock_gettime(CLOCK_REALTIME, &dl);
	dl.tv_sec += wait_s;
	if (!wait_s || pthread_timedjoin_np(n->th, NULL, &dl)) {
		if (write(n->quit, &one, sizeof(one)) < 0)
			warning("cannot stop the seccomp supervisor: %s", strerror(errno));
		pthread_join(n->th, NULL);
		if (read(n->quit, &one, sizeof(one)) < 0)
			one = 0;	/* drained for the next run */
	}
	n->running = 0;
	n->listener = -1;	/* closed by the supervisor */
}

/* Our end of the socketpair, until the child's message or its death. */
static int notify_recv_fd(struct tracer *t, struct notify *n, pid_t pid)
{
	int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);	/* -1: timeout only */
	struct pollfd p[2] = { { .fd = n->sock[0], .events = POLLIN },
			       { .fd = pidfd, .events = POLLIN } };
	pid_t from = 0;
	int fd = -1;

	while (fd < 0) {
		union { char buf[CMSG_SPACE(sizeof(int))]; struct cmsghdr align; } u;
		struct iovec iov = { .iov_base = &from, .iov_len = sizeof(from) };
		struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
				      .msg_control = u.buf, .msg_controllen = sizeof(u.buf) };
		struct cmsghdr *c;
		int r = poll(p, 2, FD_TIMEOUT_MS);

		if (r <= 0 || !(p[0].revents & POLLIN)) {
			if (r < 0 && errno == EINTR)
				continue;
			if (pidfd >= 0)
				close(pidfd);
			return tracer_error(t, "no seccomp listener from pid %d: %s", (int)pid,
					    r < 0 ? strerror(errno) : r ? "it exited" : "timed out");
		}
		if (recvmsg(n->sock[0], &msg, MSG_CMSG_CLOEXEC) < 0) {
			if (errno == EINTR)
				continue;
			if (pidfd >= 0)
				close(pidfd);
			return tracer_error(t, "cannot receive seccomp listener: %s", strerror(errno));
		}
		c = CMSG_FIRSTHDR(&msg);
		if (c && c->cmsg_type == SCM_RIGHTS)
			memcpy(&fd, CMSG_DATA(c), sizeof(int));
		if (fd >= 0 && from != pid) {	/* a dead child's, from an earlier run */
			close(fd);
			fd = -1;
		}
	}
	if (pidfd >= 0)
		close(pidfd);
	return fd;
}

/* Right away: ld.so's target calls (close) block until someone answers. */
static int notify_spawned(struct tracer *t, pid_t pid)
{
	struct notify *n = t->priv;
	int fd;

	notify_halt(n, 0);	/* a supervisor left over from a failed run */
	fd = notify_recv_fd(t, n, pid);
	if (fd < 0)
		return TT_FAIL;
	n->listener = fd;
	n->t = t;
	atomic_store(&n->err, 0);
	atomic_store(&n->cpu_end, 0);
	if ((errno = pthread_create(&n->th, NULL, notify_supervisor, n))) {
		close(fd);
		n->listener = -1;
		return tracer_error(t, "cannot create seccomp supervisor thread: %s",
				    strerror(errno));
	}
	n->running = 1;
	return TT_OK;
}

static int notify_start(struct tracer *t, pid_t pid)
{
	struct notify *n = t->priv;
	clockid_t clk;
	struct timespec ts = { 0, 0 };

	(void)pid;
	if (!n->running)
		return tracer_error(t, "seccomp supervisor not running for pid %d", (int)pid);
	/* ld.so's answers came before: from here on only the workload's count. */
	atomic_store(&n->hits, 0);
	if (!pthread_getcpuclockid(n->th, &clk))
		clock_gettime(clk, &ts);
	n->cpu_start = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	return TT_OK;
}

static int notify_stop(struct tracer *t, struct tt_hits *out)
{
	struct notify *n = t->priv;
	int err;
	uint64_t end;

	notify_halt(n, JOIN_TIMEOUT_S);
	err = atomic_load(&n->err);
	end = atomic_load(&n->cpu_end);
	*out = (struct tt_hits){
		.hits = atomic_load(&n->hits),
		.lost = 0,
		.stops = -1,
		.consumer_ns = end > n->cpu_start ? (double)(end - n->cpu_start) : 0,
	};
	if (err)
		return tracer_error(t, "seccomp supervisor failed: %s", strerror(err));
	return TT_OK;
}

static void notify_teardown(struct tracer *t)
{
	struct notify *n = t->priv;

	if (!n)
		return;
	notify_halt(n, 0);
	for (int i = 0; i < 2; i++)
		if (n->sock[i] >= 0)
			close(n->sock[i]);
	if (n->quit >= 0)
		close(n->quit);
	free(n);
	t->priv = NULL;
}

const struct tracer_ops tracer_seccomp_notify = {
	.name = "seccomp:notify",
	.hooks = TT_HOOK_SYSCALL,
	.summary = "seccomp user notification on the target syscall, answered 'continue'",
	.supported = notify_supported,
	.setup = notify_setup,
	.child_prep = notify_child_prep,
	.spawned = notify_spawned,
	.start = notify_start,
	.stop = notify_stop,
	.teardown = notify_teardown,
};
