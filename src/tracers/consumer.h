/*
 * A consumer thread: a reader or supervisor that a tracer runs beside the
 * workload (ftrace readers, the perf:sample reader, the BPF ring-buffer
 * reader, the seccomp:notify supervisor). This module owns its life: the
 * thread, its blocked signals, name and placement, the eventfd on which
 * the owner asks for a drain or an end, bounded waits for the answer, the
 * join and the CPU time. A tracer's file keeps what to poll and what to
 * consume: its work().
 */
#ifndef TRACETAX_CONSUMER_H
#define TRACETAX_CONSUMER_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct consumer;
struct tracer;

/* What work() returns, besides consumer_fail()'s -1. */
enum {
	CONSUMER_MORE = 0,	/* go on polling */
	CONSUMER_END = 1,	/* the source is gone (POLLHUP): the thread ends */
};

struct consumer_conf {
	const char *name;	/* thread name, cut to 15 bytes; the subject of messages */
	const struct tracer *placed;	/* run where tracer_place_self() puts it; NULL: anywhere */
	int period_ms;		/* poll timeout: work() runs at least this often; -1: none */
	const struct pollfd *fds;	/* the consumer's own, copied; polled with the eventfd */
	int nfds;
	/*
	 * In the thread, after each poll (@fds hold the revents; all zero on a
	 * timeout) and once for each request of the owner (@drain: the
	 * producers are done, consume all there is). It may set an fd to -1 to
	 * stop polling it.
	 */
	int (*work)(struct consumer *c, void *arg, struct pollfd *fds, bool drain);
	void *arg;
};

/* Start the thread, every signal blocked (they are the signal thread's). NULL and @err on failure. */
struct consumer *consumer_start(const struct consumer_conf *conf, char *err, size_t len);
/* In work(): the thread ends, failed, with this reason (the first is kept). Returns -1. */
int consumer_fail(struct consumer *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Before a run of a thread that outlives it: CPU time counts from here, not from the start. */
void consumer_reset(struct consumer *c);
/*
 * Ask for a drain and wait for it (bounded): 0 and the thread's CPU ns since
 * start or reset in @cpu_ns, or -1 and @err when it failed or did not answer.
 * A thread that ended by itself has nothing left: 0, its CPU up to its end.
 */
int consumer_drain(struct consumer *c, uint64_t *cpu_ns, char *err, size_t len);
/*
 * Drain, end and join the thread (bounded: a stuck one is cancelled), free
 * it, *@c = NULL; @cpu_ns as for consumer_drain(). NULL-safe; @cpu_ns and
 * @err may be NULL. 0, or -1 and @err as for consumer_drain().
 */
int consumer_stop(struct consumer **c, uint64_t *cpu_ns, char *err, size_t len);

#endif
