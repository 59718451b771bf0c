/*
 * seccomp:notify: the filter returns SECCOMP_RET_USER_NOTIF for the target
 * syscall, and a supervisor thread of ours answers each notification with
 * SECCOMP_USER_NOTIF_FLAG_CONTINUE: the syscall then runs as if unfiltered.
 * What it costs is the round trip to the supervisor (two context switches,
 * or two cross-CPU wake-ups), which containers pay for each such syscall.
 *
 * The child sends us the listener fd over a socketpair (SCM_RIGHTS).
 * hits = notifications answered after start(); consumer_ns = the
 * supervisor's CPU time during the run. The supervisor is a consumer
 * thread (consumer.h), placed by --tracer-cpu: the workload waits on it.
 */
#include <errno.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tracers/tracer.h"
#include "tracers/consumer.h"
#include "tracers/ptrace/seccomp.h"

#define FD_TIMEOUT_MS 5000	/* the child's listener fd must come by then */

struct notify {
	int sock[2];		/* [0] ours, [1] the child's: it sends the listener fd */
	int listener;		/* this run's SECCOMP_FILTER_FLAG_NEW_LISTENER fd */
	struct consumer *sup;	/* this run's supervisor */
	struct seccomp_notif_sizes sizes;
	struct seccomp_notif *req;	/* sizes.seccomp_notif bytes */
	struct seccomp_notif_resp *resp;	/* sizes.seccomp_notif_resp bytes */
	_Atomic int64_t hits;	/* notifications answered since start() */
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
	n->sock[0] = n->sock[1] = n->listener = -1;
	t->priv = n;
	/* The kernel's structs may outgrow our headers: size buffers as it says. */
	if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &n->sizes))
		return tracer_error(t, "cannot get seccomp notification sizes: %s", strerror(errno));
	n->req = calloc(1, n->sizes.seccomp_notif);
	n->resp = calloc(1, n->sizes.seccomp_notif_resp);
	if (!n->req || !n->resp)
		return tracer_error(t, "cannot allocate seccomp notification buffers");
	/* SEQPACKET: one message per child; CLOEXEC: the workload inherits neither end. */
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, n->sock))
		return tracer_error(t, "cannot create socketpair: %s", strerror(errno));
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
static int notify_answer(struct notify *n)
{
	memset(n->req, 0, n->sizes.seccomp_notif);	/* the kernel insists on zeroes */
	if (ioctl(n->listener, SECCOMP_IOCTL_NOTIF_RECV, n->req) < 0)
		return errno == EINTR || errno == ENOENT ? 0 : -1;
	memset(n->resp, 0, n->sizes.seccomp_notif_resp);
	n->resp->id = n->req->id;
	n->resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
	/*
	 * Count before answering: counted after, the answer to the workload's
	 * last call before its ready line could land after start() reset the
	 * count, one hit too many.
	 */
	atomic_fetch_add_explicit(&n->hits, 1, memory_order_relaxed);
	if (ioctl(n->listener, SECCOMP_IOCTL_NOTIF_SEND, n->resp) < 0)
		return errno == ENOENT ? 0 : -1;	/* ENOENT: the caller was killed */
	return 0;
}

/*
 * poll, not a blocking RECV: RECV never returns once the workload is gone
 * (the kernel reports that as POLLHUP, when the last task using the filter
 * is gone), and the owner must be able to stop us. Nothing is ever queued
 * for a drain: each target call waits for its answer.
 */
static int notify_work(struct consumer *c, void *arg, struct pollfd *p, bool drain)
{
	struct notify *n = arg;
	int e;

	if (drain || !p[0].revents)
		return CONSUMER_MORE;
	if (!(p[0].revents & POLLIN))
		return CONSUMER_END;	/* POLLHUP: the workload is gone */
	if (!notify_answer(n))
		return CONSUMER_MORE;
	e = errno;
	/*
	 * Ours to close: a workload still running then gets ENOSYS from its
	 * target calls instead of blocking forever on a supervisor that left.
	 */
	close(n->listener);
	n->listener = -1;
	return consumer_fail(c, "cannot answer a notification: %s", strerror(e));
}

/* End the supervisor, then close the listener it served, unless it did. */
static int notify_halt(struct notify *n, uint64_t *cpu_ns, char *err, size_t len)
{
	int rc = consumer_stop(&n->sup, cpu_ns, err, len);

	if (n->listener >= 0)
		close(n->listener);
	n->listener = -1;
	return rc;
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

	notify_halt(n, NULL, NULL, 0);	/* a supervisor left over from a failed run */
	n->listener = notify_recv_fd(t, n, pid);
	if (n->listener < 0)
		return TT_FAIL;
	n->sup = consumer_start(&(struct consumer_conf){
		.name = "tt-seccomp", .placed = t, .period_ms = -1, .work = notify_work, .arg = n,
		.nfds = 1, .fds = &(struct pollfd){ .fd = n->listener, .events = POLLIN } },
		t->err, sizeof(t->err));
	return n->sup ? TT_OK : TT_FAIL;
}

static int notify_start(struct tracer *t, pid_t pid)
{
	struct notify *n = t->priv;

	if (!n->sup)
		return tracer_error(t, "seccomp supervisor not running for pid %d", (int)pid);
	/* ld.so's answers came before: from here on only the workload's count. */
	atomic_store(&n->hits, 0);
	consumer_reset(n->sup);
	return TT_OK;
}

static int notify_stop(struct tracer *t, struct tt_hits *out)
{
	struct notify *n = t->priv;
	uint64_t cpu;
	int rc = notify_halt(n, &cpu, t->err, sizeof(t->err));

	*out = (struct tt_hits){
		.hits = atomic_load(&n->hits),
		.lost = 0,
		.stops = -1,
		.consumer_ns = (double)cpu,
	};
	return rc ? TT_FAIL : TT_OK;
}

static void notify_teardown(struct tracer *t)
{
	struct notify *n = t->priv;

	if (!n)
		return;
	notify_halt(n, NULL, NULL, 0);
	for (int i = 0; i < 2; i++)
		if (n->sock[i] >= 0)
			close(n->sock[i]);
	free(n->req);
	free(n->resp);
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
