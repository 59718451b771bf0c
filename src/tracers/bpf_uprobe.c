/*
 * bpf:uprobe, bpf:uretprobe, bpf:usdt: a BPF program on the workload's
 * function (t->func in t->func_path), on its return, or on the USDT site
 * tracetax:func in tracetax-load (bpf/uprobe.bpf.c), with the handler
 * variants of the syscall tracers.
 *
 * setup() loads the program once per cell; start(pid) attaches it to the
 * fresh workload process and stop() detaches it, so that baseline runs
 * trap nothing. Attaching with the workload's pid matters: a uprobe
 * belongs to the file (inode), not to a process, and without a pid the
 * kernel writes the breakpoint into every process that maps the file --
 * for the *-libc workloads every getpid() on the machine would trap. With
 * a pid the perf event's filter lets the breakpoint into that one mm:
 * all its threads trap, also those created after start(), nothing else.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "uprobe.skel.h"
#include "../load/workloads.h"
#include "../tracer.h"
#include "../util.h"
#include "bpf_ring.h"
#include "bpf_syscall.h"	/* tt_bpf_variants[], tt_bpf_variant(), V_* */
#include "bpf_util.h"

enum { K_UPROBE, K_URETPROBE, K_USDT };

static const char *const kinds[] = { "uprobe", "uretprobe", "usdt" };

struct up_priv {
	int kind, var, ncpus;
	char prog_name[40];
	struct uprobe_bpf *skel;
	struct bpf_program *prog;
	struct bpf_link *link;		/* from start() to stop() */
	struct bpf_reader *reader;	/* ringbuf variant */
	uint64_t *percpu;
};

extern const struct tracer_ops tracer_bpf_uretprobe, tracer_bpf_usdt;

static int up_kind(const struct tracer *t)
{
	if (t->ops == &tracer_bpf_uretprobe)
		return K_URETPROBE;
	return t->ops == &tracer_bpf_usdt ? K_USDT : K_UPROBE;
}

/* Open the skeleton and load the one program the cell measures. */
static int up_load(struct up_priv *p, int threads, uint32_t ring, char *err, size_t len)
{
	char eb[96];
	int e;

	tt_libbpf_capture();
	snprintf(p->prog_name, sizeof(p->prog_name), "tt_%s_%s", kinds[p->kind],
		 tt_bpf_variants[p->var]);
	for (char *c = p->prog_name; *c; c++)
		if (*c == '-')
			*c = '_';
	p->skel = uprobe_bpf__open();
	if (!p->skel) {
		snprintf(err, len, "cannot open BPF object 'uprobe.bpf.o': %s", strerror(errno));
		return -1;
	}
	p->prog = bpf_object__find_program_by_name(p->skel->obj, p->prog_name);
	if (!p->prog) {
		snprintf(err, len, "no BPF program '%s' in 'uprobe.bpf.o'", p->prog_name);
		return -1;
	}
	bpf_program__set_autoload(p->prog, true);
	/* Room for every thread even if tids are spread over the hash. */
	bpf_map__set_max_entries(p->skel->maps.tid_count, threads < 256 ? 1024 : 4 * threads);
	if (p->var == V_RINGBUF)
		bpf_map__set_max_entries(p->skel->maps.events, ring);
	e = uprobe_bpf__load(p->skel);
	if (e) {
		snprintf(err, len, "cannot load BPF program '%s': %s%s%s", p->prog_name,
			 tt_errstr(-e, eb, sizeof(eb)), *tt_libbpf_msg() ? ": " : "",
			 tt_libbpf_msg());
		return -1;
	}
	return 0;
}

static void up_release(struct up_priv *p)
{
	bpf_link__destroy(p->link);
	p->link = NULL;
	bpf_reader_stop(p->reader);
	p->reader = NULL;
	uprobe_bpf__destroy(p->skel);
	p->skel = NULL;
}

/*
 * The kernel half of supported(), once per kind and process: load the
 * kind's count program, attach it as a uprobe (or uretprobe) to a function
 * of our own, call that function once and read the count. A kernel that
 * refuses says why; one that accepts must also fire.
 */
static __attribute__((noinline)) int probe_site(int x)
{
	__asm__ volatile("" : "+r"(x));	/* not pure: the call stays */
	return x + 1;
}

/*
 * The file and file offset of @addr in our own mappings, as uprobes want
 * them. The file by its /proc/self/map_files link when we may follow it:
 * that is the inode we run, even when a rebuild has since replaced the
 * file at its path (a probe there would never fire in us).
 */
static int self_offset(const void *addr, char *path, size_t plen, size_t *off)
{
	FILE *f = fopen("/proc/self/maps", "re");
	unsigned long lo, hi, pgoff, a = (unsigned long)addr;
	char line[4352], file[4096];
	int found = 0;

	if (!f)
		return -1;
	while (!found && fgets(line, sizeof(line), f)) {
		file[0] = '\0';
		if (sscanf(line, "%lx-%lx %*s %lx %*s %*s %4095s", &lo, &hi, &pgoff, file) < 3 ||
		    a < lo || a >= hi || file[0] != '/')
			continue;
		snprintf(path, plen, "/proc/self/map_files/%lx-%lx", lo, hi);
		if (access(path, R_OK))
			snprintf(path, plen, "%s", file);
		*off = a - lo + pgoff;
		found = 1;
	}
	fclose(f);
	return found ? 0 : -1;
}

static int kernel_trial(int kind, char *reason, size_t len)
{
	struct up_priv p = { .kind = kind, .var = V_COUNT };
	int (*volatile call)(int) = probe_site;
	LIBBPF_OPTS(bpf_uprobe_opts, o, .retprobe = kind == K_URETPROBE);
	char path[4096], eb[96];
	uint64_t buf[1024];
	int64_t hits = 0;
	size_t off;
	int rc = TT_SKIP;

	p.ncpus = libbpf_num_possible_cpus();
	if (p.ncpus <= 0 || p.ncpus > 1024 || self_offset((void *)probe_site, path, sizeof(path),
							   &off)) {
		snprintf(reason, len, "cannot find our own probe site in '/proc/self/maps'");
		return TT_SKIP;
	}
	if (up_load(&p, 1, 4096, reason, len))
		goto out;
	p.link = bpf_program__attach_uprobe_opts(p.prog, getpid(), path, off, &o);
	if (!p.link) {
		int e = errno;

		if (access("/sys/bus/event_source/devices/uprobe", F_OK) &&
		    access("/sys/kernel/tracing/uprobe_events", F_OK))
			snprintf(reason, len, "kernel built without CONFIG_UPROBE_EVENTS: "
				 "no uprobe PMU, no tracefs uprobe_events");
		else
			snprintf(reason, len, "kernel refused %s on '%s': %s", kinds[kind], path,
				 tt_errstr(e, eb, sizeof(eb)));
		goto out;
	}
	call(1);	/* through a volatile pointer: the real address, not a clone */
	if (tt_percpu_sum(p.skel->maps.pcpu_count, buf, p.ncpus, &hits) || hits != 1) {
		snprintf(reason, len, "%s attached but fired %lld times for 1 call",
			 kinds[kind], (long long)hits);
		goto out;
	}
	rc = TT_OK;
	reason[0] = '\0';
out:
	up_release(&p);
	return rc;
}

static int up_supported(const struct tracer *t, char *reason, size_t len)
{
	int kind = up_kind(t);
	const char *path = kind == K_USDT ? t->load_path : t->func_path;
	struct tt_probe_memo *m;

	if (!tt_bpf_caps_ok(reason, len))
		return TT_SKIP;
	if (!tt_probe_memo(kinds[kind], &m))
		m->rc = kernel_trial(kind, m->reason, sizeof(m->reason));
	snprintf(reason, len, "%s", m->reason);
	if (m->rc != TT_OK)
		return m->rc;
	/* `tracetax list` has no workload: the kernel's word is all it asks. */
	if (path && access(path, R_OK)) {
		snprintf(reason, len, "cannot read '%s': %s", path, strerror(errno));
		return TT_SKIP;
	}
	return TT_OK;
}

static int up_setup(struct tracer *t)
{
	struct up_priv *p = calloc(1, sizeof(*p));
	uint32_t ring = 4096;

	if (!p)
		return tracer_error(t, "cannot allocate tracer state: %s", strerror(ENOMEM));
	t->priv = p;
	p->kind = up_kind(t);
	p->var = tt_bpf_variant(t);
	p->ncpus = libbpf_num_possible_cpus();
	if (p->ncpus <= 0)
		return tracer_error(t, "cannot count possible CPUs: %s", strerror(-p->ncpus));
	p->percpu = calloc((size_t)p->ncpus, sizeof(*p->percpu));
	if (!p->percpu)
		return tracer_error(t, "cannot allocate tracer state: %s", strerror(ENOMEM));
	if (p->kind == K_USDT ? !t->load_path || !t->workload || !t->workload->usdt
			      : !t->func || !t->func_path)
		return tracer_error(t, "tracer '%s' needs a %s to hook", t->name,
				    p->kind == K_USDT ? "USDT site" : "function");
	if (p->var == V_RINGBUF && tt_ring_size(t->events_hint, &ring, t->err, sizeof(t->err)))
		return TT_FAIL;
	if (up_load(p, t->threads, ring, t->err, sizeof(t->err)))
		return TT_FAIL;
	debug("%s: program '%s' loaded", t->name, p->prog_name);
	if (p->var != V_RINGBUF)
		return TT_OK;
	debug("%s: ring buffer of %u bytes", t->name, ring);
	p->reader = bpf_reader_start(bpf_map__fd(p->skel->maps.events), t->err, sizeof(t->err));
	return p->reader ? TT_OK : TT_FAIL;
}

static int reset_counters(struct up_priv *p)
{
	struct uprobe_bpf *s = p->skel;
	uint32_t key = 0;
	uint64_t zero = 0;
	int64_t unused;

	if (tt_percpu_zero(s->maps.pcpu_count, p->percpu, p->ncpus) ||
	    tt_percpu_zero(s->maps.lost, p->percpu, p->ncpus) ||
	    bpf_map__update_elem(s->maps.shared_count, &key, sizeof(key), &zero, sizeof(zero),
				 BPF_ANY))
		return -1;
	return p->var == V_HASH ? tt_tid_counts(s->maps.tid_count, 1, &unused) : 0;
}

/* "tracetax:func" -> provider and name. */
static int usdt_attach(struct tracer *t, struct up_priv *p, pid_t pid)
{
	char prov[64];
	const char *colon = strchr(t->workload->usdt, ':');

	if (!colon || colon - t->workload->usdt >= (long)sizeof(prov))
		return tracer_error(t, "invalid USDT name '%s'", t->workload->usdt);
	snprintf(prov, sizeof(prov), "%.*s", (int)(colon - t->workload->usdt), t->workload->usdt);
	/* Every site of that name (the plain and the inline loop), semaphore raised. */
	p->link = bpf_program__attach_usdt(p->prog, pid, t->load_path, prov, colon + 1, NULL);
	return 0;
}

static int up_start(struct tracer *t, pid_t pid)
{
	struct up_priv *p = t->priv;
	LIBBPF_OPTS(bpf_uprobe_opts, o, .func_name = t->func, .retprobe = p->kind == K_URETPROBE);
	char eb[96];

	if (reset_counters(p))
		return tracer_error(t, "cannot reset counters of '%s': %s", p->prog_name,
				    strerror(errno));
	if (p->reader)
		bpf_reader_reset(p->reader);
	tt_libbpf_capture();
	if (p->kind == K_USDT) {
		if (usdt_attach(t, p, pid))
			return TT_FAIL;
	} else {
		p->link = bpf_program__attach_uprobe_opts(p->prog, pid, t->func_path, 0, &o);
	}
	if (!p->link)
		return tracer_error(t, "cannot attach %s to '%s' in '%s': %s%s%s", kinds[p->kind],
				    p->kind == K_USDT ? t->workload->usdt : t->func,
				    p->kind == K_USDT ? t->load_path : t->func_path,
				    tt_errstr(errno, eb, sizeof(eb)), *tt_libbpf_msg() ? ": " : "",
				    tt_libbpf_msg());
	return 0;
}

static int read_hits(struct tracer *t, struct up_priv *p, struct tt_hits *out)
{
	struct uprobe_bpf *s = p->skel;
	uint32_t key = 0;
	uint64_t v;

	switch (p->var) {
	case V_COUNT:
		return tt_percpu_sum(s->maps.pcpu_count, p->percpu, p->ncpus, &out->hits);
	case V_EMPTY:
		out->hits = -1;	/* the handler records nothing */
		return 0;
	case V_SHARED:
		if (bpf_map__lookup_elem(s->maps.shared_count, &key, sizeof(key), &v, sizeof(v), 0))
			return -1;
		out->hits = (int64_t)v;
		return 0;
	case V_HASH:
		return tt_tid_counts(s->maps.tid_count, 0, &out->hits);
	default:
		/* Detached and the workload reaped: every record is in the ring. */
		return bpf_reader_drain(p->reader, &out->hits, &out->consumer_ns, t->err,
					sizeof(t->err)) ? -2 : 0;
	}
}

static int up_stop(struct tracer *t, struct tt_hits *out)
{
	struct up_priv *p = t->priv;
	int rc;

	/* Also lowers the USDT semaphore and takes the breakpoints out. */
	bpf_link__destroy(p->link);
	p->link = NULL;
	out->stops = -1;
	out->consumer_ns = 0;
	rc = read_hits(t, p, out);
	if (rc == -2)
		return TT_FAIL;
	if (rc || tt_percpu_sum(p->skel->maps.lost, p->percpu, p->ncpus, &out->lost))
		return tracer_error(t, "cannot read counters of '%s': %s", p->prog_name,
				    strerror(errno));
	return 0;
}

static void up_teardown(struct tracer *t)
{
	struct up_priv *p = t->priv;

	if (!p)
		return;
	up_release(p);
	free(p->percpu);
	free(p);
	t->priv = NULL;
}

const struct tracer_ops tracer_bpf_uprobe = {
	.name = "bpf:uprobe",
	.hooks = TT_HOOK_FUNC,
	.summary = "BPF program on a uprobe at the entry of the workload's function",
	.variants = tt_bpf_variants,
	.supported = up_supported,
	.setup = up_setup,
	.start = up_start,
	.stop = up_stop,
	.teardown = up_teardown,
};

const struct tracer_ops tracer_bpf_uretprobe = {
	.name = "bpf:uretprobe",
	.hooks = TT_HOOK_FUNC,
	.summary = "BPF program on a uretprobe: each return of the workload's function",
	.variants = tt_bpf_variants,
	.supported = up_supported,
	.setup = up_setup,
	.start = up_start,
	.stop = up_stop,
	.teardown = up_teardown,
};

const struct tracer_ops tracer_bpf_usdt = {
	.name = "bpf:usdt",
	.hooks = TT_HOOK_USDT,
	.summary = "BPF program on the USDT probe tracetax:func (semaphore-guarded)",
	.variants = tt_bpf_variants,
	.supported = up_supported,
	.setup = up_setup,
	.start = up_start,
	.stop = up_stop,
	.teardown = up_teardown,
};
