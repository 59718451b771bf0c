/*
 * tracetax-load: the workload process. Started fresh for every run, so that
 * ptrace, seccomp, LD_PRELOAD and external tools apply to it as they would
 * to any program. It tells the runner it is ready, waits for the go byte,
 * runs warm-up and the timed hot loop in each thread, and writes one JSON
 * line of results. Only the hot loop is timed.
 */
#include <errno.h>
#include <stdnoreturn.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define HAVE_TSC 1
#endif

#include "base/cpus.h"
#include "base/hist.h"
#include "base/write_full.h"
#include "load/loops.h"
#include "load/tcp.h"
#include "load/workloads.h"

struct worker {
	pthread_t th;
	int cpu;
	int peer_cpu;              /* a helper thread of its own (tcp's peer) */
	uint64_t ns, cycles, bad, records;
	struct hist *lat;         /* --latency: ns of each op of the hot loop */
	double timer_ns;          /* --latency: median of two reads back to back */
};

/* Empty intervals a thread times before it starts: what each sample includes. */
#define TIMER_FLOOR_N 10000

static const struct workload *wl;
static loop_fn loop;
static int inline_mode;   /* TRACETAX_INLINE=1: the inline tracer */
static int latency;       /* --latency: every op timed */
static uint64_t iterations = 1000000, warmup;
static uint64_t rate;     /* --rate: ops per second per thread, paced; 0: flat out */
static int nthreads = 1;
static pthread_barrier_t start_line;

static noreturn void usage_die(const char *fmt, const char *arg)
{
	fprintf(stderr, "tracetax-load: ");
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	exit(2);
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t tsc(void)
{
#ifdef HAVE_TSC
	return __rdtsc();
#else
	return 0;
#endif
}

/*
 * --rate: @n ops at @rate a second, in bursts of what is due every
 * millisecond, the thread asleep between them: a consumer measured at a
 * rate (tracetax rate) needs the CPU a spinning load would take. A burst
 * is at most rate/1000 ops (200 at 200k/s), far under any buffer; a load
 * held back (a consumer's full backlog) catches up at once, so the rate
 * it reaches is what the run's time says.
 */
static uint64_t loop_paced(uint64_t n)
{
	const uint64_t tick = 1000000;
	uint64_t t0 = mono_ns(), done = 0, bad = 0;

	while (done < n) {
		uint64_t el = mono_ns() - t0, due = (uint64_t)((double)el * (double)rate / 1e9) + 1;
		uint64_t wake = t0 + (el / tick + 1) * tick;
		struct timespec ts = { (time_t)(wake / 1000000000u), (long)(wake % 1000000000u) };

		if (due > n)
			due = n;
		if (due > done) {
			bad += loop(due - done);
			done = due;
		}
		if (done < n)
			while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
				;
	}
	return bad;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	uint64_t t0, c0;

	cpus_pin_self(w->cpu);
	if ((inline_mode && inline_thread_init()) || loops_thread_begin(wl, w->peer_cpu))
		exit(4);
	if (latency) {
		struct hist floor;

		hist_init(&floor);
		latency_timer_floor(&floor, TIMER_FLOOR_N);
		w->timer_ns = hist_quantile(&floor, 0.5);
		latency_thread_init(w->lat);
	}
	w->bad = loop(warmup);
	if (latency)
		hist_init(w->lat);	/* the warm-up touched its pages; its calls do not count */
	/* All threads start their timed loops together, as in the bpftrace post. */
	pthread_barrier_wait(&start_line);
	t0 = mono_ns();
	c0 = tsc();
	w->bad += rate ? loop_paced(iterations) : loop(iterations);
	w->cycles = tsc() - c0;
	w->ns = mono_ns() - t0;
	w->records = inline_mode ? inline_thread_records() : 0;
	loops_thread_end(wl);
	return NULL;
}

static void write_all(int fd, const char *buf, size_t len)
{
	if (!write_full(fd, buf, len))
		exit(4);
}

/* Tell the runner we are ready, then block until it says go (EOF: give up). */
static void wait_for_go(int start_fd, int result_fd)
{
	char line[128], c;
	ssize_t n;

	snprintf(line, sizeof(line), "{\"ready\":true,\"pid\":%ld}\n", load_pid);
	write_all(result_fd, line, strlen(line));
	do
		n = read(start_fd, &c, 1);
	while (n < 0 && errno == EINTR);
	if (n != 1)
		exit(3);
	/* start_fd stays open: closing it would be one more close(2) event */
}

/*
 * -w cmd: the user's command takes our place at go. It keeps our pid, so a
 * tracer told that pid by the ready line traces the command itself, from
 * its exec; its process group is a new one of ours, so that the runner can
 * end all the command started. No result line: the runner times the run
 * from go to our exit.
 */
static void exec_command(int start_fd, int result_fd, char **cmd)
{
	char line[64], self[32] = "", c;
	ssize_t n;

	if (!cmd[0] || !cmd[1] || start_fd < 0)
		usage_die("-w cmd needs --start-fd and a command after %s", "'--'");
	/* at exec the fds close themselves: a close(2) after go would be a traced event */
	if (setpgid(0, 0) || fcntl(start_fd, F_SETFD, FD_CLOEXEC) ||
	    fcntl(result_fd, F_SETFD, FD_CLOEXEC))
		exit(4);
	/* not getpid(2): a tool that wraps us would count it as the command's, on --target getpid */
	if (readlink("/proc/self", self, sizeof(self) - 1) <= 0)
		exit(4);
	snprintf(line, sizeof(line), "{\"ready\":true,\"pid\":%s}\n", self);
	write_all(result_fd, line, strlen(line));
	do
		n = read(start_fd, &c, 1);
	while (n < 0 && errno == EINTR);
	if (n != 1)
		exit(3);
	/* the runner found it in PATH (cmd[0]): no failed execs to trace */
	execv(cmd[0], cmd + 1);
	fprintf(stderr, "tracetax-load: cannot run '%s': %s\n", cmd[1], strerror(errno));
	_exit(127);
}

/* ,"lat":{...}: exact figures, then the non-empty buckets as index, count pairs. */
static size_t report_hist(char *buf, size_t cap, const struct worker *w)
{
	const struct hist *h = w->lat;
	size_t len;
	const char *sep = "";

	len = (size_t)snprintf(buf, cap, ",\"timer_ns\":%.1f,\"lat\":{\"sum\":%llu,\"sumsq\":%.17g,"
			       "\"min\":%llu,\"max\":%llu,\"b\":[", w->timer_ns,
			       (unsigned long long)h->sum, h->sumsq, (unsigned long long)h->min,
			       (unsigned long long)h->max);
	for (unsigned i = hist_next(h, 0); i < HIST_BUCKETS; i = hist_next(h, i + 1)) {
		len += (size_t)snprintf(buf + len, cap - len, "%s%u,%llu", sep, i,
					(unsigned long long)h->b[i]);
		sep = ",";
	}
	return len + (size_t)snprintf(buf + len, cap - len, "]}");
}

static void report(int fd, struct worker *w)
{
	size_t cap = 512 + (size_t)nthreads * 512, len;	/* a thread's fixed fields: < 320 */
	char *buf;
	uint64_t bad = 0, records = 0;

	for (int i = 0; i < nthreads; i++) {
		bad += w[i].bad;
		records += w[i].records;
		/* a bucket: its index, its count, two commas */
		for (unsigned b = 0; latency && b < HIST_BUCKETS; b = hist_next(w[i].lat, b + 1))
			cap += 32;
	}
	buf = malloc(cap);
	if (!buf)
		exit(4);
	len = (size_t)snprintf(buf, cap,
		"{\"workload\":\"%s\",\"event\":\"%s\",\"pid\":%d,\"threads\":%d,"
		"\"iterations\":%llu,\"warmup\":%llu,\"events\":%llu,\"bad\":%llu,\"recorded\":%lld,"
		"\"bytes_per_op\":%u,\"tsc\":%s,\"per_thread\":[",
		wl->name, wl->syscall ? wl->syscall : wl->func, (int)load_pid, nthreads, (unsigned long long)iterations,
		(unsigned long long)warmup,
		(unsigned long long)((iterations + warmup) * (uint64_t)nthreads),
		(unsigned long long)bad, inline_mode ? (long long)records : -1LL, tcp_bytes_per_op,
#ifdef HAVE_TSC
		"true"
#else
		"false"
#endif
		);
	for (int i = 0; i < nthreads; i++) {
		len += (size_t)snprintf(buf + len, cap - len,
				"%s{\"cpu\":%d,\"ops\":%llu,\"events\":%llu,\"ns\":%llu,\"cycles\":%llu",
				i ? "," : "", w[i].cpu, (unsigned long long)iterations,
				(unsigned long long)(iterations + warmup),
				(unsigned long long)w[i].ns, (unsigned long long)w[i].cycles);
		if (latency)
			len += report_hist(buf + len, cap - len, &w[i]);
		len += (size_t)snprintf(buf + len, cap - len, "}");
	}
	len += (size_t)snprintf(buf + len, cap - len, "]}\n");
	write_all(fd, buf, len);
	free(buf);
}

static uint64_t parse_u64(const char *s, const char *what)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || !*s || *end || *s == '-')
		usage_die("invalid %s", what);
	return v;
}

/* What the command line says beside the globals (workload, iterations, threads...). */
struct load_opts {
	int start_fd, result_fd, pin, off;
	uint64_t tsc_hz;
};

static const struct option load_opts_long[] = {
	{ "workload", required_argument, NULL, 'w' },
	{ "iterations", required_argument, NULL, 'n' },
	{ "warmup", required_argument, NULL, 'W' },
	{ "threads", required_argument, NULL, 't' },
	{ "start-fd", required_argument, NULL, 's' },
	{ "result-fd", required_argument, NULL, 'r' },
	{ "no-pin", no_argument, NULL, 'P' },
	{ "latency", no_argument, NULL, 'L' },
	{ "tsc-hz", required_argument, NULL, 'H' },
	{ "msg-size", required_argument, NULL, 'm' },
	{ "cpu-offset", required_argument, NULL, 'o' },
	{ "rate", required_argument, NULL, 'R' },
	{ NULL, 0, NULL, 0 },
};

static void parse_args(int argc, char **argv, struct load_opts *o)
{
	int c;

	while ((c = getopt_long(argc, argv, "w:n:W:t:", load_opts_long, NULL)) != -1) {
		switch (c) {
		case 'w':
			if (!(wl = workload_find(optarg)))
				usage_die("unknown workload '%s'", optarg);
			break;
		case 'n': iterations = parse_u64(optarg, "iterations"); break;
		case 'W': warmup = parse_u64(optarg, "warmup"); break;
		case 't':
			nthreads = (int)parse_u64(optarg, "threads");
			if (nthreads < 1 || nthreads > 1024)
				usage_die("invalid threads '%s'", optarg);
			break;
		case 's': o->start_fd = (int)parse_u64(optarg, "start fd"); break;
		case 'r': o->result_fd = (int)parse_u64(optarg, "result fd"); break;
		case 'P': o->pin = 0; break;
		case 'L': latency = 1; break;
		case 'H': o->tsc_hz = parse_u64(optarg, "tsc-hz"); break;
		case 'o': o->off = (int)(parse_u64(optarg, "cpu offset") % 1024); break;
		case 'R': rate = parse_u64(optarg, "rate"); break;
		case 'm':
			tcp_msg_size = (uint32_t)parse_u64(optarg, "msg size");
			if (tcp_msg_size < 1 || tcp_msg_size > TCP_MSG_MAX)
				usage_die("invalid msg size '%s'", optarg);
			break;
		default: exit(2);
		}
	}
}

/* The hot loop the workers run: plain, inline-recording, or every call timed. */
static void choose_loop(uint64_t tsc_hz)
{
	loop = inline_mode ? loops_of(wl)->inline_rec : loops_of(wl)->plain;
	if (latency) {
		loop = loops_of(wl)->latency;
		lat_inline = inline_mode;
#ifdef HAVE_TSC
		/* the runner calibrated the TSC against CLOCK_MONOTONIC; without it, ticks */
		if (tsc_hz)
			lat_mult = (uint64_t)((1e9 * 4294967296.0) / (double)tsc_hz + 0.5);
#else
		(void)tsc_hz;
#endif
	}
}

/* The workers, once go came; joined when their loops are done. */
static struct worker *run_workers(const struct load_opts *o)
{
	int ncpus, cpus[1024];
	struct worker *w;

	/* thread i runs on the i-th CPU we may use, round robin (cpus.h), from
	 * the --cpu-offset-th on (run --placement rotate) */
	ncpus = cpus_allowed(cpus, 1024);
	w = calloc((size_t)nthreads, sizeof(*w));
	if (!w || pthread_barrier_init(&start_line, NULL, (unsigned)nthreads))
		exit(4);
	for (int i = 0; latency && i < nthreads; i++)
		if (!(w[i].lat = malloc(sizeof(*w[i].lat))))
			exit(4);
	if (o->start_fd >= 0)
		wait_for_go(o->start_fd, o->result_fd);
	/* Threads are made after go, so a tracer attached to one task sees them all born. */
	for (int i = 0; i < nthreads; i++) {
		w[i].cpu = o->pin && ncpus ? cpus[(i + o->off) % ncpus] : -1;
		w[i].peer_cpu = o->pin && ncpus ? cpus[(i + o->off + 1) % ncpus] : -1;
		if (pthread_create(&w[i].th, NULL, worker_main, &w[i]))
			exit(4);
	}
	for (int i = 0; i < nthreads; i++)
		pthread_join(w[i].th, NULL);
	return w;
}

int main(int argc, char **argv)
{
	struct load_opts o = { .start_fd = -1, .result_fd = 1, .pin = 1 };
	struct worker *w;

	/*
	 * Whoever started us (tracetax, or a tool that wraps us: strace, perf)
	 * dies, we die: a tool killed mid-run must not leave the workload
	 * running. tracetax's own child has it already; a tool's has not.
	 */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	wl = workload_find("getpid");
	inline_mode = getenv("TRACETAX_INLINE") && !strcmp(getenv("TRACETAX_INLINE"), "1");
	parse_args(argc, argv, &o);
	if (wl->cmd)
		exec_command(o.start_fd, o.result_fd, argv + optind);
	choose_loop(o.tsc_hz);
	loops_init();
	w = run_workers(&o);
	report(o.result_fd, w);
	return 0;
}
