/*
 * A consumer thread: a reader or supervisor a tracer runs beside the
 * workload (ftrace, perf:sample and BPF ring-buffer readers, the
 * seccomp:notify supervisor). This module owns its life: signals blocked,
 * name, placement, requests to drain or end, bounded waits, join, CPU
 * time. The tracer keeps what to poll and what to consume: its work().
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
enum { CONSUMER_MORE = 0, CONSUMER_END = 1 /* the source is gone (POLLHUP) */ };

struct consumer_conf {
	const char *name;	/* thread name (15 bytes kept), subject of messages */
	const struct tracer *placed;	/* placed by tracer_place_self(); NULL: not */
	int period_ms;		/* poll timeout: work() runs at least this often; -1: none */
	const struct pollfd *fds;	/* the consumer's own, copied */
	int nfds;
	/*
	 * In the thread, after each poll (@fds hold the revents, none on a
	 * timeout; it may set an fd to -1 to stop polling it) and once for each
	 * request (@drain: the producers are done, consume all there is).
	 */
	int (*work)(struct consumer *c, void *arg, struct pollfd *fds, bool drain);
	void *arg;
};

/* Start the thread, every signal blocked (they are the signal thread's). NULL and @err if not. */
struct consumer *consumer_start(const struct consumer_conf *conf, char *err, size_t len);
/* In work(): the thread ends, failed, for this reason (the first is kept). Returns -1. */
int consumer_fail(struct consumer *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Before a run of a thread that outlives it: CPU time counts from here, not from the start. */
void consumer_reset(struct consumer *c);
/*
 * Ask for a drain, wait for it (bounded): 0 and the thread's CPU ns since
 * start or reset, or -1 and @err (NULL: none) if it failed or did not
 * answer. A thread that ended by itself has nothing left: 0, its CPU to its end.
 */
int consumer_drain(struct consumer *c, uint64_t *cpu_ns, char *err, size_t len);
/* Drain, end and join (a stuck thread is cancelled), free, *@c = NULL; NULL-safe. As drain. */
int consumer_stop(struct consumer **c, uint64_t *cpu_ns, char *err, size_t len);

#endif
