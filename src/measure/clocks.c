/*
 * `tracetax clocks`: every clock a measurement could use, read a million
 * times each. A loop of plain reads gives the mean cost (and whether the
 * clock ever went back, and its smallest step); reads timed one by one
 * with the --latency timer (timer.h), its own cost taken off, give the
 * p99. Whether the vDSO serves a clock is asked of the kernel, not
 * guessed from the cost: a child that seccomp forbids the time syscalls
 * reads each clock once, and a read that fails made a syscall.
 */
#include <errno.h>
#include <linux/seccomp.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "base/cpuinfo.h"
#include "measure/clocks.h"
#include "base/hist.h"
#include "results/results.h"
#include "base/timer.h"
#include "base/seccomp_filter.h"
#include "base/util.h"

enum kind { K_GETTIME, K_GETTIMEOFDAY, K_TIME, K_RDTSC, K_RDTSCP, K_TIMER };

static const struct def {
	const char *name;
	enum kind kind;
	clockid_t id;
} defs[] = {
	{ "CLOCK_REALTIME", K_GETTIME, CLOCK_REALTIME },
	{ "CLOCK_REALTIME_COARSE", K_GETTIME, CLOCK_REALTIME_COARSE },
	{ "CLOCK_MONOTONIC", K_GETTIME, CLOCK_MONOTONIC },
	{ "CLOCK_MONOTONIC_COARSE", K_GETTIME, CLOCK_MONOTONIC_COARSE },
	{ "CLOCK_MONOTONIC_RAW", K_GETTIME, CLOCK_MONOTONIC_RAW },
	{ "CLOCK_BOOTTIME", K_GETTIME, CLOCK_BOOTTIME },
	{ "CLOCK_PROCESS_CPUTIME_ID", K_GETTIME, CLOCK_PROCESS_CPUTIME_ID },
	{ "CLOCK_THREAD_CPUTIME_ID", K_GETTIME, CLOCK_THREAD_CPUTIME_ID },
	{ "gettimeofday", K_GETTIMEOFDAY, 0 },
	{ "time", K_TIME, 0 },
	{ "rdtsc", K_RDTSC, 0 },
	{ "rdtscp", K_RDTSCP, 0 },
	{ TIMER_NAME, K_TIMER, 0 },
};
#define NDEFS (int)(sizeof(defs) / sizeof(defs[0]))

/* What one loop of reads found, in the clock's own unit. */
struct pass {
	uint64_t ns;              /* the loop's time, CLOCK_MONOTONIC */
	int64_t backwards;
	uint64_t step;            /* smallest nonzero step; UINT64_MAX: none */
};

static inline uint64_t gettime(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline uint64_t gtod(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return (uint64_t)tv.tv_sec * 1000000ull + (uint64_t)tv.tv_usec;
}

#ifdef TIMER_TSC
static inline uint64_t tscp(void)
{
	unsigned aux;

	return __rdtscp(&aux);
}
#define TSC() __rdtsc()
#define TICK_NS(hz) ((hz) > 0 ? 1e9 / (hz) : NAN)
#else
#define TSC() 0ull
#define tscp() 0ull
#define TICK_NS(hz) 1.0	/* the timer reads CLOCK_MONOTONIC */
#endif

/*
 * One loop per kind, so that no branch on the kind sits between the reads:
 * plain reads with the comparison a monotonicity check needs, then reads
 * timed one by one into @h, in ticks.
 */
#define PASSES(name, READ)							\
static void name##_pass(clockid_t id, int64_t n, struct pass *p)		\
{										\
	uint64_t prev = READ, t0 = now_ns();					\
										\
	(void)id;								\
	p->backwards = 0;							\
	p->step = UINT64_MAX;							\
	for (int64_t i = 0; i < n; i++) {					\
		uint64_t v = READ;						\
										\
		if (v < prev)							\
			p->backwards++;						\
		else if (v > prev && v - prev < p->step)			\
			p->step = v - prev;					\
		prev = v;							\
	}									\
	p->ns = now_ns() - t0;							\
}										\
static void name##_timed(clockid_t id, int64_t n, struct hist *h)		\
{										\
	(void)id;								\
	for (int64_t i = 0; i < n; i++) {					\
		uint64_t t0 = timer_read(), v = READ;				\
										\
		__asm__ volatile("" : : "r"(v));				\
		hist_add(h, timer_read() - t0);					\
	}									\
}
PASSES(gettime, gettime(id))
PASSES(gtod, gtod())
PASSES(time, (uint64_t)time(NULL))
PASSES(rdtsc, TSC())
PASSES(rdtscp, tscp())
PASSES(timer, timer_read())

static const struct kind_ops {
	void (*pass)(clockid_t, int64_t, struct pass *);
	void (*timed)(clockid_t, int64_t, struct hist *);
} kind_ops[] = {
	[K_GETTIME] = { gettime_pass, gettime_timed },
	[K_GETTIMEOFDAY] = { gtod_pass, gtod_timed },
	[K_TIME] = { time_pass, time_timed },
	[K_RDTSC] = { rdtsc_pass, rdtsc_timed },
	[K_RDTSCP] = { rdtscp_pass, rdtscp_timed },
	[K_TIMER] = { timer_pass, timer_timed },
};

static bool cpu_has_rdtscp(void)
{
#ifdef TIMER_TSC
	unsigned a, b, c, d;

	return __get_cpuid(0x80000001, &a, &b, &c, &d) && (d & (1u << 27));
#else
	return false;
#endif
}

/* A read of the TSC and the CLOCK_MONOTONIC time at that moment, within the gap of two reads. */
static void tsc_sample(uint64_t *tsc, uint64_t *ns)
{
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < 20; i++) {
		uint64_t m0 = now_ns(), t = timer_read(), m1 = now_ns();

		if (m1 - m0 < best) {
			best = m1 - m0;
			*tsc = t;
			*ns = m0 + (m1 - m0) / 2;
		}
	}
}

double clocks_tsc_hz(int ms)
{
#ifdef TIMER_TSC
	struct timespec d = { ms / 1000, (long)(ms % 1000) * 1000000 };
	uint64_t t0, n0, t1, n1;

	tsc_sample(&t0, &n0);
	while (nanosleep(&d, &d) && errno == EINTR)
		;
	tsc_sample(&t1, &n1);
	return n1 > n0 ? (double)(t1 - t0) * 1e9 / (double)(n1 - n0) : 0;
#else
	(void)ms;
	return 0;
#endif
}

/*
 * Which clocks the vDSO serves: a child in which seccomp makes the time
 * syscalls fail reads each once (async-signal-safe calls only: tracetax
 * has threads when it forks). VDSO_UNKNOWN when seccomp is not there.
 */
static void probe_vdso(enum clock_vdso out[NDEFS])
{
	static const long nrs[] = {
		SYS_clock_gettime, SYS_gettimeofday,
#ifdef SYS_time
		SYS_time,
#endif
	};
	unsigned char res[NDEFS];
	int fd[2], st;
	pid_t pid;

	for (int i = 0; i < NDEFS; i++)
		out[i] = defs[i].kind >= K_RDTSC ? VDSO_NA : VDSO_UNKNOWN;
	if (pipe(fd))
		return;
	pid = fork();
	if (pid == 0) {
		close(fd[0]);
		for (size_t k = 0; k < sizeof(nrs) / sizeof(nrs[0]); k++)
			if (tt_seccomp_install(nrs[k], SECCOMP_RET_ERRNO | ENOSYS, 0) < 0)
				_exit(1);
		for (int i = 0; i < NDEFS; i++) {
			struct timespec ts;
			struct timeval tv;

			res[i] = defs[i].kind == K_GETTIME ? clock_gettime(defs[i].id, &ts) == 0 :
				 defs[i].kind == K_GETTIMEOFDAY ? gettimeofday(&tv, NULL) == 0 :
				 defs[i].kind == K_TIME ? time(NULL) != (time_t)-1 : 2;
		}
		_exit(write(fd[1], res, sizeof(res)) == (ssize_t)sizeof(res) ? 0 : 1);
	}
	close(fd[1]);
	if (pid > 0 && read(fd[0], res, sizeof(res)) == (ssize_t)sizeof(res))
		for (int i = 0; i < NDEFS; i++)
			if (defs[i].kind < K_RDTSC)
				out[i] = res[i] ? VDSO_YES : VDSO_NO;
	close(fd[0]);
	if (pid > 0)
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
}

/* ns per unit of each kind's values. */
static double unit_ns(enum kind k, double tsc_hz)
{
	switch (k) {
	case K_GETTIME:      return 1;
	case K_GETTIMEOFDAY: return 1e3;
	case K_TIME:         return 1e9;
	default:             return tsc_hz > 0 ? 1e9 / tsc_hz : NAN;
	}
}

static void measure_one(struct clock_source *s, const struct def *d, int64_t reads,
			double tsc_hz, double floor_ticks, struct hist *h)
{
	const struct kind_ops *k = &kind_ops[d->kind];
	double unit = unit_ns(d->kind, tsc_hz), tick = TICK_NS(tsc_hz);
	struct timespec res;
	struct pass p;

	k->pass(d->id, reads, &p);
	s->reads = reads;
	s->mean_ns = (double)p.ns / (double)reads;
	s->backwards = p.backwards;
	s->step_ns = p.step == UINT64_MAX ? NAN : (double)p.step * unit;
	s->res_ns = d->kind == K_GETTIME ? (clock_getres(d->id, &res) ? NAN :
		    (double)res.tv_sec * 1e9 + (double)res.tv_nsec) : unit;
	hist_init(h);
	k->timed(d->id, reads < 100000 ? reads : 100000, h);
	s->p99_ns = (hist_quantile(h, 0.99) - floor_ticks) * tick;
	if (s->p99_ns < 0)
		s->p99_ns = 0;
}

static void clocksource_files(struct clocks_report *r)
{
	static const char dir[] = "/sys/devices/system/clocksource/clocksource0/";
	char path[128];

	snprintf(path, sizeof(path), "%scurrent_clocksource", dir);
	if (read_file_str(path, r->current, sizeof(r->current)))
		snprintf(r->current, sizeof(r->current), "unknown");
	snprintf(path, sizeof(path), "%savailable_clocksource", dir);
	if (read_file_str(path, r->available, sizeof(r->available)))
		snprintf(r->available, sizeof(r->available), "unknown");
	r->available[strcspn(r->available, "\n")] = '\0';
	while (*r->available && r->available[strlen(r->available) - 1] == ' ')
		r->available[strlen(r->available) - 1] = '\0';
}

/* The CPU's TSC flags in /proc/cpuinfo (the hypervisor's say, in a guest). */
static void tsc_flags(char *buf, size_t len)
{
	static const char *const names[] = { "constant_tsc", "nonstop_tsc", "tsc_reliable",
					     "tsc_known_freq", "rdtscp" };

	*buf = '\0';
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (cpuinfo_has_flag(names[i]))
			snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", *buf ? " " : "", names[i]);
}

/* Two timer reads with nothing between them: the timer's own cost, in ticks. */
static double timer_floor(struct hist *h)
{
	hist_init(h);
	for (int i = 0; i < 100000; i++) {
		uint64_t t0 = timer_read();

		hist_add(h, timer_read() - t0);
	}
	return hist_quantile(h, 0.5);
}

void clocks_measure(struct clocks_report *r, int64_t reads)
{
	enum clock_vdso vdso[NDEFS];
	struct hist *h = malloc(sizeof(*h));
	double floor;

	if (!h)
		die("out of memory");
	memset(r, 0, sizeof(*r));
	clocksource_files(r);
	tsc_flags(r->tsc_flags, sizeof(r->tsc_flags));
	r->tsc_hz = clocks_tsc_hz(100);
	probe_vdso(vdso);
	floor = timer_floor(h);
	r->timer_floor_ns = floor * TICK_NS(r->tsc_hz);
	for (int i = 0; i < NDEFS && r->n < CLOCKS_MAX; i++) {
		struct clock_source *s = &r->src[r->n++];

		s->name = defs[i].name;
		s->vdso = vdso[i];
		s->mean_ns = s->p99_ns = s->res_ns = s->step_ns = NAN;
		if (defs[i].kind >= K_RDTSC && !(r->tsc_hz > 0)) {
			snprintf(s->why, sizeof(s->why), "no TSC on this architecture");
			continue;
		}
		if (defs[i].kind == K_RDTSCP && !cpu_has_rdtscp()) {
			snprintf(s->why, sizeof(s->why), "the CPU does not offer rdtscp (CPUID 0x80000001)");
			continue;
		}
		s->available = true;
		measure_one(s, &defs[i], reads, r->tsc_hz, floor, h);
	}
	free(h);
}

void clocks_for_run(struct timing *t)
{
	enum clock_vdso vdso[NDEFS];
	struct timespec res;
	struct pass p;
	const int64_t n = 20000;

	memset(t, 0, sizeof(*t));
	snprintf(t->clock, sizeof(t->clock), "CLOCK_MONOTONIC");
	gettime_pass(CLOCK_MONOTONIC, n, &p);
	t->clock_ns = (double)p.ns / (double)n;
	t->clock_res_ns = clock_getres(CLOCK_MONOTONIC, &res) ? NAN : (double)res.tv_nsec;
	probe_vdso(vdso);
	for (int i = 0; i < NDEFS; i++)
		if (defs[i].kind == K_GETTIME && defs[i].id == CLOCK_MONOTONIC)
			t->clock_vdso = vdso[i] == VDSO_YES ? 1 : vdso[i] == VDSO_NO ? 0 : -1;
	snprintf(t->timer, sizeof(t->timer), "%s", TIMER_NAME);
	timer_pass(0, n, &p);
	t->timer_ns = (double)p.ns / (double)n;
	t->tsc_hz = clocks_tsc_hz(50);
}
