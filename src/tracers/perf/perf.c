/*
 * perf:count: the syscall tracepoint (or the one --target names) through
 * perf_event_open, counting only; and what perf:sample (perf_sample.c) shares with it.
 *
 * Both follow the workload with inherit = 1: its threads are created after
 * start(), and inherited events fold their counts into the parent event when
 * a thread exits, so one read() after the run sees every thread.
 *
 * Pitfall: a BPF program attached to the same tracepoint through perf (any
 * bpf:tp-style tool, on the whole machine) acts as a filter for it: when the
 * program returns 0 the kernel records nothing for *any* perf event there
 * (perf_syscall_enter), so counts fall to 0 while it is attached. Such a run
 * shows as hits < events, which is why hits are never taken on trust.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/tracefs_util.h"
#include "tracers/tracer.h"
#include "base/util.h"
#include "tracers/perf/perf.h"

int tt_perf_open(struct perf_event_attr *attr, pid_t pid, int cpu)
{
	return (int)syscall(SYS_perf_event_open, attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

void tt_perf_attr(struct perf_event_attr *attr, long tp_id, const struct tt_perf_sampling *s)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = PERF_TYPE_TRACEPOINT;
	attr->config = (uint64_t)tp_id;
	attr->disabled = 1;	/* enabled in start(), once everything is in place */
	attr->inherit = 1;
	if (s) {
		attr->sample_period = s->period;
		attr->sample_type = s->type;
	}
}

static long target_id(const struct tracer *t)
{
	return tt_tracefs_event_id(t->tp_system, t->tp_event);
}

/* The real thing: open the tracepoint on ourselves, as start() will on the workload. */
int tt_perf_supported(const struct tracer *t, char *reason, size_t len)
{
	struct perf_event_attr attr;
	long id = target_id(t);
	char paranoid[32] = "";
	int fd, err;

	if (id < 0) {
		snprintf(reason, len, "cannot read id of tracepoint '%s:%s': %s",
			 t->tp_system, t->tp_event, strerror(errno));
		return TT_SKIP;
	}
	tt_perf_attr(&attr, id, t->ops->data);
	fd = tt_perf_open(&attr, 0, -1);
	if (fd >= 0) {
		close(fd);
		return TT_OK;
	}
	err = errno;
	if ((err == EACCES || err == EPERM) &&
	    !read_file_str("/proc/sys/kernel/perf_event_paranoid", paranoid, sizeof(paranoid)))
		snprintf(reason, len, "perf_event_open of tracepoint '%s:%s' failed: %s "
			 "(perf_event_paranoid is %s)", t->tp_system, t->tp_event, strerror(err), paranoid);
	else
		snprintf(reason, len, "perf_event_open of tracepoint '%s:%s' failed: %s",
			 t->tp_system, t->tp_event, strerror(err));
	return TT_SKIP;
}

int tt_perf_tp(struct tracer *t, long *id)
{
	*id = target_id(t);
	if (*id < 0)
		return tracer_error(t, "cannot read id of tracepoint '%s:%s': %s",
				    t->tp_system, t->tp_event, strerror(errno));
	return TT_OK;
}

struct count {
	long tp_id;
	int fd;
};

static int count_setup(struct tracer *t)
{
	struct count *p = calloc(1, sizeof(*p));

	if (!p)
		return tracer_error(t, "out of memory");
	t->priv = p;
	p->fd = -1;
	return tt_perf_tp(t, &p->tp_id);
}

static int count_start(struct tracer *t, pid_t pid)
{
	struct count *p = t->priv;
	struct perf_event_attr attr;

	if (p->fd >= 0)
		close(p->fd);	/* the last run failed before stop() */
	tt_perf_attr(&attr, p->tp_id, NULL);
	p->fd = tt_perf_open(&attr, pid, -1);
	if (p->fd < 0)
		return tracer_error(t, "cannot open perf event on '%s:%s' for pid %d: %s",
				    t->tp_system, t->tp_event, (int)pid, strerror(errno));
	if (ioctl(p->fd, PERF_EVENT_IOC_ENABLE, 0))
		return tracer_error(t, "cannot enable perf event: %s", strerror(errno));
	return 0;
}

/*
 * The workload has exited: its threads' inherited counters were added to
 * this event as each thread exited, and the event keeps its count after its
 * own task is gone.
 */
static int count_stop(struct tracer *t, struct tt_hits *out)
{
	struct count *p = t->priv;
	uint64_t count;
	ssize_t n;

	if (p->fd < 0)
		return tracer_error(t, "perf counter is not open");
	ioctl(p->fd, PERF_EVENT_IOC_DISABLE, 0);
	n = read(p->fd, &count, sizeof(count));
	if (n != sizeof(count))
		return tracer_error(t, "cannot read perf counter: %s",
				    n < 0 ? strerror(errno) : "short read");
	close(p->fd);
	p->fd = -1;
	out->hits = (int64_t)count;
	out->lost = 0;
	out->consumer_ns = 0;
	return 0;
}

static void count_teardown(struct tracer *t)
{
	struct count *p = t->priv;

	if (!p)
		return;
	if (p->fd >= 0)
		close(p->fd);
	free(p);
	t->priv = NULL;
}

const struct tracer_ops tracer_perf_count = {
	.name = "perf:count",
	.hooks = TT_HOOK_SYSCALL | TT_HOOK_TRACEPOINT,
	.summary = "perf_event_open on the syscall tracepoint (or --target SYSTEM:EVENT), counting only",
	.supported = tt_perf_supported,
	.setup = count_setup,
	.start = count_start,
	.stop = count_stop,
	.teardown = count_teardown,
};
