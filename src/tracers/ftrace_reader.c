/*
 * Ring-buffer readers for ftrace:syscall/read and ftrace:syscall/splice.
 *
 * One thread per CPU, as trace-cmd record runs one recorder per CPU. Each
 * sleeps in poll(2) on its trace_pipe_raw, which the kernel wakes only once
 * the CPU's buffer is buffer_percent full (50 by default): readers consume
 * in batches, and a buffer too small for the writer to wait that long shows
 * as overrun. An eventfd in every poll set and a 100 ms timeout make sure
 * that a stop request is seen at once and never missed.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <kbuffer.h>
#include <tracefs.h>

#include "../util.h"
#include "ftrace_reader.h"

#define POLL_MS 100
#define PAGE_HDR 16	/* struct buffer_data_page: u64 timestamp, local_t commit */

struct ftrace_readers;

struct reader {
	struct ftrace_readers *set;
	int cpu;
	int fd;               /* per_cpu/cpuN/trace_pipe_raw, O_NONBLOCK */
	int pipefd[2];        /* FTR_SPLICE: the pipe pages move through */
	char *page;           /* FTR_READ and the final flush: one sub-buffer */
	struct kbuffer *kbuf; /* FTR_READ: parses the pages */
	pthread_t th;
	bool running;
	int err;              /* errno of the call that failed, 0 if none */
	const char *failed;   /* that call: "read", "splice", "poll" */
	int64_t events, pages, bytes;
	uint64_t cpu_ns;
};

struct ftrace_readers {
	enum ftr_mode mode;
	int efd;              /* eventfd: readable once stop is requested */
	int devnull;
	int subbuf;           /* bytes of one ring-buffer page (sub-buffer) */
	atomic_bool stop;
	int n;
	struct reader r[];
};

static void reader_fail(struct reader *r, const char *call, int err)
{
	r->failed = call;
	r->err = err;
}

/* The records of one page; padding and time extends are not records. */
static void count_page(struct reader *r)
{
	if (kbuffer_load_subbuffer(r->kbuf, r->page) < 0) {
		reader_fail(r, "parse", EINVAL);
		return;
	}
	for (void *ev = kbuffer_read_event(r->kbuf, NULL); ev; ev = kbuffer_next_event(r->kbuf, NULL))
		r->events++;
}

/*
 * read(2) pages until none is left. The kernel hands out a page the writer
 * is still filling by copying out the records it holds so far; past that
 * point each read would return a few records, so we go back to poll and
 * wait for the buffer to fill, unless draining.
 */
static void consume_read(struct reader *r, bool drain)
{
	int full = (r->set->subbuf - PAGE_HDR) * 3 / 4;

	for (;;) {
		ssize_t n = read(r->fd, r->page, (size_t)r->set->subbuf);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno != EAGAIN)
			reader_fail(r, "read", errno);
		if (n <= 0)
			return;
		r->pages++;
		r->bytes += n;
		if (!r->kbuf)
			continue;	/* splice mode's final flush: stats count these */
		count_page(r);
		if (r->err || (!drain && kbuffer_subbuffer_size(r->kbuf) < full))
			return;
	}
}

/*
 * splice(2) hands over whole pages only: the ring buffer gives its page to
 * the pipe instead of copying it (trace-cmd's zero-copy path). The page the
 * writer still fills stays behind; on the final drain it is read(2) out,
 * as trace-cmd flushes it.
 */
static void consume_splice(struct reader *r, bool drain)
{
	for (;;) {
		ssize_t n = splice(r->fd, NULL, r->pipefd[1], NULL, (size_t)r->set->subbuf,
				   SPLICE_F_MOVE | SPLICE_F_NONBLOCK);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno != EAGAIN)
			reader_fail(r, "splice", errno);
		if (n <= 0)
			break;
		r->pages++;
		r->bytes += n;
		while (n > 0) {
			ssize_t m = splice(r->pipefd[0], NULL, r->set->devnull, NULL, (size_t)n,
					   SPLICE_F_MOVE);

			if (m <= 0) {
				reader_fail(r, "splice to /dev/null", m < 0 ? errno : EIO);
				return;
			}
			n -= m;
		}
	}
	if (drain && !r->err)
		consume_read(r, true);
}

static void consume(struct reader *r, bool drain)
{
	if (r->set->mode == FTR_SPLICE)
		consume_splice(r, drain);
	else
		consume_read(r, drain);
}

static void *reader_main(void *arg)
{
	struct reader *r = arg;
	struct pollfd pfd[2] = {
		{ .fd = r->fd, .events = POLLIN },
		{ .fd = r->set->efd, .events = POLLIN },
	};
	char name[16];

	snprintf(name, sizeof(name), "tt-reader-%d", r->cpu);
	pthread_setname_np(pthread_self(), name);
	while (!atomic_load(&r->set->stop) && !r->err) {
		int n = poll(pfd, 2, POLL_MS);

		if (n < 0 && errno != EINTR)
			reader_fail(r, "poll", errno);
		else if (n > 0 && (pfd[0].revents & POLLIN))
			consume(r, false);
		else if (n > 0 && (pfd[0].revents & (POLLERR | POLLNVAL)))
			reader_fail(r, "poll", EIO);
	}
	/* Tracing is off by now: what is left in the buffer is the end of the run. */
	if (!r->err)
		consume(r, true);
	r->cpu_ns = thread_cpu_ns();
	return NULL;
}

/* Bytes of one ring-buffer page: buffer_subbuf_size_kb (6.8+), else the page size. */
static int subbuf_size(struct tracefs_instance *inst)
{
	char *s = tracefs_instance_file_read(inst, "buffer_subbuf_size_kb", NULL);
	long kb = s ? strtol(s, NULL, 10) : 0;

	free(s);
	return kb > 0 ? (int)kb * 1024 : (int)sysconf(_SC_PAGESIZE);
}

static int reader_open(struct tracefs_instance *inst, struct reader *r, char *err, size_t len)
{
	char file[64], *path;

	r->pipefd[0] = r->pipefd[1] = -1;
	snprintf(file, sizeof(file), "per_cpu/cpu%d/trace_pipe_raw", r->cpu);
	path = tracefs_instance_get_file(inst, file);
	/* Holding this open pins the instance: rmdir says EBUSY until ftr_finish(). */
	r->fd = path ? open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC) : -1;
	tracefs_put_tracing_file(path);
	if (r->fd < 0)
		goto fail;
	r->page = malloc((size_t)r->set->subbuf);
	if (!r->page)
		goto fail;
	if (r->set->mode == FTR_SPLICE) {
		if (pipe2(r->pipefd, O_CLOEXEC))
			goto fail;
		return 0;
	}
	/* Page headers and record headers are in the kernel's own long size and byte order. */
	r->kbuf = kbuffer_alloc(KBUFFER_LSIZE_SAME_AS_HOST, KBUFFER_ENDIAN_SAME_AS_HOST);
	if (!r->kbuf)
		goto fail;
	return 0;
fail:
	snprintf(err, len, "cannot open '%s' for reading: %s", file, strerror(errno));
	return -1;
}

static struct ftrace_readers *readers_alloc(struct tracefs_instance *inst, enum ftr_mode mode)
{
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	struct ftrace_readers *s;

	if (ncpu < 1)
		ncpu = 1;
	s = calloc(1, sizeof(*s) + (size_t)ncpu * sizeof(s->r[0]));
	if (!s)
		return NULL;
	s->mode = mode;
	s->subbuf = subbuf_size(inst);
	s->n = (int)ncpu;
	atomic_init(&s->stop, false);
	s->devnull = s->efd = -1;
	for (int i = 0; i < s->n; i++) {
		s->r[i].set = s;
		s->r[i].cpu = i;
		s->r[i].fd = s->r[i].pipefd[0] = s->r[i].pipefd[1] = -1;
	}
	return s;
}

struct ftrace_readers *ftr_start(struct tracefs_instance *inst, enum ftr_mode mode,
				 char *err, size_t len)
{
	struct ftrace_readers *s = readers_alloc(inst, mode);
	int e;

	if (!s) {
		snprintf(err, len, "out of memory");
		return NULL;
	}
	s->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (s->efd < 0) {
		snprintf(err, len, "cannot create eventfd: %s", strerror(errno));
		goto fail;
	}
	if (mode == FTR_SPLICE && (s->devnull = open("/dev/null", O_WRONLY | O_CLOEXEC)) < 0) {
		snprintf(err, len, "cannot open '/dev/null': %s", strerror(errno));
		goto fail;
	}
	for (int i = 0; i < s->n; i++) {
		struct reader *r = &s->r[i];

		if (reader_open(inst, r, err, len))
			goto fail;
		/* Created by the runner's thread, the reader inherits its blocked signals. */
		e = pthread_create(&r->th, NULL, reader_main, r);
		if (e) {
			snprintf(err, len, "cannot start reader thread for cpu %d: %s", i, strerror(e));
			goto fail;
		}
		r->running = true;
	}
	return s;
fail:
	ftr_finish(&s, &(struct ftr_totals){ 0 }, NULL, 0);
	return NULL;
}

static void reader_close(struct reader *r)
{
	if (r->fd >= 0)
		close(r->fd);
	if (r->pipefd[0] >= 0)
		close(r->pipefd[0]);
	if (r->pipefd[1] >= 0)
		close(r->pipefd[1]);
	if (r->kbuf)
		kbuffer_free(r->kbuf);
	free(r->page);
}

int ftr_finish(struct ftrace_readers **rp, struct ftr_totals *out, char *err, size_t len)
{
	struct ftrace_readers *s = *rp;
	uint64_t one = 1;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	if (!s)
		return 0;
	out->events = s->mode == FTR_READ ? 0 : -1;
	atomic_store(&s->stop, true);
	if (s->efd >= 0 && write(s->efd, &one, sizeof(one)) < 0)
		debug("cannot wake ftrace readers: %s", strerror(errno));	/* the timeout will */
	for (int i = 0; i < s->n; i++) {
		struct reader *r = &s->r[i];

		if (r->running)
			pthread_join(r->th, NULL);
		if (r->err && !ret && err) {
			snprintf(err, len, "reader of cpu %d failed: %s: %s", r->cpu, r->failed,
				 strerror(r->err));
			ret = -1;
		}
		if (out->events >= 0)
			out->events += r->events;
		out->pages += r->pages;
		out->bytes += r->bytes;
		out->cpu_ns += r->cpu_ns;
		reader_close(r);
	}
	if (s->efd >= 0)
		close(s->efd);
	if (s->devnull >= 0)
		close(s->devnull);
	free(s);
	*rp = NULL;
	return ret;
}
