/*
 * Ring-buffer readers for ftrace's /read, /splice and /mmap variants.
 *
 * One consumer thread (consumer.h) per CPU, as trace-cmd record runs one
 * recorder per CPU. Each sleeps in poll(2) on its trace_pipe_raw, which the
 * kernel wakes only once the CPU's buffer is buffer_percent full (50 by
 * default): readers consume in batches, and a buffer too small for the
 * writer to wait that long shows as overrun.
 *
 * The /pipe variant's one thread reads the instance's text trace_pipe, as
 * `cat trace_pipe` does: the kernel formats each event into a line, and a
 * reader of every CPU at once is woken on each event (the kernel ignores
 * buffer_percent there), where trace_pipe_raw's readers wake per half buffer.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/types.h>

#include <kbuffer.h>
#include <tracefs.h>

#include "base/util.h"
#include "tracers/consumer.h"
#include "tracers/ftrace/ftrace_reader.h"

#define PAGE_HDR 16	/* struct buffer_data_page: u64 timestamp, local_t commit */

/*
 * A mapped per-CPU buffer (Linux 6.10+, Documentation/trace/ring-buffer-map.rst):
 * the meta page, then sub-buffer N at meta_page_size + N * subbuf_size.
 * Debian 12's 6.1 headers lack <linux/trace_mmap.h>: its layout, written out.
 */
#if __has_include(<linux/trace_mmap.h>)
#include <linux/trace_mmap.h>
#else
struct trace_buffer_meta {
	__u32 meta_page_size;	/* the sub-buffers start this far in */
	__u32 meta_struct_len;
	__u32 subbuf_size;
	__u32 nr_subbufs;	/* the reader's included */
	struct {
		__u64 lost_events;
		__u32 id;	/* the sub-buffer the reader holds */
		__u32 read;	/* bytes of it the kernel counts as read */
	} reader;
	__u64 flags;
	__u64 entries;		/* records written */
	__u64 overrun;		/* records overwritten */
	__u64 read;		/* records read */
	__u64 Reserved1;
	__u64 Reserved2;
};
#define TRACE_MMAP_IOCTL_GET_READER _IO('R', 0x20)
#endif
_Static_assert(offsetof(struct trace_buffer_meta, read) == 56, "trace_buffer_meta layout");

struct reader {
	struct ftrace_readers *set;
	struct consumer *c;
	int cpu;              /* -1: FTR_PIPE's one reader of every CPU */
	int fd;               /* per_cpu/cpuN/trace_pipe_raw (FTR_PIPE: trace_pipe), O_NONBLOCK */
	int pipefd[2];        /* FTR_SPLICE: the pipe pages move through */
	char *page;           /* FTR_READ and the final flush: one sub-buffer; FTR_PIPE: text */
	struct kbuffer *kbuf; /* FTR_READ, FTR_MMAP: parses the pages */
	int64_t events, pages, bytes;
	struct trace_buffer_meta *meta;	/* FTR_MMAP: the meta page, one page mapped */
	char *data;           /* FTR_MMAP: the sub-buffers, data_len bytes mapped */
	size_t data_len;
	int cur_id;           /* FTR_MMAP: the sub-buffer being parsed, -1: none yet */
	int64_t cur_seen, cur_bytes;	/* its records and bytes already counted */
};

struct ftrace_readers {
	enum ftr_mode mode;
	bool stall;           /* test only: consume nothing until the drain */
	int devnull;
	int subbuf;           /* bytes of one ring-buffer page (sub-buffer) */
	int n;
	struct reader r[];
};

/*
 * Lines of a trace_pipe read that are events: the kernel copies out whole
 * lines only (a line that does not fit waits for the next read, its event
 * not consumed yet), one per event, and a line of its own where it lost
 * some: "CPU:%d [LOST %lu EVENTS]".
 */
static int64_t pipe_events(const char *buf, size_t n)
{
	int64_t lines = 0;

	for (const char *l = buf, *end = buf + n; l < end;) {
		const char *nl = memchr(l, '\n', (size_t)(end - l));
		const char *eol = nl ? nl : end;

		if (!(eol - l >= 4 && !memcmp(l, "CPU:", 4) && memmem(l, (size_t)(eol - l), " [LOST ", 7)))
			lines += nl != NULL;
		l = eol + 1;
	}
	return lines;
}

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
		/*
		 * trace_pipe: text, read until it is empty (EAGAIN), then back to
		 * poll, as cat's next read sleeps; once tracing is off and
		 * something was read, the kernel says end of file instead
		 */
		if (r->set->mode == FTR_PIPE) {
			r->events += pipe_events(r->page, (size_t)n);
			continue;
		}
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

/* Records of the sub-buffer the kernel handed us that we have not counted yet. */
static int parse_subbuf(struct consumer *c, struct reader *r, void *subbuf)
{
	int64_t n = 0;

	/* It loads the commit once: records the writer adds after that wait for the next call. */
	if (kbuffer_load_subbuffer(r->kbuf, subbuf) < 0)
		return consumer_fail(c, "cannot parse sub-buffer %d of cpu %d", r->cur_id, r->cpu);
	for (void *e = kbuffer_read_event(r->kbuf, NULL); e; e = kbuffer_next_event(r->kbuf, NULL))
		n++;
	r->bytes += kbuffer_subbuffer_size(r->kbuf) - r->cur_bytes;
	r->cur_bytes = kbuffer_subbuffer_size(r->kbuf);
	r->events += n - r->cur_seen;
	n -= r->cur_seen;
	r->cur_seen += n;
	return (int)n;
}

/*
 * The reader ioctl hands us one sub-buffer (meta->reader.id) and counts its
 * records as read. While the writer still fills it, each call hands the
 * same one again, with what was added since counted too; only once we have
 * had all of it does the kernel swap in the next full one. Records are
 * parsed in place: no copy, and one syscall per sub-buffer. Reaching the
 * writer's sub-buffer, we go back to poll, unless draining.
 */
static int consume_mmap(struct consumer *c, struct reader *r, bool drain)
{
	for (;;) {
		bool next;
		int id, n;

		if (ioctl(r->fd, TRACE_MMAP_IOCTL_GET_READER) < 0)
			return consumer_fail(c, "ioctl TRACE_MMAP_IOCTL_GET_READER on cpu %d: %s",
					     r->cpu, strerror(errno));
		id = (int)__atomic_load_n(&r->meta->reader.id, __ATOMIC_ACQUIRE);
		if (id < 0 || (uint32_t)id >= r->meta->nr_subbufs)
			return consumer_fail(c, "cpu %d: reader sub-buffer %d of %u", r->cpu, id,
					     r->meta->nr_subbufs);
		next = id != r->cur_id;
		if (next) {
			r->cur_id = id;
			r->cur_seen = r->cur_bytes = 0;
			r->pages++;
		}
		n = parse_subbuf(c, r, r->data + (size_t)id * r->meta->subbuf_size);
		if (n < 0)
			return -1;
		if (!next && (!drain || n == 0))
			return 0;
	}
}

/* A drain comes after tracing_on=0: what is left in the buffer is the end of the run. */
static int reader_work(struct consumer *c, void *arg, struct pollfd *p, bool drain)
{
	struct reader *r = arg;

	if (!drain && r->set->stall) {
		p[0].fd = -1;	/* asleep until the drain, whatever the buffer holds */
		return CONSUMER_MORE;
	}
	if (!drain && !(p[0].revents & POLLIN))
		return p[0].revents & (POLLERR | POLLNVAL) ?
			consumer_fail(c, "poll: %s", strerror(EIO)) : CONSUMER_MORE;
	if (r->set->mode == FTR_SPLICE)
		return consume_splice(c, r, drain);
	if (r->set->mode == FTR_MMAP)
		return consume_mmap(c, r, drain);
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

/*
 * The meta page, then the sub-buffers after it (a mapping must be read-only
 * and shared, or the kernel says EPERM). -1 with errno if it refuses: before
 * 6.10 trace_pipe_raw has no mmap (ENODEV).
 */
static int reader_map(struct reader *r)
{
	void *m = mmap(NULL, (size_t)sysconf(_SC_PAGESIZE), PROT_READ, MAP_SHARED, r->fd, 0);

	if (m == MAP_FAILED)
		return -1;
	r->meta = m;
	r->data_len = (size_t)r->meta->subbuf_size * r->meta->nr_subbufs;
	m = mmap(NULL, r->data_len, PROT_READ, MAP_SHARED, r->fd, r->meta->meta_page_size);
	if (m == MAP_FAILED)
		return -1;
	r->data = m;
	debug("cpu %d: meta page of %u bytes, %u sub-buffers of %u bytes mapped", r->cpu,
	      r->meta->meta_page_size, r->meta->nr_subbufs, r->meta->subbuf_size);
	return 0;
}

/* A mapping pins the instance as an open fd does: rmdir says EBUSY until this. */
static void reader_unmap(struct reader *r)
{
	if (r->data)
		munmap(r->data, r->data_len);
	if (r->meta)
		munmap(r->meta, (size_t)sysconf(_SC_PAGESIZE));
	r->data = NULL;
	r->meta = NULL;
}

static int reader_open(struct tracefs_instance *inst, struct reader *r, char *err, size_t len)
{
	bool mapping = false;
	char file[64], *path;
	int e;

	if (r->set->mode == FTR_PIPE)
		snprintf(file, sizeof(file), "trace_pipe");
	else
		snprintf(file, sizeof(file), "per_cpu/cpu%d/trace_pipe_raw", r->cpu);
	path = tracefs_instance_get_file(inst, file);
	/* Holding this open pins the instance: rmdir says EBUSY until ftr_finish(). */
	r->fd = path ? open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC) : -1;
	tracefs_put_tracing_file(path);
	if (r->fd < 0)
		goto fail;
	if (r->set->mode == FTR_MMAP && reader_map(r)) {
		mapping = true;
		goto fail;
	}
	r->page = r->set->mode == FTR_MMAP ? NULL : malloc((size_t)r->set->subbuf);
	if (r->set->mode != FTR_MMAP && !r->page)
		goto fail;
	if (r->set->mode == FTR_SPLICE) {
		if (pipe2(r->pipefd, O_CLOEXEC))
			goto fail;
		return 0;
	}
	if (r->set->mode == FTR_PIPE)
		return 0;	/* text: counted by lines */
	/* Page headers and record headers are in the kernel's own long size and byte order. */
	r->kbuf = kbuffer_alloc(KBUFFER_LSIZE_SAME_AS_HOST, KBUFFER_ENDIAN_SAME_AS_HOST);
	if (!r->kbuf)
		goto fail;
	return 0;
fail:
	e = errno;
	snprintf(err, len, "cannot %s '%s'%s: %s%s", mapping ? "map" : "open", file,
		 mapping ? "" : " for reading", strerror(e),
		 mapping && e == ENODEV ? " (ring buffers can be mapped since Linux 6.10)" : "");
	return -1;
}

int ftr_mmap_probe(struct tracefs_instance *inst, char *reason, size_t len)
{
	struct reader r = { .cpu = 0, .fd = -1 };
	struct ftrace_readers set = { .mode = FTR_MMAP };
	int rc;

	r.set = &set;
	rc = reader_open(inst, &r, reason, len);
	reader_unmap(&r);
	if (r.kbuf)
		kbuffer_free(r.kbuf);
	if (r.fd >= 0)
		close(r.fd);
	return rc;
}

struct ftrace_readers *ftr_start(struct tracefs_instance *inst, enum ftr_mode mode, bool stall,
				 char *err, size_t len)
{
	long ncpu = mode == FTR_PIPE ? 1 : sysconf(_SC_NPROCESSORS_CONF);
	struct ftrace_readers *s = calloc(1, sizeof(*s) + (size_t)(ncpu > 1 ? ncpu : 1) * sizeof(s->r[0]));

	if (!s) {
		snprintf(err, len, "out of memory");
		return NULL;
	}
	s->mode = mode;
	s->stall = stall;
	s->subbuf = subbuf_size(inst);
	s->devnull = -1;
	if (mode == FTR_SPLICE && (s->devnull = open("/dev/null", O_WRONLY | O_CLOEXEC)) < 0) {
		snprintf(err, len, "cannot open '/dev/null': %s", strerror(errno));
		goto fail;
	}
	for (int cpu = 0; cpu < ncpu; cpu++) {
		struct reader *r = &s->r[s->n++];
		char name[16];

		*r = (struct reader){ .set = s, .cpu = mode == FTR_PIPE ? -1 : cpu, .fd = -1,
				      .pipefd = { -1, -1 }, .cur_id = -1 };
		if (reader_open(inst, r, err, len))
			goto fail;
		if (mode == FTR_PIPE)
			snprintf(name, sizeof(name), "tt-ftrace-pipe");
		else
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
	out->meta_entries = out->meta_overrun = out->meta_read = -1;
	if (!s)
		return 0;
	out->events = s->mode == FTR_SPLICE ? -1 : 0;
	if (s->mode == FTR_MMAP)
		out->meta_entries = out->meta_overrun = out->meta_read = 0;
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
		/* The thread is joined: its last ioctl brought the meta page up to date. */
		if (r->meta) {
			out->meta_entries += (int64_t)r->meta->entries;
			out->meta_overrun += (int64_t)r->meta->overrun;
			out->meta_read += (int64_t)r->meta->read;
		}
		reader_unmap(r);
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
