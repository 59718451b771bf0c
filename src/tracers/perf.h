/* Shared by perf.c (perf:count, the ops) and perf_sample.c (perf:sample). */
#ifndef TRACETAX_TRACERS_PERF_H
#define TRACETAX_TRACERS_PERF_H

#include <linux/perf_event.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct tracer;
struct tt_hits;

/* One CPU's sampling event and its mmap ring. */
struct tt_perf_ring {
	int fd;
	void *base;                       /* metadata page, then the data pages */
	size_t len;
	struct perf_event_mmap_page *meta;
	char *data;
	uint64_t mask;                    /* data size - 1: a power of two */
	bool hup;                         /* its task is gone: stop polling it */
};

struct tt_perf {
	long tp_id;                       /* tracepoint id: attr.config */
	int fd;                           /* perf:count */
	/* perf:sample */
	struct tt_perf_ring *rings;
	int nrings;
	size_t pages;                     /* data pages per ring */
	bool format_lost;                 /* read() reports lost samples (PERF_FORMAT_LOST, 6.0+) */
	int stop_fd;                      /* eventfd: the reader drains and exits */
	struct pollfd *pfd;               /* the reader's: one per ring, then stop_fd */
	pthread_t reader;
	bool reader_on;
	int64_t samples, lost_records;    /* counted by the reader */
	uint64_t reader_ns;               /* its CPU time */
};

int tt_perf_open(struct perf_event_attr *attr, pid_t pid, int cpu);
void tt_perf_attr(struct perf_event_attr *attr, long tp_id);
/* Allocate t->priv, a struct tt_perf, and look up the tracepoint. */
int tt_perf_setup(struct tracer *t);

int tt_perf_sample_setup(struct tracer *t);
int tt_perf_sample_start(struct tracer *t, pid_t pid);
int tt_perf_sample_stop(struct tracer *t, struct tt_hits *out);
void tt_perf_sample_teardown(struct tracer *t);

#endif
