/*
 * perf:sample: every tracepoint hit becomes a PERF_RECORD_SAMPLE in an mmap
 * ring, one ring per CPU as `perf record` opens them (a per-task ring cannot
 * follow inherited threads), consumed by a reader thread (consumer.h) while
 * the workload runs. The reader's CPU time is the consumer cost.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tracers/tracer.h"
#include "base/util.h"
#include "tracers/consumer.h"
#include "tracers/perf/perf.h"

#define PAGES_ENV "TRACETAX_PERF_PAGES"
#define RING_CAP_BYTES (64ul << 20)	/* per CPU */
/* Wake the reader every few samples: the wake-ups are part of what a consumed ring costs. */
#define WAKEUP_EVENTS 32
#define SAMPLE_BYTES 24			/* header + pid/tid + time */

static const struct tt_perf_sampling sampling = {
	.period = 1,
	.type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME,
};

/* One CPU's sampling event and its mmap ring. */
struct ring {
	int fd;
	void *base;                       /* metadata page, then the data pages */
	size_t len;
	struct perf_event_mmap_page *meta;
	char *data;
	uint64_t mask;                    /* data size - 1: a power of two */
};

struct sample {
	long tp_id;
	size_t pages;                     /* data pages per ring */
	bool format_lost;                 /* read() reports lost samples (PERF_FORMAT_LOST, 6.0+) */
	struct ring *rings;
	struct pollfd *pfd;               /* the reader's: one per ring */
	int nrings;
	struct consumer *reader;
	int64_t samples, lost_records;    /* counted by the reader */
};

static size_t pow2_floor(size_t n)
{
	size_t p = 1;

	while (p <= n / 2)
		p <<= 1;
	return p;
}

/*
 * Each CPU's ring may have to take every event of a run (all threads on one
 * CPU and a reader that falls behind), up to a cap: past it the reader must
 * keep up, and the lost samples say when it does not. Without CAP_IPC_LOCK
 * the kernel limits all our rings to perf_event_mlock_kb per CPU.
 */
static int ring_pages(struct tracer *t, size_t *pages)
{
	const char *env = getenv(PAGES_ENV);
	size_t psz = (size_t)sysconf(_SC_PAGESIZE), need;
	char buf[32];
	int64_t v;

	if (env) {
		if (parse_i64(env, 1, 1 << 20, &v) || (v & (v - 1)))
			return tracer_error(t, "invalid %s '%s' (want a power of two)", PAGES_ENV, env);
		*pages = (size_t)v;
		return 0;
	}
	need = (size_t)(t->events_hint > 0 ? t->events_hint : 1) * SAMPLE_BYTES / psz + 1;
	*pages = pow2_floor(need);
	if (*pages < need)
		*pages <<= 1;
	if (*pages > RING_CAP_BYTES / psz)
		*pages = RING_CAP_BYTES / psz;
	if (geteuid() && !read_file_str("/proc/sys/kernel/perf_event_mlock_kb", buf, sizeof(buf)) &&
	    !parse_i64(buf, 8, INT32_MAX, &v) && *pages > pow2_floor((size_t)v * 1024 / psz - 1))
		*pages = pow2_floor((size_t)v * 1024 / psz - 1);
	debug("%s: %zu pages per cpu ring", t->name, *pages);
	return 0;
}

static int sample_setup(struct tracer *t)
{
	struct sample *p = calloc(1, sizeof(*p));

	if (!p)
		return tracer_error(t, "out of memory");
	t->priv = p;
	if (tt_perf_tp(t, &p->tp_id))
		return TT_FAIL;
	return ring_pages(t, &p->pages) ? TT_FAIL : TT_OK;
}

static void ring_copy(const struct ring *r, uint64_t pos, void *dst, size_t len)
{
	size_t off = pos & r->mask, first = r->mask + 1 - off;

	if (first > len)
		first = len;
	memcpy(dst, r->data + off, first);
	memcpy((char *)dst + first, r->data, len - first);
}

static void ring_drain(struct sample *p, struct ring *r)
{
	/* Acquire pairs with the kernel's store of data_head after the records. */
	uint64_t head = __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = r->meta->data_tail;
	struct { struct perf_event_header h; uint64_t id, lost; } rec;

	while (tail < head) {
		ring_copy(r, tail, &rec.h, sizeof(rec.h));
		if (rec.h.size < sizeof(rec.h))
			break;	/* cannot happen; never spin on it */
		if (rec.h.type == PERF_RECORD_SAMPLE) {
			p->samples++;
		} else if (rec.h.type == PERF_RECORD_LOST) {
			ring_copy(r, tail, &rec, sizeof(rec));
			p->lost_records += (int64_t)rec.lost;
		}
		tail += rec.h.size;
	}
	/* Release: our reads of the records are done before the kernel may reuse them. */
	__atomic_store_n(&r->meta->data_tail, tail, __ATOMIC_RELEASE);
}

/* Every ring at each wake-up: the wake-up came from one, the others may be full too. */
static int reader_work(struct consumer *c, void *arg, struct pollfd *pfd, bool drain)
{
	struct sample *p = arg;

	(void)c;
	(void)drain;
	for (int i = 0; i < p->nrings; i++) {
		/* An event whose task exited polls HUP forever: stop asking it. */
		if (pfd[i].revents & (POLLHUP | POLLERR))
			pfd[i].fd = -1;
		ring_drain(p, &p->rings[i]);
	}
	return CONSUMER_MORE;
}

static int ring_open(struct tracer *t, struct ring *r, pid_t pid, int cpu)
{
	struct sample *p = t->priv;
	struct perf_event_attr attr;
	size_t psz = (size_t)sysconf(_SC_PAGESIZE);

	tt_perf_attr(&attr, p->tp_id, &sampling);
	attr.wakeup_events = WAKEUP_EVENTS;
	attr.read_format = p->format_lost ? PERF_FORMAT_LOST : 0;
	r->fd = tt_perf_open(&attr, pid, cpu);
	if (r->fd < 0 && errno == EINVAL && p->format_lost) {
		p->format_lost = false;	/* before 6.0: count the PERF_RECORD_LOST records */
		return ring_open(t, r, pid, cpu);
	}
	if (r->fd < 0)
		return errno == ENODEV ? 1 : tracer_error(t, "cannot open perf event on "
			"'%s:%s' for pid %d cpu %d: %s", t->tp_system, t->tp_event, (int)pid, cpu, strerror(errno));
	r->len = (p->pages + 1) * psz;
	r->base = mmap(NULL, r->len, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd, 0);
	if (r->base == MAP_FAILED) {
		r->base = NULL;
		close(r->fd);
		r->fd = -1;
		return tracer_error(t, "cannot map %zu pages of perf ring for cpu %d: %s",
				    p->pages, cpu, strerror(errno));
	}
	r->meta = r->base;
	r->data = (char *)r->base + psz;
	r->mask = p->pages * psz - 1;
	return 0;
}

/* Events are disabled first, so the reader's last drain sees every record. */
static int reader_stop(struct sample *p, uint64_t *cpu_ns, char *err, size_t len)
{
	for (int i = 0; i < p->nrings; i++)
		ioctl(p->rings[i].fd, PERF_EVENT_IOC_DISABLE, 0);
	return consumer_stop(&p->reader, cpu_ns, err, len);
}

static void rings_close(struct sample *p)
{
	reader_stop(p, NULL, NULL, 0);
	for (int i = 0; i < p->nrings; i++) {
		if (p->rings[i].base)
			munmap(p->rings[i].base, p->rings[i].len);
		if (p->rings[i].fd >= 0)
			close(p->rings[i].fd);
	}
	free(p->rings);
	free(p->pfd);
	p->rings = NULL;
	p->pfd = NULL;
	p->nrings = 0;
}

static int sample_start(struct tracer *t, pid_t pid)
{
	struct sample *p = t->priv;
	int ncpu = (int)sysconf(_SC_NPROCESSORS_CONF), ret;

	rings_close(p);		/* the last run failed before stop() */
	p->rings = calloc((size_t)ncpu, sizeof(*p->rings));
	p->pfd = calloc((size_t)ncpu, sizeof(*p->pfd));
	if (!p->rings || !p->pfd)
		return tracer_error(t, "out of memory");
	p->samples = p->lost_records = 0;
	p->format_lost = true;
	for (int cpu = 0; cpu < ncpu; cpu++) {
		struct ring *r = &p->rings[p->nrings];

		r->fd = -1;
		ret = ring_open(t, r, pid, cpu);
		if (ret < 0)
			return TT_FAIL;
		if (ret == 0)	/* ret 1: CPU offline */
			p->pfd[p->nrings++] = (struct pollfd){ .fd = r->fd, .events = POLLIN };
	}
	p->reader = consumer_start(&(struct consumer_conf){
		.name = "tt-perf", .period_ms = -1, .fds = p->pfd, .nfds = p->nrings,
		.work = reader_work, .arg = p }, t->err, sizeof(t->err));
	if (!p->reader)
		return TT_FAIL;
	for (int i = 0; i < p->nrings; i++)
		if (ioctl(p->rings[i].fd, PERF_EVENT_IOC_ENABLE, 0))
			return tracer_error(t, "cannot enable perf event: %s", strerror(errno));
	return TT_OK;
}

/*
 * hits are the samples the tracepoint produced: those consumed plus those
 * lost for want of room. The kernel emits a PERF_RECORD_LOST only once room
 * frees up again, so a ring still full at the end hides some; the lost count
 * read() gives (PERF_FORMAT_LOST) has them all. The event's own count must
 * agree with samples + lost: a mismatch means a record we misread (or, before
 * 6.0, lost samples no record told of), and fails the run.
 */
static int sample_stop(struct tracer *t, struct tt_hits *out)
{
	struct sample *p = t->priv;
	int64_t count = 0, lost = 0;
	uint64_t v[2], cpu;

	if (reader_stop(p, &cpu, t->err, sizeof(t->err)))
		return TT_FAIL;
	for (int i = 0; i < p->nrings; i++) {
		size_t want = p->format_lost ? sizeof(v) : sizeof(v[0]);

		if (read(p->rings[i].fd, v, want) != (ssize_t)want)
			return tracer_error(t, "cannot read perf event of cpu ring %d: %s", i, strerror(errno));
		count += (int64_t)v[0];
		lost += p->format_lost ? (int64_t)v[1] : 0;
	}
	if (!p->format_lost)
		lost = p->lost_records;
	out->hits = p->samples + lost;
	out->lost = lost;
	out->consumer_ns = (double)cpu;
	debug("%s: count %ld samples %ld lost %ld (records say %ld)", t->name,
	      count, p->samples, lost, p->lost_records);
	rings_close(p);
	if (count != out->hits)
		return tracer_error(t, "event count %ld != samples %ld + lost %ld",
				    count, p->samples, lost);
	return TT_OK;
}

static void sample_teardown(struct tracer *t)
{
	struct sample *p = t->priv;

	if (!p)
		return;
	rings_close(p);
	free(p);
	t->priv = NULL;
}

const struct tracer_ops tracer_perf_sample = {
	.name = "perf:sample",
	.hooks = TT_HOOK_SYSCALL | TT_HOOK_TRACEPOINT,
	.summary = "perf_event_open on the syscall tracepoint, each event sampled "
		   "into per-CPU mmap rings and consumed",
	.data = &sampling,
	.supported = tt_perf_supported,
	.setup = sample_setup,
	.start = sample_start,
	.stop = sample_stop,
	.teardown = sample_teardown,
};
