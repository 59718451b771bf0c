/*
 * tracetax pair: per (storage, threads), load bpf/pair.bpf.c's start and
 * end programs, start the workload, attach the start probe and then the
 * end probe (a tracepoint calls its probes in the order they were
 * registered: the start must come first), run, detach, and read the
 * delays and the counts back. The options are in pair_cli.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/libbpf.h>
#include <linux/types.h>

#include "base/activity.h"
#include "measure/cell.h"
#include "measure/child.h"
#include "pair_bpf.h"
#include "load/workloads.h"
#include "measure/pair.h"
#include "pair.skel.h"
#include "base/signals.h"
#include "load/syscalls.h"
#include "base/tracefs_util.h"
#include "base/util.h"
#include "results/results.h"
#include "tracers/tracer.h"

_Static_assert(PAIR_HIST_BUCKETS == HIST_BUCKETS, "bpf/pair.bpf.c buckets as src/base/hist.h");

#if defined(__x86_64__)
#define SYS_PREFIX "__x64_sys_"
#elif defined(__aarch64__)
#define SYS_PREFIX "__arm64_sys_"
#else
#define SYS_PREFIX "__se_sys_"
#endif

enum hook { HOOK_TP, HOOK_FENTRY, HOOK_KPROBE };
static const char *const hook_names[] = { "tracepoint", "fentry", "kprobe" };

/* A cell's BPF side, from load to destroy. */
struct pair_bpf_ctx {
	struct pair_bpf *skel;
	struct bpf_program *start, *end;
	struct bpf_link *start_link, *end_link;
	enum hook hook;
	char start_on[64], end_on[64];     /* event or function each is on */
};

/* tt_pair_<hook>_<start|end>_<storage> of bpf/pair.bpf.c. */
static struct bpf_program *prog_of(struct pair_bpf *s, enum pair_kind k, enum hook h, bool end,
				   const char *variant)
{
	static const char *const stem[] = { "tp", "fentry", "kprobe" };
	char name[64];

	snprintf(name, sizeof(name), "tt_pair_%s_%s_%s",
		 h == HOOK_TP && k == PAIR_ENTER && !end ? "raw" : stem[h], end ? "end" : "start",
		 variant);
	return bpf_object__find_program_by_name(s->obj, name);
}

/* Where the two probes go, per kind; -1 and why not when the workload has no such path. */
static int probe_places(enum pair_kind k, const struct tt_syscall *sc, struct pair_bpf_ctx *x,
			char *err, size_t len)
{
	switch (k) {
	case PAIR_ENTER:
		snprintf(x->start_on, sizeof(x->start_on), "raw_syscalls:sys_enter");
		snprintf(x->end_on, sizeof(x->end_on), "syscalls:%s", sc->event);
		return 0;
	case PAIR_SYSCALL:
		snprintf(x->start_on, sizeof(x->start_on), "syscalls:%s", sc->event);
		snprintf(x->end_on, sizeof(x->end_on), "syscalls:sys_exit_%s", sc->event + 10);
		return 0;
	default:
		/* the thread's case: a function and the one it calls first */
		if (strcmp(sc->name, "getpid")) {
			snprintf(err, len, "--pair func knows the nested functions of getpid only, "
				 "not of '%s'", sc->name);
			return -1;
		}
		snprintf(x->start_on, sizeof(x->start_on), SYS_PREFIX "getpid");
		snprintf(x->end_on, sizeof(x->end_on), "__task_pid_nr_ns");
		return 0;
	}
}

static void ctx_release(struct pair_bpf_ctx *x)
{
	bpf_link__destroy(x->end_link);
	bpf_link__destroy(x->start_link);
	x->end_link = x->start_link = NULL;
	pair_bpf__destroy(x->skel);
	x->skel = NULL;
}

/*
 * Open and load the two programs of @variant (a storage's name, or
 * lock_cas); TT_OK, or TT_SKIP / TT_FAIL with the kernel's words.
 */
static int ctx_load(struct pair_bpf_ctx *x, const struct pair_args *a, const struct tt_syscall *sc,
		    const char *variant, int threads, char *err, size_t len)
{
	char what[160], eb[96];
	int e;

	if (!(x->skel = pair_bpf__open())) {
		snprintf(err, len, "cannot open the pair BPF object: %s", tt_bpf_errstr(errno, eb, sizeof(eb)));
		return TT_FAIL;
	}
	x->skel->rodata->target_nr = (uint32_t)sc->nr;
	x->skel->rodata->clock_id = (int)a->clock;
	x->start = prog_of(x->skel, a->kind, x->hook, false, variant);
	x->end = prog_of(x->skel, a->kind, x->hook, true, variant);
	if (!x->start || !x->end) {
		snprintf(err, len, "pair BPF object lacks the programs of '%s'", variant);
		return TT_FAIL;
	}
	bpf_program__set_autoload(x->start, true);
	bpf_program__set_autoload(x->end, true);
	/* a start per thread at most; room so that a full map never is the story */
	bpf_map__set_max_entries(x->skel->maps.tid_slot, (uint32_t)(2 * threads + 64));
	/* BTF may know the syscall's function by its inner name only */
	if (x->hook == HOOK_FENTRY && bpf_program__set_attach_target(x->start, 0, x->start_on) &&
	    !strncmp(x->start_on, SYS_PREFIX, strlen(SYS_PREFIX))) {
		char inner[64];

		snprintf(inner, sizeof(inner), "__do_sys_%s", x->start_on + strlen(SYS_PREFIX));
		if (!bpf_program__set_attach_target(x->start, 0, inner))
			snprintf(x->start_on, sizeof(x->start_on), "%s", inner);
	}
	if (x->hook == HOOK_KPROBE && access("/sys/bus/event_source/devices/kprobe", F_OK) &&
	    !tt_tracefs_has("kprobe_events")) {
		snprintf(err, len, "kernel built without CONFIG_KPROBES: no kprobe PMU, no kprobe_events");
		return TT_SKIP;
	}
	if (x->hook == HOOK_FENTRY &&
	    ((e = bpf_program__set_attach_target(x->start, 0, x->start_on)) ||
	     (e = bpf_program__set_attach_target(x->end, 0, x->end_on)))) {
		snprintf(err, len, "no BTF function '%s' or '%s': %s", x->start_on, x->end_on,
			 tt_bpf_errstr(-e, eb, sizeof(eb)));
		return TT_SKIP;
	}
	tt_bpf_capture();
	e = -pair_bpf__load(x->skel);
	if (!e) {
		activity_own_bpf_prog(bpf_program__fd(x->start));
		activity_own_bpf_prog(bpf_program__fd(x->end));
		return TT_OK;
	}
	snprintf(what, sizeof(what), "%s pair on '%s' and '%s' (%s)", hook_names[x->hook],
		 x->start_on, x->end_on, variant);
	e = tt_bpf_load_verdict(e, x->skel->obj, x->start, what, err, len);
	/* the kernel refusing its locks to tracing programs: its rule, not our bug */
	return !strcmp(variant, "lock") && strstr(err, "spin_lock") ? TT_SKIP : e;
}

static struct bpf_link *attach_one(struct pair_bpf_ctx *x, struct bpf_program *p, const char *on)
{
	if (x->hook == HOOK_FENTRY)
		return bpf_program__attach_trace(p);
	if (x->hook == HOOK_KPROBE)
		return bpf_program__attach_kprobe(p, false, on);
	return bpf_program__attach_tracepoint(p, "syscalls", strchr(on, ':') + 1);
}

/* Start first: probes of one tracepoint run in the order they were registered. */
static int ctx_attach(struct pair_bpf_ctx *x, char *err, size_t len)
{
	char eb[96];
	int e;

	tt_bpf_capture();
	x->start_link = !strncmp(x->start_on, "raw_syscalls:", 13) ? bpf_program__attach(x->start) :
			attach_one(x, x->start, x->start_on);
	if (x->start_link)
		x->end_link = attach_one(x, x->end, x->end_on);
	if (x->start_link && x->end_link)
		return TT_OK;
	e = errno;
	snprintf(err, len, "%s %s attach to '%s': %s",
		 tt_bpf_attach_verdict(e) == TT_SKIP ? "kernel refused" : "cannot", hook_names[x->hook],
		 x->start_link ? x->end_on : x->start_on, tt_bpf_errstr(e, eb, sizeof(eb)));
	return tt_bpf_attach_verdict(e);
}

/* Sums the per-CPU counters and buckets into the cell. */
static int ctx_read(struct pair_bpf_ctx *x, struct pair_cell *c)
{
	int ncpus = libbpf_num_possible_cpus();
	struct pair_stats *st = calloc((size_t)(ncpus > 0 ? ncpus : 1), sizeof(*st));
	uint64_t *v = calloc((size_t)(ncpus > 0 ? ncpus : 1), sizeof(*v)), sum = 0, max = 0, min1 = 0;
	uint32_t key = 0;
	int ret = -1;

	if (!st || !v || ncpus <= 0)
		goto out;
	if (bpf_map__lookup_elem(x->skel->maps.stats, &key, sizeof(key), st,
				 (size_t)ncpus * sizeof(*st), 0))
		goto out;
	for (int i = 0; i < ncpus; i++) {
		c->starts += (int64_t)st[i].starts;
		c->ends += (int64_t)st[i].ends;
		c->paired += (int64_t)st[i].paired;
		c->overwritten += (int64_t)st[i].overwritten;
		c->unpaired += (int64_t)st[i].unpaired;
		sum += st[i].sum;
		max = st[i].max > max ? st[i].max : max;
		if (st[i].min1 && (!min1 || st[i].min1 < min1))
			min1 = st[i].min1;
	}
	for (key = 0; key < HIST_BUCKETS; key++) {
		if (bpf_map__lookup_elem(x->skel->maps.buckets, &key, sizeof(key), v,
					 (size_t)ncpus * sizeof(*v), 0))
			goto out;
		for (int i = 0; i < ncpus; i++)
			hist_add_bucket(c->delay, key, v[i]);
	}
	/* the BPF side keeps no squares (they overflow): the variance is the buckets' */
	if (c->delay->count)
		hist_set_exact(c->delay, sum, hist_sumsq_of_buckets(c->delay), min1 - 1, max);
	ret = 0;
out:
	free(st);
	free(v);
	return ret;
}

static int cell_fail_at(struct pair_cell *c, int status, const char *why)
{
	c->status = status;
	snprintf(c->reason, sizeof(c->reason), "%s", why);
	return -1;
}

/* The workload with the pair attached between its ready line and go. */
static int run_workload(struct pair_bpf_ctx *x, const struct pair_args *a, const char *load_path,
			struct pair_cell *c)
{
	struct load_spec spec = { .load_path = load_path, .workload = a->workload,
				  .threads = c->threads, .iterations = a->iterations,
				  .warmup = cell_warmup(a->iterations) };
	struct load_result res;
	struct load_proc lp;
	char err[256];
	int rc = -1, st;

	memset(&res, 0, sizeof(res));
	if (load_spawn(&lp, &spec, NULL) || load_wait_ready(&lp, 10000)) {
		cell_fail_at(c, TT_FAIL, lp.err);
		goto out;
	}
	x->skel->bss->target_tgid = (uint32_t)lp.pid;
	if ((st = ctx_attach(x, err, sizeof(err))) != TT_OK) {
		cell_fail_at(c, st, err);
		goto out;
	}
	if (load_go(&lp) || load_read_result(&lp, 600000, &res) || load_wait_exit(&lp, 10000)) {
		cell_fail_at(c, TT_FAIL, lp.err);
		goto out;
	}
	c->events = res.events;
	rc = 0;
out:
	if (rc)
		load_kill(&lp);
	/* detach before reading: no end may still be on its way */
	bpf_link__destroy(x->end_link);
	bpf_link__destroy(x->start_link);
	x->end_link = x->start_link = NULL;
	st = load_reap(&lp);
	if (!rc && st != 0)
		rc = cell_fail_at(c, TT_FAIL, "workload did not exit 0");
	if (!rc && res.bad)
		rc = cell_fail_at(c, TT_FAIL, "ops of the workload returned unexpected results");
	load_result_release(&res);
	return rc;
}

/*
 * The ways to try a cell, in order: the kernel-function pair by fentry,
 * else by kprobe; the lock storage under the kernel's lock, else under a
 * compare-and-swap lock of our own. The next is tried when the kernel
 * refuses (TT_SKIP); the reasons of every refusal are kept.
 */
static int cell_load(struct pair_bpf_ctx *x, const struct pair_args *a,
		     const struct tt_syscall *sc, struct pair_cell *c)
{
	enum hook hooks[] = { a->kind == PAIR_FUNC ? HOOK_FENTRY : HOOK_TP, HOOK_KPROBE };
	const char *vars[] = { pair_storage_names[c->storage], "lock_cas" };
	int nh = a->kind == PAIR_FUNC ? 2 : 1, nv = c->storage == PAIR_LOCK ? 2 : 1;
	int rc = TT_SKIP;
	char why[256];

	c->reason[0] = '\0';
	for (int h = 0; h < nh && rc == TT_SKIP; h++)
		for (int v = 0; v < nv && rc == TT_SKIP; v++) {
			memset(x, 0, sizeof(*x));
			x->hook = hooks[h];
			if (probe_places(a->kind, sc, x, why, sizeof(why)))
				rc = TT_SKIP;
			else
				rc = ctx_load(x, a, sc, vars[v], c->threads, why, sizeof(why));
			if (rc != TT_OK) {
				ctx_release(x);
				snprintf(c->reason + strlen(c->reason), sizeof(c->reason) - strlen(c->reason),
					 "%s%s", c->reason[0] ? "; " : "", why);
			} else if (c->storage == PAIR_LOCK) {
				c->lock = v ? "cmpxchg" : "bpf_res_spin_lock";
			}
		}
	return rc;
}

static void run_cell(const struct pair_args *a, const struct tt_syscall *sc, const char *load_path,
		     struct pair_results *r, struct pair_cell *c)
{
	struct pair_bpf_ctx x;

	c->status = cell_load(&x, a, sc, c);
	if (c->status != TT_OK)
		return;
	/* what the kernel said when it refused the first way stays, as a note */
	memcpy(c->note, c->reason, sizeof(c->note));
	c->reason[0] = '\0';
	snprintf(r->start_probe, sizeof(r->start_probe), "%s", x.start_on);
	snprintf(r->end_probe, sizeof(r->end_probe), "%s", x.end_on);
	r->hook = hook_names[x.hook];
	if (!(c->delay = malloc(sizeof(*c->delay))))
		die("out of memory");
	hist_init(c->delay);
	signals_doing("pairing probes, storage %s, %d thread(s)", pair_storage_names[c->storage],
		      c->threads);
	if (!run_workload(&x, a, load_path, c) && ctx_read(&x, c))
		cell_fail_at(c, TT_FAIL, "cannot read the pair's BPF maps");
	if (c->status != TT_OK && c->note[0]) {
		char why[sizeof(c->reason)];

		/* the first way's refusal, then the last way's */
		memcpy(why, c->reason, sizeof(why));
		snprintf(c->reason, sizeof(c->reason), "%s; %s", c->note, why);
	}
	ctx_release(&x);
}

int pair_run(const struct pair_args *a, const char *load_path, struct pair_results *r)
{
	const struct workload *w = workload_find(a->workload);
	const struct tt_syscall *sc = w && w->syscall ? tt_syscall_find(w->syscall) : NULL;
	int failed = 0;

	memset(r, 0, sizeof(*r));
	r->args = *a;
	if (!sc)
		die_usage("workload '%s' makes no syscall to pair probes on", a->workload);
	for (int t = 0; t < a->nthreads && !signals_interrupted(); t++)
		for (int s = 0; s < a->nstorages && !signals_interrupted(); s++) {
			struct pair_cell *c = &r->cells[r->ncells++];

			c->storage = (enum pair_storage)a->storages[s];
			c->threads = a->threads[t];
			run_cell(a, sc, load_path, r, c);
			failed |= c->status == TT_FAIL;
			if (!a->quiet)
				fprintf(stderr, "[%d/%d] %-7s %2dT  %s%s%s\n", r->ncells,
					a->nthreads * a->nstorages, pair_storage_names[c->storage],
					c->threads, c->status == TT_OK ? "ok" : c->status == TT_SKIP ?
					"skipped" : "failed", c->reason[0] ? ": " : "", c->reason);
		}
	signals_doing(NULL);
	if (signals_interrupted())
		return 128 + signals_interrupted();
	return failed ? EXIT_FAILED : EXIT_OK;
}

void pair_release(struct pair_results *r)
{
	for (int i = 0; i < r->ncells; i++)
		free(r->cells[i].delay);
	r->ncells = 0;
}
