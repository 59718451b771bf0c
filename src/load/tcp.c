/*
 * The loopback TCP workloads. Each workload thread opens one connection
 * over 127.0.0.1 and starts a peer thread at its other end: the peer is
 * part of the workload process, so tracers that follow the workload see it,
 * and it ends with it. The op is one sendto(2), so the workload's events are
 * the messages it sends (or the requests of its round trips), and a syscall
 * tracer on sendto counts exactly those: the peers use read(2) and write(2).
 *
 * tcp: the thread streams messages, the peer drains them. A loop's timing
 * ends when the peer has read the loop's last byte (it answers one byte),
 * not when the last send returned: a send returns once its bytes are in the
 * socket buffers, which hold megabytes on loopback.
 * tcp-rr: the thread sends a request and reads the response, both of
 * --msg-size bytes; an op is a round trip.
 *
 * Bounds: as root each thread first moves into a network namespace of its
 * own (the peer thread it starts shares it), so that nothing else on the
 * machine shares the path, and the namespace goes away with the workload's
 * last thread. Sends and the waits for answers time out after
 * TCP_TIMEOUT_S. Connections end with a reset (SO_LINGER 0): a graceful
 * close leaves the first closer in TIME_WAIT for a minute, which outside a
 * namespace of our own would survive the run.
 */
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/cpus.h"
#include "base/write_full.h"
#include "load/tcp.h"

#define TCP_TIMEOUT_S 10
#define DRAIN_BYTES 65536

uint32_t tcp_msg_size = TCP_MSG_DEFAULT;
uint32_t tcp_bytes_per_op;

struct tcp_conn {
	int fd;                   /* the workload thread's end */
	int peer;                 /* the peer thread's end */
	int peer_cpu;
	bool rr;
	bool broken;              /* an op failed: the others fail at once */
	pthread_t th;
	size_t msg;
	char *out, *in;           /* what is sent; where a response is read to */
	_Atomic uint64_t expect;  /* tcp: total bytes at which the peer answers */
};

static __thread struct tcp_conn *self;

static int tcp_fail(const char *what)
{
	fprintf(stderr, "tracetax-load: %s: %s\n", what, strerror(errno));
	return -1;
}

/*
 * A fresh namespace has only lo, and lo down. EPERM (not root): stay in
 * ours, on the machine's loopback.
 */
static int private_netns(void)
{
	struct ifreq ifr;
	int s, rc = -1;

	if (unshare(CLONE_NEWNET))
		return errno == EPERM ? 0 : tcp_fail("cannot unshare the network namespace");
	s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return tcp_fail("cannot open a socket");
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "lo");
	if (ioctl(s, SIOCGIFFLAGS, &ifr) == 0) {
		ifr.ifr_flags |= IFF_UP;
		rc = ioctl(s, SIOCSIFFLAGS, &ifr);
	}
	if (rc)
		tcp_fail("cannot bring up 'lo' in the workload's namespace");
	close(s);
	return rc;
}

static int set_opt(int fd, int level, int name, const void *v, socklen_t len)
{
	return setsockopt(fd, level, name, v, len) ? tcp_fail("cannot set a socket option") : 0;
}

/* A listener on 127.0.0.1 with a port the kernel picks, one connection to it. */
static int conn_open(struct tcp_conn *c)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct timeval tmo = { .tv_sec = TCP_TIMEOUT_S };
	socklen_t len = sizeof(a);
	int l, one = 1;

	l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (l < 0)
		return tcp_fail("cannot open a socket");
	if (bind(l, (struct sockaddr *)&a, sizeof(a)) || listen(l, 1) ||
	    getsockname(l, (struct sockaddr *)&a, &len)) {
		tcp_fail("cannot listen on 127.0.0.1");
		close(l);
		return -1;
	}
	c->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (c->fd < 0 || connect(c->fd, (struct sockaddr *)&a, len) ||
	    (c->peer = accept4(l, NULL, NULL, SOCK_CLOEXEC)) < 0) {
		tcp_fail("cannot connect over 127.0.0.1");
		close(l);
		return -1;
	}
	close(l);
	/*
	 * No Nagle, for the stream too: with it, a fresh connection's first
	 * ~10k messages wait on delayed ACKs (17 us a message here, 3 us once
	 * past them), which a run of 100 ms never leaves. netperf keeps Nagle,
	 * but runs for 10 s. Without it each message leaves as a segment of its
	 * own unless the window holds it back: the packet rate seed 004 asks about.
	 */
	if ((set_opt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) ||
		      set_opt(c->peer, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one))))
		return -1;
	return set_opt(c->fd, SOL_SOCKET, SO_SNDTIMEO, &tmo, sizeof(tmo)) ||
	       set_opt(c->fd, SOL_SOCKET, SO_RCVTIMEO, &tmo, sizeof(tmo)) ? -1 : 0;
}

static bool read_full(int fd, char *buf, size_t len)
{
	while (len) {
		ssize_t n = read(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		buf += n;
		len -= (size_t)n;
	}
	return true;
}

/*
 * tcp's peer: reads everything; when it has read as many bytes as the
 * running loop will send (set before its first send), it answers one byte.
 * It ends when the connection is reset.
 */
static void drain(struct tcp_conn *c)
{
	char *buf = malloc(DRAIN_BYTES);
	uint64_t got = 0, acked = 0;

	for (;;) {
		ssize_t n = buf ? read(c->peer, buf, DRAIN_BYTES) : -1;
		uint64_t want;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (uint64_t)n;
		want = atomic_load_explicit(&c->expect, memory_order_acquire);
		if (got == want && want != acked) {
			if (!write_full(c->peer, "k", 1))
				break;
			acked = want;
		}
	}
	free(buf);
}

/* tcp-rr's peer: a response of the same size for every request. */
static void respond(struct tcp_conn *c)
{
	char *buf = malloc(c->msg);

	while (buf && read_full(c->peer, buf, c->msg) && write_full(c->peer, buf, c->msg))
		;
	free(buf);
}

static void *peer_main(void *arg)
{
	struct tcp_conn *c = arg;

	cpus_pin_self(c->peer_cpu);
	if (c->rr)
		respond(c);
	else
		drain(c);
	return NULL;
}

static int begin(int peer_cpu, bool rr)
{
	struct tcp_conn *c = calloc(1, sizeof(*c));

	if (!c || !(c->out = malloc(tcp_msg_size)) || !(c->in = malloc(tcp_msg_size)))
		return tcp_fail("out of memory");
	c->fd = c->peer = -1;
	c->rr = rr;
	c->peer_cpu = peer_cpu;
	c->msg = tcp_bytes_per_op = tcp_msg_size;
	memset(c->out, 'm', c->msg);
	self = c;
	if (private_netns() || conn_open(c))
		return -1;
	if ((errno = pthread_create(&c->th, NULL, peer_main, c)))
		return tcp_fail("cannot start the peer thread");
	return 0;
}

int tcp_begin_stream(int peer_cpu)
{
	return begin(peer_cpu, false);
}

int tcp_begin_rr(int peer_cpu)
{
	return begin(peer_cpu, true);
}

void tcp_end(void)
{
	struct tcp_conn *c = self;
	struct linger lg = { .l_onoff = 1, .l_linger = 0 };

	if (!c)
		return;
	/* a reset: the peer's read returns at once, and no end is left in TIME_WAIT */
	setsockopt(c->fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	close(c->fd);
	pthread_join(c->th, NULL);
	close(c->peer);
	free(c->out);
	free(c->in);
	free(c);
	self = NULL;
}

static bool broken(struct tcp_conn *c, const char *what)
{
	if (!c->broken)
		fprintf(stderr, "tracetax-load: %s on the tcp connection: %s\n", what,
			errno ? strerror(errno) : "connection closed");
	c->broken = true;
	return false;
}

/* One sendto(2), the whole message: a short send (a timeout) is a failed op. */
static bool send_msg(struct tcp_conn *c)
{
	errno = 0;
	return syscall(SYS_sendto, c->fd, c->out, c->msg, 0, NULL, 0) == (long)c->msg;
}

bool tcp_stream_op(uint64_t i, uint64_t n)
{
	struct tcp_conn *c = self;
	char ack;

	if (c->broken)
		return false;
	if (i == 0)
		atomic_fetch_add_explicit(&c->expect, n * c->msg, memory_order_release);
	if (!send_msg(c))
		return broken(c, "send failed");
	errno = 0;
	if (i + 1 == n && !read_full(c->fd, &ack, 1))
		return broken(c, "no answer from the peer");
	return true;
}

bool tcp_rr_op(void)
{
	struct tcp_conn *c = self;

	if (c->broken)
		return false;
	if (!send_msg(c))
		return broken(c, "send failed");
	errno = 0;
	if (!read_full(c->fd, c->in, c->msg))
		return broken(c, "no response from the peer");
	return true;
}
