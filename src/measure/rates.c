/*
 * The rate counter (rates.h): one BPF program on raw_syscalls:sys_enter
 * (bpf/budget.bpf.c) counting per CPU and syscall number and per process
 * for the window, with BPF stats on so that its own time per event is
 * measured, not assumed. Attached once, detached and freed on every path:
 * a signal ends the window, the caller's signal thread records it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/types.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "base/activity.h"
#include "base/signals.h"
#include "base/utf8.h"
#include "base/util.h"
#include "load/syscalls.h"
#include "measure/pace.h"
#include "measure/rates.h"
#include "tracers/tracer.h"

#include "budget.skel.h"
#include "budget_bpf.h"

#define NR_MAX 512
#define PROCS 4096

static const struct { long nr; const char *name; } all_syscalls[] = {
#include "syscall_names.h"
};

const char *rates_syscall_name(long nr)
{
	for (size_t i = 0; i < sizeof(all_syscalls) / sizeof(all_syscalls[0]); i++)
		if (all_syscalls[i].nr == nr)
			return all_syscalls[i].name;
	return NULL;
}

/* The cgroup v2 id of @path (its inode) and its depth under the mount. */
static int cgroup_id(const char *path, uint64_t *id, uint32_t *level, char *err, size_t len)
{
	char real[4096];
	struct stat st;
	const char *root = "/sys/fs/cgroup", *p;
	uint32_t n = 0;

	if (!realpath(path, real) || stat(real, &st) || !S_ISDIR(st.st_mode)) {
		snprintf(err, len, "no cgroup '%s' (--cgroup)", path);
		return -1;
	}
	if (strncmp(real, root, strlen(root)) || (real[strlen(root)] && real[strlen(root)] != '/')) {
		snprintf(err, len, "'%s' is not under %s (--cgroup)", path, root);
		return -1;
	}
	for (p = real + strlen(root); *p; p++)
		if (*p == '/' && p[1])
			n++;
	*id = st.st_ino;
	*level = n;
	return 0;
}

static int cmp_proc(const void *a, const void *b)
{
	const struct budget_proc *x = a, *y = b;

	return x->events < y->events ? 1 : x->events > y->events ? -1 : x->pid - y->pid;
}

static int cmp_nr(const void *a, const void *b)
{
	const struct budget_nr *x = a, *y = b;

	return x->events < y->events ? 1 : x->events > y->events ? -1 : (int)(x->nr - y->nr);
}

/* The processes summed by comm: a build's or a loop's many short ones as one. */
static void by_comm(const struct budget_proc *procs, int n, struct budget_rates *r)
{
	struct budget_proc *c = calloc((size_t)(n ? n : 1), sizeof(*c));
	int nc = 0;

	if (!c)
		die("out of memory");
	for (int i = 0; i < n; i++) {
		int k;

		for (k = 0; k < nc && strcmp(c[k].comm, procs[i].comm); k++)
			;
		if (k == nc)
			memcpy(c[nc++].comm, procs[i].comm, sizeof(c[0].comm));
		c[k].pid++;
		c[k].events += procs[i].events;
		/* the CPU of those read; the pace weighted by calls (summed here, divided below) */
		c[k].cpu_ns += procs[i].cpu_ns > 0 ? procs[i].cpu_ns : 0;
		c[k].pace += procs[i].pace * (double)procs[i].events;
	}
	for (int k = 0; k < nc; k++)
		c[k].pace = c[k].events ? c[k].pace / (double)c[k].events : 1;
	qsort(c, (size_t)nc, sizeof(*c), cmp_proc);
	for (int i = 0; i < nc && i < BUDGET_TOP_PROCS; i++)
		r->top_comm[r->ntop_comm++] = c[i];
	free(c);
}

int64_t rates_add(struct budget_rates *r, const uint64_t *vals, int ncpu)
{
	int64_t sum = 0;

	if (!r->per_cpu) {
		r->ncpu = ncpu;
		r->per_cpu = calloc((size_t)ncpu + 1, sizeof(*r->per_cpu));
		if (!r->per_cpu)
			die("out of memory");
	}
	for (int c = 0; c < ncpu && c < r->ncpu; c++) {
		r->per_cpu[c] += (int64_t)vals[c];
		sum += (int64_t)vals[c];
	}
	r->events += sum;
	return sum;
}

/* The (auid, syscall, context) counts, and those the table had no room for. */
static void read_auid(struct budget_bpf *skel, struct budget_rates *r, uint64_t *vals, int ncpu)
{
	int fd = bpf_map__fd(skel->maps.auid_nr);
	struct auid_nr key, next, *prev = NULL;
	uint32_t zero = 0;
	uint64_t n;

	r->auid_nr = calloc(BUDGET_AUID_NR, sizeof(*r->auid_nr));
	if (!r->auid_nr)
		die("out of memory");
	while (r->nauid_nr < BUDGET_AUID_NR && !bpf_map_get_next_key(fd, prev, &next)) {
		if (!bpf_map_lookup_elem(fd, &next, &n))
			r->auid_nr[r->nauid_nr++] = (struct budget_auid_nr){
				.auid = next.auid, .known = next.auid != BUDGET_AUID_UNKNOWN,
				.nr = (int)next.nr, .no_ctx = next.ctx == BUDGET_CTX_NONE,
				.events = (int64_t)n };
		key = next;
		prev = &key;
	}
	if (!bpf_map_lookup_elem(bpf_map__fd(skel->maps.auid_unnamed), &zero, vals))
		for (int c = 0; c < ncpu; c++)
			r->auid_unnamed += (int64_t)vals[c];
}

/*
 * Each process's CPU over the window (since @snap) and its pace at the
 * counter's price; the box's pace, the calls weighted by their processes'
 * paces (those whose CPU could not be read at 1)
 */
static void pace_procs(struct budget_proc *procs, int n, const struct pace_snap *snap,
		       struct budget_rates *r)
{
	double window = r->seconds * 1e9, sum = 0, all = 0;

	for (int i = 0; i < n; i++) {
		struct budget_proc *p = &procs[i];

		p->cpu_ns = snap->v ? pace_cpu_since(snap, p->pid) : -1;
		p->pace = isfinite(r->price_ns) ? pace_of((double)p->events, p->cpu_ns, window,
							  r->price_ns) : 1;
		all += (double)p->events;
		sum += (double)p->events * p->pace;
		if (p->cpu_ns >= 0)
			r->paced += p->events;
	}
	r->pace = all > 0 ? sum / all : 1;
}

static void read_counts(const struct rates_opts *o, struct budget_bpf *skel,
			struct budget_rates *r, const struct pace_snap *snap)
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t *vals = calloc((size_t)(ncpu > 0 ? ncpu : 1), sizeof(*vals));
	struct budget_nr *nrs = calloc(NR_MAX, sizeof(*nrs));
	struct budget_proc *procs = calloc(PROCS, sizeof(*procs));
	int fd = bpf_map__fd(skel->maps.nr_count), nprocs = 0;
	uint32_t key, next, *prev = NULL;

	if (!vals || !nrs || !procs)
		die("out of memory");
	rates_add(r, vals, ncpu > 0 ? ncpu : 0);	/* zeros: every CPU listed, none seen */
	for (key = 0; key < NR_MAX; key++) {
		nrs[key].nr = key == NR_MAX - 1 ? -1 : (long)key;
		if (!bpf_map_lookup_elem(fd, &key, vals))
			nrs[key].events = rates_add(r, vals, ncpu > 0 ? ncpu : 0);
	}
	qsort(nrs, NR_MAX, sizeof(*nrs), cmp_nr);
	for (int i = 0; i < BUDGET_TOP_NRS && nrs[i].events; i++) {
		const char *s = nrs[i].nr >= 0 ? rates_syscall_name(nrs[i].nr) : NULL;

		r->nrs[i] = nrs[i];
		if (s)
			snprintf(r->nrs[i].name, sizeof(r->nrs[i].name), "%s", s);
		else if (nrs[i].nr >= 0)
			snprintf(r->nrs[i].name, sizeof(r->nrs[i].name), "nr %ld", nrs[i].nr);
		else
			snprintf(r->nrs[i].name, sizeof(r->nrs[i].name), "nr >= %d", NR_MAX - 1);
		r->nnrs = i + 1;
	}
	fd = bpf_map__fd(skel->maps.proc_count);
	while (nprocs < PROCS && !bpf_map_get_next_key(fd, prev, &next)) {
		struct proc_count pc;

		if (!bpf_map_lookup_elem(fd, &next, &pc)) {
			/* a process outside our pid namespace has no pid here: 0 */
			procs[nprocs].pid = next & BUDGET_OUTSIDE_NS ? 0 : (int)next;
			memcpy(procs[nprocs].comm, pc.comm, sizeof(pc.comm));
			procs[nprocs].comm[sizeof(procs[nprocs].comm) - 1] = '\0';
			/* anyone's to set, "\xff" too: the documents hold UTF-8 */
			utf8_scrub(procs[nprocs].comm, sizeof(procs[nprocs].comm));
			procs[nprocs].events = (int64_t)pc.n;
			nprocs++;
		}
		key = next;
		prev = &key;
	}
	r->nprocs = nprocs;
	pace_procs(procs, nprocs, snap, r);
	if (o->all) {
		*o->nall = nprocs < o->max_all ? nprocs : o->max_all;
		memcpy(o->all, procs, (size_t)*o->nall * sizeof(*procs));
	}
	by_comm(procs, nprocs, r);
	qsort(procs, (size_t)nprocs, sizeof(*procs), cmp_proc);
	for (int i = 0; i < nprocs && i < BUDGET_TOP_PROCS; i++)
		r->top[r->ntop++] = procs[i];
	if (o->by_auid)
		read_auid(skel, r, vals, ncpu > 0 ? ncpu : 0);
	key = 0;
	if (!bpf_map_lookup_elem(bpf_map__fd(skel->maps.unnamed), &key, vals))
		for (int c = 0; c < ncpu; c++)
			r->unnamed += (int64_t)vals[c];
	r->others = o->target ? 0 : -1;
	if (o->target && !bpf_map_lookup_elem(bpf_map__fd(skel->maps.others), &key, vals))
		for (int c = 0; c < ncpu; c++)
			r->others += (int64_t)vals[c];
	free(vals);
	free(nrs);
	free(procs);
}

static void self_cost(struct budget_bpf *skel, struct budget_rates *r, uint64_t ns0,
		      uint64_t cnt0)
{
	struct bpf_prog_info info;
	uint32_t ilen = sizeof(info);

	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(bpf_program__fd(skel->progs.tt_budget), &info, &ilen)) {
		snprintf(r->self_reason, sizeof(r->self_reason), "cannot read the program's info: %s",
			 strerror(errno));
		return;
	}
	r->self_runs = (int64_t)(info.run_cnt - cnt0);
	if (r->self_runs <= 0) {
		snprintf(r->self_reason, sizeof(r->self_reason), "the counter ran no event");
		return;
	}
	r->self_ns = (double)(info.run_time_ns - ns0) / (double)r->self_runs;
	r->self_measured = true;
}

int rates_allowed(char *err, size_t len)
{
	char why[128];

	if (tt_bpf_caps_ok(why, sizeof(why)))
		return 0;
	snprintf(err, len, "cannot count the box's events: budget %s (its counter is a BPF "
		 "program)", why);
	return -1;
}

/*
 * o->argv's process, forked to wait on @go until the counter is attached:
 * its pid, or -1 and @err. It execs the command when a byte is written to
 * @go, and exits when @go is closed without one.
 */
static pid_t cmd_fork(const struct rates_opts *o, int *go, char *err, size_t len)
{
	int p[2];
	pid_t pid;

	if (pipe2(p, O_CLOEXEC)) {
		snprintf(err, len, "cannot make a pipe: %s", strerror(errno));
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		snprintf(err, len, "cannot fork: %s", strerror(errno));
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (!pid) {
		char c;
		int null = open("/dev/null", O_RDWR);

		close(p[1]);
		if (null >= 0) {
			dup2(null, 0);
			dup2(null, 1);
			dup2(null, 2);
		}
		if (read(p[0], &c, 1) != 1)	/* closed unwritten: no count, no command */
			_exit(127);
		execvp(o->argv[0], o->argv);
		_exit(127);
	}
	close(p[0]);
	*go = p[1];
	return pid;
}

/* The command's exit, at most CMD_TIMEOUT_S; a signal or the timeout kills it. 0, or -1 and @err. */
#define CMD_TIMEOUT_S 60
static int cmd_wait(pid_t pid, const char *name, char *err, size_t len)
{
	double end = now_s() + CMD_TIMEOUT_S;
	int st;

	for (;;) {
		pid_t w = waitpid(pid, &st, WNOHANG);

		if (w == pid)
			break;
		if (w < 0 && errno != EINTR) {
			snprintf(err, len, "cannot wait for the command: %s", strerror(errno));
			return -1;
		}
		if (signals_interrupted() || now_s() > end) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			snprintf(err, len, "the command '%s' ran past %d s: killed", name, CMD_TIMEOUT_S);
			return signals_interrupted() ? 0 : -1;
		}
		usleep(2000);
	}
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		snprintf(err, len, "the command '%s' failed (%s %d) while its calls were counted", name,
			 WIFEXITED(st) ? "exit" : "signal", WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
		return -1;
	}
	return 0;
}

/* @r's scope, in words, from @o */
static void scope_of(const struct rates_opts *o, struct budget_rates *r)
{
	if (o->argv)
		snprintf(r->scope, sizeof(r->scope), "the command '%s'", o->argv[0]);
	else if (o->pid)
		snprintf(r->scope, sizeof(r->scope), "pid %d", (int)o->pid);
	else if (o->cgroup)
		snprintf(r->scope, sizeof(r->scope), "cgroup %s", o->cgroup);
	else
		snprintf(r->scope, sizeof(r->scope), "the whole box");
	snprintf(r->target, sizeof(r->target), "%s", o->target ? o->target : "");
}

/*
 * The counter loaded with @o's filters (@child: the command's process, 0
 * none; @cgid, @level: the cgroup's): 0, or -1 and @err.
 */
static int counter_load(const struct rates_opts *o, struct budget_bpf *skel, pid_t child,
			uint64_t cgid, uint32_t level, char *err, size_t len)
{
	struct stat ns;
	char eb[96];

	skel->rodata->filter_tgid = (uint32_t)(child ? child : o->pid);
	skel->rodata->self_tgid = (uint32_t)getpid();
	/* our pids are our namespace's: the counter translates the kernel's to them */
	if (!stat("/proc/self/ns/pid", &ns)) {
		skel->rodata->ns_dev = (uint64_t)ns.st_dev;
		skel->rodata->ns_ino = (uint64_t)ns.st_ino;
	}
	skel->rodata->filter_cgid = cgid;
	skel->rodata->by_auid = o->by_auid;
	skel->rodata->filter_level = level;
	if (o->target) {
		const struct tt_syscall *s = tt_syscall_find(o->target);

		if (!s) {
			snprintf(err, len, "unknown syscall '%s' (--target)", o->target);
			return -1;
		}
		skel->rodata->filter_nr = (int32_t)s->nr;
	}
	if (budget_bpf__load(skel)) {
		int e = errno;

		snprintf(err, len, "cannot load the rate counter: %s%s", tt_bpf_errstr(e, eb, sizeof(eb)),
			 e == EPERM || e == EACCES ? " (needs root, or CAP_BPF and CAP_PERFMON)" : "");
		return -1;
	}
	activity_own_bpf_prog(bpf_program__fd(skel->progs.tt_budget));
	return 0;
}

/*
 * The window, the counter attached: o->seconds, or the command's run
 * (*@child execs at a byte on *@go; both are taken: 0 and -1 after).
 * 0; 128+signal; -1 and @err.
 */
static int window(const struct rates_opts *o, pid_t *child, int *go, char *err, size_t len)
{
	double end = now_s() + o->seconds;
	int ret;

	if (*child) {
		if (write(*go, "g", 1) != 1) {	/* the command execs */
			snprintf(err, len, "cannot start the command: %s", strerror(errno));
			return -1;
		}
		close(*go);
		*go = -1;
		signals_doing("counting the calls of '%s'", o->argv[0]);
		ret = cmd_wait(*child, o->argv[0], err, len);
		*child = 0;
		if (ret)
			return -1;
	} else {
		signals_doing("counting events for %d s", o->seconds);
		while (!signals_interrupted() && now_s() < end)
			usleep(20000);
	}
	signals_doing(NULL);
	return signals_interrupted() ? 128 + signals_interrupted() : 0;
}

/*
 * The counter's price per call, as another process pays it (pace.h): a
 * child of ours makes PRICE_CALLS getppid a block, the counter attached in
 * blocks 1, 2, 5, 6... and not in the others; the least block of each, the
 * difference. Only for a count of the whole box: with a filter, a call it
 * turns away costs less than one it counts, and the child's would be
 * turned away. The child's calls are counted: the maps are emptied after.
 */
#define PRICE_CALLS 20000
#define PRICE_BLOCKS 12
static void price_child(int in, int out)
{
	char c;

	while (read(in, &c, 1) == 1 && c == 'g') {
		uint64_t t0 = now_ns();
		double ns;

		for (int i = 0; i < PRICE_CALLS; i++)
			syscall(SYS_getppid);
		ns = (double)(now_ns() - t0) / PRICE_CALLS;
		if (write(out, &ns, sizeof(ns)) != sizeof(ns))
			break;
	}
	_exit(0);
}

static void counter_price(const struct rates_opts *o, struct budget_bpf *skel, struct budget_rates *r)
{
	double best[2] = { INFINITY, INFINITY }, ns;
	struct bpf_link *link = NULL;
	int to[2], from[2], b;
	pid_t pid;

	r->price_ns = r->price_base_ns = NAN;
	if (o->pid || o->cgroup || o->target || o->argv) {
		snprintf(r->price_why, sizeof(r->price_why), "the counter's price is measured on a count "
			 "of the whole box only: with a filter, the calls it turns away cost less");
		return;
	}
	if (pipe2(to, O_CLOEXEC))
		goto fail;
	if (pipe2(from, O_CLOEXEC)) {
		close(to[0]);
		close(to[1]);
		goto fail;
	}
	pid = fork();
	if (!pid) {
		close(to[1]);
		close(from[0]);
		price_child(to[0], from[1]);
	}
	close(to[0]);
	close(from[1]);
	/* block 0 warms the child up and is not kept */
	for (b = 0; pid > 0 && b <= PRICE_BLOCKS && !signals_interrupted(); b++) {
		int on = b > 0 && ((b - 1) & 2) == 0;

		if (on && !link && !(link = bpf_program__attach_raw_tracepoint(skel->progs.tt_budget,
									       "sys_enter")))
			break;
		if (!on && link) {
			bpf_link__destroy(link);
			link = NULL;
		}
		if (write(to[1], "g", 1) != 1 || read(from[0], &ns, sizeof(ns)) != sizeof(ns))
			break;
		if (b > 0 && ns < best[on])
			best[on] = ns;
	}
	bpf_link__destroy(link);
	close(to[1]);
	close(from[0]);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	if (pid < 0 || b <= PRICE_BLOCKS)
		goto fail;
	r->price_base_ns = best[0];
	/* below the blocks' resolution the counter is taken as free */
	r->price_ns = best[1] > best[0] ? best[1] - best[0] : 0;
	return;
fail:
	snprintf(r->price_why, sizeof(r->price_why), "the counter's price could not be measured: %s",
		 signals_interrupted() ? "interrupted" : strerror(errno));
}

/* Every count back to 0: the price's calls are not the window's */
static void counts_clear(struct budget_bpf *skel)
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t *zero = calloc((size_t)(ncpu > 0 ? ncpu : 1), sizeof(*zero));
	struct bpf_map *pc[] = { skel->maps.nr_count, skel->maps.unnamed, skel->maps.others,
				 skel->maps.auid_unnamed };
	struct bpf_map *hash[] = { skel->maps.proc_count, skel->maps.auid_nr };

	if (!zero)
		die("out of memory");
	for (size_t m = 0; m < sizeof(pc) / sizeof(pc[0]); m++)
		for (uint32_t k = 0; k < bpf_map__max_entries(pc[m]); k++)
			bpf_map_update_elem(bpf_map__fd(pc[m]), &k, zero, BPF_ANY);
	for (size_t m = 0; m < sizeof(hash) / sizeof(hash[0]); m++) {
		char key[64], next[64];
		int fd = bpf_map__fd(hash[m]);

		/* delete the first key until none: deleting while walking skips */
		while (!bpf_map_get_next_key(fd, NULL, next)) {
			memcpy(key, next, sizeof(key));
			if (bpf_map_delete_elem(fd, key))
				break;
		}
	}
	free(zero);
}

int rates_count(const struct rates_opts *o, struct budget_rates *r, char *err, size_t len)
{
	struct budget_bpf *skel = NULL;
	struct bpf_link *link = NULL;
	struct pace_snap snap = { 0 };
	struct bpf_prog_info info;
	uint32_t ilen = sizeof(info);
	uint64_t cgid = 0;
	uint32_t level = 0;
	char eb[96];
	int stats_fd = -1, ret = -1, go = -1;
	pid_t child = 0;
	double t0;

	memset(r, 0, sizeof(*r));
	r->cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (o->cgroup && cgroup_id(o->cgroup, &cgid, &level, err, len))
		return -1;
	scope_of(o, r);
	if (rates_allowed(err, len))
		return -1;
	tt_bpf_capture();	/* libbpf's words go to debug(): ours say what failed */
	skel = budget_bpf__open();
	if (!skel) {
		snprintf(err, len, "cannot open the rate counter: %s",
			 tt_bpf_errstr(errno, eb, sizeof(eb)));
		return -1;
	}
	if (o->argv && (child = cmd_fork(o, &go, err, len)) < 0) {
		child = 0;
		goto out;
	}
	if (counter_load(o, skel, child, cgid, level, err, len))
		goto out;
	stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (stats_fd < 0)
		snprintf(r->self_reason, sizeof(r->self_reason),
			 "kernel refused BPF_ENABLE_STATS: %s", strerror(-stats_fd));
	r->pace = 1;
	counter_price(o, skel, r);
	if (isfinite(r->price_ns)) {
		counts_clear(skel);
		if (pace_snap_take(&snap))
			snprintf(r->price_why, sizeof(r->price_why), "the processes' CPU could not be "
				 "read: %s", strerror(errno));
	}
	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(bpf_program__fd(skel->progs.tt_budget), &info, &ilen))
		info.run_cnt = info.run_time_ns = 0;
	link = bpf_program__attach_raw_tracepoint(skel->progs.tt_budget, "sys_enter");
	if (!link) {
		snprintf(err, len, "cannot attach to raw tracepoint sys_enter: %s", strerror(errno));
		goto out;
	}
	t0 = now_s();
	ret = window(o, &child, &go, err, len);
	bpf_link__destroy(link);
	link = NULL;
	r->seconds = now_s() - t0;
	if (ret)
		goto out;
	read_counts(o, skel, r, &snap);
	r->audit_ctx = skel->bss->self_audit_ctx ? (int)skel->bss->self_audit_ctx - 1 : -1;
	if (stats_fd >= 0)
		self_cost(skel, r, info.run_time_ns, info.run_cnt);
out:
	if (go >= 0)
		close(go);	/* a command not started: it exits at the read */
	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
	bpf_link__destroy(link);
	if (stats_fd >= 0)
		close(stats_fd);
	budget_bpf__destroy(skel);
	pace_snap_release(&snap);
	return ret;
}
