/*
 * perf:sample: every tracepoint hit becomes a PERF_RECORD_SAMPLE in an mmap
 * ring, one ring per CPU as `perf record` opens them (a per-task ring cannot
 * follow inherited threads), consumed by a reader thread while the workload
 * runs. The reader's CPU time is the consumer cost.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../tracer.h"
#include "../util.h"
#include "perf.h"

#define PAGES_ENV "TRACETAX_PERF_PAGES"
#define RING_CAP_BYTES (64ul << 20)	/* per CPU */
/* Wake the reader every few samples: the wake-ups are part of what a consumed ring costs. */
#define WAKEUP_EVENTS 32
#define SAMPLE_BYTES 24			/* header + pid/tid + time */

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

int tt_perf_sample_setup(struct tracer *t)
{
	int ret = tt_perf_setup(t);

	if (ret)
		return ret;
	return ring_pages(t, &((struct tt_perf *)t->priv)->pages) ? TT_FAIL : TT_OK;
}

static void ring_copy(const struct tt_perf_ring *r, uint64_t pos, void *dst, size_t len)
{
	size_t off = pos & r->mask, first = r->mask + 1 - off;

	if (first > len)
		first = len;
	memcpy(dst, r->data + off, first);
	memcpy((char *)dst + first, r->data, len - first);
}

static void ring_drain(struct tt_perf *p, struct tt_perf_ring *r)
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

static void *reader_main(void *arg)
{
	struct tt_perf *p = arg;
	int n = p->nrings;
	bool done = false;

	while (!done) {
		for (int i = 0; i < n; i++) {
			/* An event whose task exited polls HUP forever: stop asking it. */
			p->pfd[i].fd = p->rings[i].hup ? -1 : p->rings[i].fd;
			p->pfd[i].events = POLLIN;
		}
		p->pfd[n].fd = p->stop_fd;
		p->pfd[n].events = POLLIN;
		if (poll(p->pfd, (nfds_t)n + 1, -1) < 0 && errno != EINTR)
			break;
		for (int i = 0; i < n; i++)
			if (p->pfd[i].revents & (POLLHUP | POLLERR))
				p->rings[i].hup = true;
		done = p->pfd[n].revents & POLLIN;
		for (int i = 0; i < n; i++)
			ring_drain(p, &p->rings[i]);
	}
	for (int i = 0; i < n; i++)	/* poll failed: still count what is there */
		ring_drain(p, &p->rings[i]);
	p->reader_ns = thread_cpu_ns();
	return NULL;
}

static int ring_open(struct tracer *t, struct tt_perf_ring *r, pid_t pid, int cpu)
{
	struct tt_perf *p = t->priv;
	struct perf_event_attr attr;
	size_t psz = (size_t)sysconf(_SC_PAGESIZE);

	tt_perf_attr(&attr, p->tp_id);
	attr.sample_period = 1;
	attr.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	attr.wakeup_events = WAKEUP_EVENTS;
	attr.read_format = p->format_lost ? PERF_FORMAT_LOST : 0;
	r->fd = tt_perf_open(&attr, pid, cpu);
	if (r->fd < 0 && errno == EINVAL && p->format_lost) {
		p->format_lost = false;	/* before 6.0: count the PERF_RECORD_LOST records */
		return ring_open(t, r, pid, cpu);
	}
	if (r->fd < 0)
		return errno == ENODEV ? 1 : tracer_error(t, "cannot open perf event on "
			"'syscalls:%s' for pid %d cpu %d: %s", t->target->event, (int)pid, cpu, strerror(errno));
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

static void rings_close(struct tt_perf *p)
{
	if (!p->rings)
		return;
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
	if (p->stop_fd >= 0)
		close(p->stop_fd);
	p->stop_fd = -1;
}

/* Events are disabled first, so the reader's last drain sees every record. */
static void reader_stop(struct tt_perf *p)
{
	uint64_t one = 1;

	for (int i = 0; i < p->nrings; i++)
		ioctl(p->rings[i].fd, PERF_EVENT_IOC_DISABLE, 0);
	if (!p->reader_on)
		return;
	if (write(p->stop_fd, &one, sizeof(one)) != sizeof(one))
		BUG("cannot write to eventfd");
	pthread_join(p->reader, NULL);
	p->reader_on = false;
}

int tt_perf_sample_start(struct tracer *t, pid_t pid)
{
	struct tt_perf *p = t->priv;
	int ncpu = (int)sysconf(_SC_NPROCESSORS_CONF), ret;
	sigset_t all, old;

	reader_stop(p);		/* the last run failed before stop() */
	rings_close(p);
	p->rings = calloc((size_t)ncpu, sizeof(*p->rings));
	p->pfd = calloc((size_t)ncpu + 1, sizeof(*p->pfd));
	if (!p->rings || !p->pfd)
		return tracer_error(t, "out of memory");
	p->samples = p->lost_records = 0;
	p->format_lost = true;
	for (int cpu = 0; cpu < ncpu; cpu++) {
		struct tt_perf_ring *r = &p->rings[p->nrings];

		r->fd = -1;
		ret = ring_open(t, r, pid, cpu);
		if (ret < 0)
			return TT_FAIL;
		if (ret == 0)
			p->nrings++;	/* ret 1: CPU offline */
	}
	p->stop_fd = eventfd(0, EFD_CLOEXEC);
	if (p->stop_fd < 0)
		return tracer_error(t, "cannot create eventfd: %s", strerror(errno));
	/* Signals belong to the runner's signal thread, never to our reader. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	errno = pthread_create(&p->reader, NULL, reader_main, p);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (errno)
		return tracer_error(t, "cannot start perf reader thread: %s", strerror(errno));
	p->reader_on = true;
	for (int i = 0; i < p->nrings; i++)
		if (ioctl(p->rings[i].fd, PERF_EVENT_IOC_ENABLE, 0))
			return tracer_error(t, "cannot enable perf event: %s", strerror(errno));
	return 0;
}

/*
 * hits are the samples the tracepoint produced: those consumed plus those
 * lost for want of room. The kernel emits a PERF_RECORD_LOST only once room
 * frees up again, so a ring still full at the end hides some; the lost count
 * read() gives (PERF_FORMAT_LOST) has them all. The event's own count must
 * agree with samples + lost: a mismatch means a record we misread.
 */
int tt_perf_sample_stop(struct tracer *t, struct tt_hits *out)
{
	struct tt_perf *p = t->priv;
	int64_t count = 0, lost = 0;
	uint64_t v[2];

	reader_stop(p);
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
	out->consumer_ns = (double)p->reader_ns;
	debug("%s: count %ld samples %ld lost %ld (records say %ld)", t->name,
	      count, p->samples, lost, p->lost_records);
	if (count != out->hits)
		warning("tracer '%s': event count %ld != samples %ld + lost %ld", t->name,
			count, p->samples, lost);
	rings_close(p);
	return 0;
}

void tt_perf_sample_teardown(struct tracer *t)
{
	struct tt_perf *p = t->priv;

	if (!p)
		return;
	reader_stop(p);
	rings_close(p);
	free(p);
	t->priv = NULL;
}
