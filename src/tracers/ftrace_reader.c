/*
 * Ring-buffer readers for ftrace:syscall/read and ftrace:syscall/splice.
 *
 * One consumer thread (consumer.h) per CPU, as trace-cmd record runs one
 * recorder per CPU. Each sleeps in poll(2) on its trace_pipe_raw, which the
 * kernel wakes only once the CPU's buffer is buffer_percent full (50 by
 * default): readers consume in batches, and a buffer too small for the
 * writer to wait that long shows as overrun.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <kbuffer.h>
#include <tracefs.h>

#include "consumer.h"
#include "ftrace_reader.h"

#define PAGE_HDR 16	/* struct buffer_data_page: u64 timestamp, local_t commit */

struct reader {
	struct ftrace_readers *set;
	struct consumer *c;
	int cpu;
	int fd;               /* per_cpu/cpuN/trace_pipe_raw, O_NONBLOCK */
	int pipefd[2];        /* FTR_SPLICE: the pipe pages move through */
	char *page;           /* FTR_READ and the final flush: one sub-buffer */
	struct kbuffer *kbuf; /* FTR_READ: parses the pages */
	int64_t events, pages, bytes;
};

struct ftrace_readers {
	enum ftr_mode mode;
	int devnull;
	int subbuf;           /* bytes of one ring-buffer page (sub-buffer) */
	int n;
	struct reader r[];
};

/*
 * read(2) pages until none is left. The kernel hands out a page the writer
 * is still filling by copying out the records it holds so far; past that
 * point each read would return a few records, so we go back to poll and
 * wait for the buffer to fill, unless draining.
 */
static int consume_read(struct consumer *c, struct reader *r, bool drain)
{
	int full = (r->set->subbuf - PAGE_HDR) * 3 / 4;

	for (;;) {
		ssize_t n = read(r->fd, r->page, (size_t)r->set->subbuf);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno != EAGAIN)
			return consumer_fail(c, "read: %s", strerror(errno));
		if (n <= 0)
			return 0;
		r->pages++;
		r->bytes += n;
		if (!r->kbuf)
			continue;	/* splice mode's final flush: stats count these */
		if (kbuffer_load_subbuffer(r->kbuf, r->page) < 0)
			return consumer_fail(c, "cannot parse a page of cpu %d", r->cpu);
		/* Padding and time extends are not records. */
		for (void *e = kbuffer_read_event(r->kbuf, NULL); e; e = kbuffer_next_event(r->kbuf, NULL))
			r->events++;
		if (!drain && kbuffer_subbuffer_size(r->kbuf) < full)
			return 0;
	}
}

/*
 * splice(2) hands over whole pages only: the ring buffer gives its page to
 * the pipe instead of copying it (trace-cmd's zero-copy path). The page the
 * writer still fills stays behind; on the final drain it is read(2) out,
 * as trace-cmd flushes it.
 */
static int consume_splice(struct consumer *c, struct reader *r, bool drain)
{
	for (;;) {
		ssize_t n = splice(r->fd, NULL, r->pipefd[1], NULL, (size_t)r->set->subbuf,
				   SPLICE_F_MOVE | SPLICE_F_NONBLOCK);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno != EAGAIN)
			return consumer_fail(c, "splice: %s", strerror(errno));
		if (n <= 0)
			break;
		r->pages++;
		r->bytes += n;
		while (n > 0) {
			ssize_t m = splice(r->pipefd[0], NULL, r->set->devnull, NULL, (size_t)n,
					   SPLICE_F_MOVE);

			if (m <= 0)
				return consumer_fail(c, "splice to /dev/null: %s",
						     strerror(m < 0 ? errno : EIO));
			n -= m;
		}
	}
	return drain ? consume_read(c, r, true) : 0;
}

/* A drain comes after tracing_on=0: what is left in the buffer is the end of the run. */
static int reader_work(struct consumer *c, void *arg, struct pollfd *p, bool drain)
{
	struct reader *r = arg;

	if (!drain && !(p[0].revents & POLLIN))
		return p[0].revents & (POLLERR | POLLNVAL) ?
			consumer_fail(c, "poll: %s", strerror(EIO)) : CONSUMER_MORE;
	if (r->set->mode == FTR_SPLICE)
		return consume_splice(c, r, drain);
	return consume_read(c, r, drain);
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

struct ftrace_readers *ftr_start(struct tracefs_instance *inst, enum ftr_mode mode,
				 char *err, size_t len)
{
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	struct ftrace_readers *s = calloc(1, sizeof(*s) + (size_t)(ncpu > 1 ? ncpu : 1) * sizeof(s->r[0]));

	if (!s) {
		snprintf(err, len, "out of memory");
		return NULL;
	}
	s->mode = mode;
	s->subbuf = subbuf_size(inst);
	s->devnull = -1;
	if (mode == FTR_SPLICE && (s->devnull = open("/dev/null", O_WRONLY | O_CLOEXEC)) < 0) {
		snprintf(err, len, "cannot open '/dev/null': %s", strerror(errno));
		goto fail;
	}
	for (int cpu = 0; cpu < ncpu; cpu++) {
		struct reader *r = &s->r[s->n++];
		char name[16];

		*r = (struct reader){ .set = s, .cpu = cpu, .fd = -1, .pipefd = { -1, -1 } };
		if (reader_open(inst, r, err, len))
			goto fail;
		snprintf(name, sizeof(name), "tt-ftrace-%d", cpu);
		r->c = consumer_start(&(struct consumer_conf){
			.name = name, .period_ms = -1, .work = reader_work, .arg = r, .nfds = 1,
			.fds = &(struct pollfd){ .fd = r->fd, .events = POLLIN } }, err, len);
		if (!r->c)
			goto fail;
	}
	return s;
fail:
	ftr_finish(&s, &(struct ftr_totals){ 0 }, NULL, 0);
	return NULL;
}

int ftr_finish(struct ftrace_readers **rp, struct ftr_totals *out, char *err, size_t len)
{
	struct ftrace_readers *s = *rp;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	if (!s)
		return 0;
	out->events = s->mode == FTR_READ ? 0 : -1;
	for (struct reader *r = s->r; r < s->r + s->n; r++) {
		uint64_t cpu;

		/* The first failure is the one reported; every thread is joined. */
		if (consumer_stop(&r->c, &cpu, ret ? NULL : err, len))
			ret = -1;
		if (out->events >= 0)
			out->events += r->events;
		out->pages += r->pages;
		out->bytes += r->bytes;
		out->cpu_ns += cpu;
		if (r->fd >= 0)
			close(r->fd);
		for (int i = 0; i < 2; i++)
			if (r->pipefd[i] >= 0)
				close(r->pipefd[i]);
		if (r->kbuf)
			kbuffer_free(r->kbuf);
		free(r->page);
	}
	if (s->devnull >= 0)
		close(s->devnull);
	free(s);
	*rp = NULL;
	return ret;
}
