/*
 * bpf:tp, bpf:rawtp, bpf:tpbtf: a BPF program on the syscall tracepoint,
 * on the raw sys_enter tracepoint, or on the BTF-typed sys_enter
 * (bpf/syscall.bpf.c), each with five handler variants (bpf_load.c).
 *
 * setup() loads the program once per cell (the verifier is slow); start()
 * attaches it and stop() detaches it. Attaching once per cell would be
 * wrong: untraced baseline runs would then pay for the tracepoint, the
 * program and its filter (measured here: getpid 63 -> 85-100 ns with no
 * hit counted), and the overhead would shrink to the handler's body.
 * Attaching is outside the workload's timed loop, which starts after go.
 *
 * The program counts only the workload's tgid, written in start(): other
 * processes call getpid too. bpf_get_current_pid_tgid() gives ids in the
 * initial pid namespace, fork() in ours: tracetax must run in the initial
 * pid namespace (true of root on a host or a VM, not in a container).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "syscall.skel.h"
#include "../tracer.h"
#include "../util.h"
#include "bpf_ring.h"
#include "bpf_syscall.h"

/* Sizing of the ringbuf variant's ring: bytes per event, bounds. */
#define RING_BYTES_PER_EVENT 32
#define RING_MIN (256u << 10)
#define RING_MAX (256u << 20)
#define RING_ENV "TRACETAX_RINGBUF_BYTES"

static uint32_t pow2_at_least(uint64_t v)
{
	uint64_t p = 4096;	/* a ringbuf is a power-of-2 number of pages */

	while (p < v && p < RING_MAX)
		p <<= 1;
	return (uint32_t)p;
}

/* Big enough that a normal run loses nothing even if the reader lags. */
static int ring_bytes(struct tracer *t, uint32_t *out)
{
	const char *env = getenv(RING_ENV);
	uint64_t want = t->events_hint > 0 ? (uint64_t)t->events_hint * RING_BYTES_PER_EVENT : 0;
	int64_t v;

	if (env) {
		/* Tests make it tiny to prove that lost records are counted. */
		if (parse_i64(env, 1, RING_MAX, &v))
			return tracer_error(t, "invalid %s '%s' (1..%u)", RING_ENV, env, RING_MAX);
		*out = pow2_at_least((uint64_t)v);
		return 0;
	}
	*out = pow2_at_least(want < RING_MIN ? RING_MIN : want);
	return 0;
}

static int bpf_setup(struct tracer *t)
{
	struct bpf_priv *p = calloc(1, sizeof(*p));
	uint32_t ring = 0;
	int rc;

	if (!p)
		return tracer_error(t, "cannot allocate tracer state: %s", strerror(ENOMEM));
	t->priv = p;
	p->fam = tt_bpf_family(t);
	p->var = tt_bpf_variant(t);
	p->ncpus = libbpf_num_possible_cpus();
	if (p->ncpus <= 0)
		return tracer_error(t, "cannot count possible CPUs: %s", strerror(-p->ncpus));
	p->percpu = calloc((size_t)p->ncpus, sizeof(*p->percpu));
	if (!p->percpu)
		return tracer_error(t, "cannot allocate tracer state: %s", strerror(ENOMEM));
	if (!t->target)
		return tracer_error(t, "tracer '%s' needs a target syscall", t->name);
	if (p->var == V_RINGBUF && ring_bytes(t, &ring))
		return TT_FAIL;
	rc = tt_bpf_load(p, t->target, ring, t->threads, t->err, sizeof(t->err));
	if (rc != TT_OK)
		return rc;
	debug("%s: program '%s' loaded", t->name, p->prog_name);
	if (p->var != V_RINGBUF)
		return TT_OK;
	debug("%s: ring buffer of %u bytes", t->name, ring);
	p->reader = bpf_reader_start(bpf_map__fd(p->skel->maps.events), t->err, sizeof(t->err));
	return p->reader ? TT_OK : TT_FAIL;
}

/* Sum of a one-slot per-CPU map; or, with @zero, reset it. */
static int percpu_slot(struct bpf_priv *p, struct bpf_map *map, int zero, int64_t *sum)
{
	size_t sz = (size_t)p->ncpus * sizeof(*p->percpu);
	uint32_t key = 0;

	if (zero) {
		memset(p->percpu, 0, sz);
		return bpf_map__update_elem(map, &key, sizeof(key), p->percpu, sz, BPF_ANY);
	}
	if (bpf_map__lookup_elem(map, &key, sizeof(key), p->percpu, sz, 0))
		return -1;
	*sum = 0;
	for (int i = 0; i < p->ncpus; i++)
		*sum += (int64_t)p->percpu[i];
	return 0;
}

/* Per-thread counts: sum them (the hits), or with @clear, delete them. */
static int tid_counts(struct bpf_priv *p, int clear, int64_t *sum)
{
	struct bpf_map *map = p->skel->maps.tid_count;
	uint32_t key = 0, next;
	uint64_t v;
	int n = 0;

	*sum = 0;
	/* After a delete the walk restarts: the deleted key has no successor. */
	while (!bpf_map__get_next_key(map, clear || !n ? NULL : &key, &next, sizeof(next))) {
		if (clear && bpf_map__delete_elem(map, &next, sizeof(next), 0))
			return -1;
		if (!clear && bpf_map__lookup_elem(map, &next, sizeof(next), &v, sizeof(v), 0))
			return -1;
		if (!clear)
			*sum += (int64_t)v;
		key = next;
		n++;
	}
	if (errno != ENOENT)
		return -1;
	if (!clear)
		debug("bpf: %d threads counted", n);
	return 0;
}

static int reset_counters(struct bpf_priv *p)
{
	struct syscall_bpf *s = p->skel;
	uint32_t key = 0;
	uint64_t zero = 0;
	int64_t unused;

	if (percpu_slot(p, s->maps.pcpu_count, 1, NULL) ||
	    percpu_slot(p, s->maps.lost, 1, NULL) ||
	    bpf_map__update_elem(s->maps.shared_count, &key, sizeof(key), &zero, sizeof(zero),
				 BPF_ANY))
		return -1;
	return p->var == V_HASH ? tid_counts(p, 1, &unused) : 0;
}

static int bpf_start(struct tracer *t, pid_t pid)
{
	struct bpf_priv *p = t->priv;

	if (reset_counters(p))
		return tracer_error(t, "cannot reset counters of '%s': %s", p->prog_name,
				    strerror(errno));
	if (p->reader)
		bpf_reader_reset(p->reader);
	/* A plain store into the mmapped .bss; the go byte's write() orders it. */
	__atomic_store_n(&p->skel->bss->target_tgid, (uint32_t)pid, __ATOMIC_SEQ_CST);
	return tt_bpf_attach(p, t->target, t->err, sizeof(t->err)) == TT_OK ? 0 : TT_FAIL;
}

static int read_hits(struct tracer *t, struct bpf_priv *p, struct tt_hits *out)
{
	struct syscall_bpf *s = p->skel;
	uint32_t key = 0;
	uint64_t v;

	switch (p->var) {
	case V_COUNT:
		return percpu_slot(p, s->maps.pcpu_count, 0, &out->hits);
	case V_EMPTY:
		out->hits = -1;	/* the handler records nothing: nothing to tell */
		return 0;
	case V_SHARED:
		if (bpf_map__lookup_elem(s->maps.shared_count, &key, sizeof(key), &v,
					 sizeof(v), 0))
			return -1;
		out->hits = (int64_t)v;
		return 0;
	case V_HASH:
		return tid_counts(p, 0, &out->hits);
	default:
		/* Detached and the workload reaped: every record is in the ring. */
		return bpf_reader_drain(p->reader, &out->hits, &out->consumer_ns, t->err,
					sizeof(t->err)) ? -2 : 0;
	}
}

static int bpf_stop(struct tracer *t, struct tt_hits *out)
{
	struct bpf_priv *p = t->priv;
	int rc;

	tt_bpf_detach(p);
	/* Should the pid be reused before the next start(), it must not count. */
	__atomic_store_n(&p->skel->bss->target_tgid, 0, __ATOMIC_SEQ_CST);
	out->stops = -1;
	out->consumer_ns = 0;
	rc = read_hits(t, p, out);
	if (rc == -2)
		return TT_FAIL;
	if (rc || percpu_slot(p, p->skel->maps.lost, 0, &out->lost))
		return tracer_error(t, "cannot read counters of '%s': %s", p->prog_name,
				    strerror(errno));
	return 0;
}

static void bpf_teardown(struct tracer *t)
{
	struct bpf_priv *p = t->priv;

	if (!p)
		return;
	tt_bpf_release(p);
	free(p->percpu);
	free(p);
	t->priv = NULL;
}

const struct tracer_ops tracer_bpf_tp = {
	.name = "bpf:tp",
	.hooks = TT_HOOK_SYSCALL,
	.summary = "BPF program on the tracepoint syscalls:sys_enter_<name>",
	.variants = tt_bpf_variants,
	.supported = tt_bpf_supported,
	.setup = bpf_setup,
	.start = bpf_start,
	.stop = bpf_stop,
	.teardown = bpf_teardown,
};

const struct tracer_ops tracer_bpf_rawtp = {
	.name = "bpf:rawtp",
	.hooks = TT_HOOK_SYSCALL,
	.summary = "BPF program on the raw tracepoint sys_enter, filtering the syscall number",
	.variants = tt_bpf_variants,
	.supported = tt_bpf_supported,
	.setup = bpf_setup,
	.start = bpf_start,
	.stop = bpf_stop,
	.teardown = bpf_teardown,
};

const struct tracer_ops tracer_bpf_tpbtf = {
	.name = "bpf:tpbtf",
	.hooks = TT_HOOK_SYSCALL,
	.summary = "BPF program on tp_btf/sys_enter (BTF-typed), filtering the syscall number",
	.variants = tt_bpf_variants,
	.supported = tt_bpf_supported,
	.setup = bpf_setup,
	.start = bpf_start,
	.stop = bpf_stop,
	.teardown = bpf_teardown,
};
