/*
 * The consumer side of the BPF tracers' ringbuf variant: one thread
 * (consumer.h) per cell that sleeps in poll() on the ring and consumes
 * records as the workload makes them, as a real tool's reader would. Its
 * CPU time is the consumer cost.
 *
 * libbpf's ring_buffer__poll() cannot be woken by anything but records, so
 * the thread polls the ring's epoll fd (nested epoll is pollable) next to
 * the consumer's eventfd, on which stop() asks for a drain and teardown
 * for an end. Only this thread ever touches the ring_buffer: libbpf's
 * consumer is not safe to run from two threads at once.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "tracers/bpf/bpf_util.h"
#include "tracers/consumer.h"

struct tt_bpf_reader {
	struct ring_buffer *rb;
	struct consumer *c;
	int64_t records;	/* written by the reader only, read after a drain */
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

/* Woken by records, or (ringbuf-batch) by the period: records never wake it. */
static int reader_work(struct consumer *c, void *arg, struct pollfd *p, bool drain)
{
	struct tt_bpf_reader *r = arg;
	int n;

	(void)p;
	do
		n = ring_buffer__consume(r->rb);
	while (drain && n > 0);
	return n < 0 ? consumer_fail(c, "cannot consume BPF ring buffer: %s", strerror(-n)) : 0;
}

struct tt_bpf_reader *tt_bpf_reader_start(int map_fd, int period_ms, char *err, size_t len)
{
	struct tt_bpf_reader *r = calloc(1, sizeof(*r));

	if (!r) {
		snprintf(err, len, "cannot allocate ring buffer reader: %s", strerror(ENOMEM));
		return NULL;
	}
	r->rb = ring_buffer__new(map_fd, on_record, r, NULL);
	if (!r->rb) {
		snprintf(err, len, "cannot map BPF ring buffer: %s", strerror(errno));
		goto fail;
	}
	r->c = consumer_start(&(struct consumer_conf){
		.name = "tt-bpf-ring", .period_ms = period_ms, .work = reader_work, .arg = r,
		.nfds = 1, .fds = &(struct pollfd){ .fd = ring_buffer__epoll_fd(r->rb),
						    .events = POLLIN } }, err, len);
	if (r->c)
		return r;
fail:
	tt_bpf_reader_stop(r);
	return NULL;
}

void tt_bpf_reader_reset(struct tt_bpf_reader *r)
{
	/* The previous run was drained and nothing produces now: no race. */
	__atomic_store_n(&r->records, 0, __ATOMIC_RELAXED);
	consumer_reset(r->c);
}

int tt_bpf_reader_drain(struct tt_bpf_reader *r, int64_t *records, double *cpu_ns,
			char *err, size_t len)
{
	uint64_t cpu;

	if (consumer_drain(r->c, &cpu, err, len))
		return -1;
	*records = __atomic_load_n(&r->records, __ATOMIC_RELAXED);
	*cpu_ns = (double)cpu;
	return 0;
}

void tt_bpf_reader_stop(struct tt_bpf_reader *r)
{
	if (!r)
		return;
	consumer_stop(&r->c, NULL, NULL, 0);
	ring_buffer__free(r->rb);
	free(r);
}
