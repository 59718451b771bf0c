/*
 * The consumer side of the BPF tracers' ringbuf variant: one thread that sleeps
 * in poll() on the ring and consumes records as the workload makes them,
 * as a real tool's reader would. Its CPU time is the consumer cost.
 *
 * libbpf's ring_buffer__poll() cannot be woken by anything but records, so
 * the thread polls the ring's epoll fd (nested epoll is pollable) next to
 * an eventfd on which stop() asks for a drain and teardown for an exit.
 * Only this thread ever touches the ring_buffer: libbpf's consumer is not
 * safe to run from two threads at once.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "bpf_util.h"

/* A drain takes microseconds; this only turns a stuck reader into an error. */
#define DRAIN_TIMEOUT_S 10

struct tt_bpf_reader {
	struct ring_buffer *rb;
	pthread_t th;
	int started;
	int wake_fd;		/* eventfd: drain (and exit if quit is set) */
	int quit;
	sem_t drained;
	int sem_ok;
	int64_t records;	/* written by the reader only, read after a drain */
	clockid_t clock;	/* the reader thread's CPU clock */
	int period_ms;		/* -1: woken by records; else consume this often */
	uint64_t cpu0;
};

static int on_record(void *ctx, void *data, size_t size)
{
	struct tt_bpf_reader *r = ctx;

	(void)data;
	(void)size;
	/* Single writer: a plain increment, no locked instruction per record. */
	__atomic_store_n(&r->records, __atomic_load_n(&r->records, __ATOMIC_RELAXED) + 1,
			 __ATOMIC_RELAXED);
	return 0;
}

static void drain(struct tt_bpf_reader *r)
{
	while (ring_buffer__consume(r->rb) > 0)
		;
}

static void *reader_main(void *arg)
{
	struct tt_bpf_reader *r = arg;
	struct pollfd pfd[2] = {
		{ .fd = ring_buffer__epoll_fd(r->rb), .events = POLLIN },
		{ .fd = r->wake_fd, .events = POLLIN },
	};
	uint64_t n;

	for (;;) {
		int ready = poll(pfd, 2, r->period_ms);

		if (ready < 0) {
			if (errno == EINTR)
				continue;
			return NULL;	/* stop() times out and says so */
		}
		/* batch mode: records never wake us, the period does */
		if (pfd[0].revents || (ready == 0 && r->period_ms >= 0))
			ring_buffer__consume(r->rb);
		if (!pfd[1].revents)
			continue;
		if (read(r->wake_fd, &n, sizeof(n)) < 0 && errno != EAGAIN)
			return NULL;
		drain(r);
		if (__atomic_load_n(&r->quit, __ATOMIC_ACQUIRE))
			return NULL;
		sem_post(&r->drained);
	}
}

static uint64_t clock_ns(clockid_t c)
{
	struct timespec ts;

	if (clock_gettime(c, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Signals belong to the runner's main thread, not to a reader asleep in poll(). */
static int spawn(struct tt_bpf_reader *r)
{
	sigset_t all, old;
	int e;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	e = pthread_create(&r->th, NULL, reader_main, r);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (e)
		return e;
	r->started = 1;
	pthread_setname_np(r->th, "tracetax-ring");
	return pthread_getcpuclockid(r->th, &r->clock);
}

struct tt_bpf_reader *tt_bpf_reader_start(int map_fd, int period_ms, char *err, size_t len)
{
	struct tt_bpf_reader *r = calloc(1, sizeof(*r));
	int e;

	if (!r) {
		snprintf(err, len, "cannot allocate ring buffer reader: %s", strerror(ENOMEM));
		return NULL;
	}
	r->period_ms = period_ms;
	r->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (r->wake_fd < 0) {
		snprintf(err, len, "cannot create eventfd: %s", strerror(errno));
		goto fail;
	}
	if (sem_init(&r->drained, 0, 0)) {
		snprintf(err, len, "cannot create semaphore: %s", strerror(errno));
		goto fail;
	}
	r->sem_ok = 1;
	r->rb = ring_buffer__new(map_fd, on_record, r, NULL);
	if (!r->rb) {
		snprintf(err, len, "cannot map BPF ring buffer: %s", strerror(errno));
		goto fail;
	}
	e = spawn(r);
	if (e) {
		snprintf(err, len, "cannot start ring buffer reader thread: %s", strerror(e));
		goto fail;
	}
	return r;
fail:
	tt_bpf_reader_stop(r);
	return NULL;
}

void tt_bpf_reader_reset(struct tt_bpf_reader *r)
{
	/* The previous run was drained and nothing produces now: no race. */
	__atomic_store_n(&r->records, 0, __ATOMIC_RELAXED);
	r->cpu0 = clock_ns(r->clock);
}

int tt_bpf_reader_drain(struct tt_bpf_reader *r, int64_t *records, double *cpu_ns,
			char *err, size_t len)
{
	uint64_t one = 1;
	struct timespec until;

	if (write(r->wake_fd, &one, sizeof(one)) != sizeof(one)) {
		snprintf(err, len, "cannot wake ring buffer reader: %s", strerror(errno));
		return -1;
	}
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += DRAIN_TIMEOUT_S;
	while (sem_timedwait(&r->drained, &until)) {
		if (errno == EINTR)
			continue;
		snprintf(err, len, "ring buffer reader did not drain within %d s: %s",
			 DRAIN_TIMEOUT_S, strerror(errno));
		return -1;
	}
	/* sem_post/sem_wait order the reader's last count before this load. */
	*records = __atomic_load_n(&r->records, __ATOMIC_RELAXED);
	*cpu_ns = (double)(clock_ns(r->clock) - r->cpu0);
	return 0;
}

void tt_bpf_reader_stop(struct tt_bpf_reader *r)
{
	uint64_t one = 1;

	if (!r)
		return;
	if (r->started) {
		__atomic_store_n(&r->quit, 1, __ATOMIC_RELEASE);
		/* A failed eventfd write cannot happen; still, never hang here. */
		if (write(r->wake_fd, &one, sizeof(one)) != sizeof(one))
			pthread_cancel(r->th);
		pthread_join(r->th, NULL);
	}
	ring_buffer__free(r->rb);
	if (r->sem_ok)
		sem_destroy(&r->drained);
	if (r->wake_fd >= 0)
		close(r->wake_fd);
	free(r);
}
