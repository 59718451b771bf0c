/*
 * A BPF tracer cell's life, the same for every hook (see bpf_util.h).
 *
 * setup() loads the program once per cell (the verifier is slow); start()
 * attaches it and stop() detaches it. Attaching once per cell would be
 * wrong: untraced baseline runs would then pay for the hook, the program
 * and its filter (measured on tp: getpid 63 -> 85-100 ns with no hit
 * counted), and the overhead would shrink to the handler's body.
 * Attaching is outside the workload's timed loop, which starts after go.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "base/activity.h"
#include "base/util.h"
#include "tracers/bpf/bpf_util.h"

/* Order matters: the index is the TT_BPF_ value, the first is the default. */
const char *const tt_bpf_variants[] = {
	"count", "empty", "count-shared", "hash", "ringbuf", "ringbuf-batch", NULL,
};

/*
 * --explain: what each handler does after the filter (the "map update"),
 * and what reads its records, by TT_BPF_ value. The map step's share is
 * told by the program time of `empty`, which filters and does nothing else.
 */
static const char *const map_texts[] = {
	"this CPU's slot of a per-CPU array += 1",
	NULL,
	"one global counter, atomic add: a cache line every CPU writes",
	"the thread's entry of a hash keyed by tid += 1 (inserted the first time)",
	"a 16-byte record reserved in the BPF ring buffer, filled, submitted: the reader is woken",
	"a 16-byte record reserved in the BPF ring buffer, filled, submitted without a wake-up",
};
static const char *const reader_texts[] = {
	NULL, NULL, NULL, NULL,
	"a thread of ours sleeps in poll() on the ring and consumes each record it is woken for",
	"a thread of ours consumes the ring every millisecond, never woken",
};

_Static_assert(sizeof(map_texts) / sizeof(map_texts[0]) == sizeof(tt_bpf_variants) /
	       sizeof(tt_bpf_variants[0]) - 1, "a map text per variant");
_Static_assert(sizeof(reader_texts) == sizeof(map_texts), "a reader text per variant");

int tt_bpf_explain(const struct tracer *t, enum tt_step s, char *buf, size_t len,
		   const char **ref)
{
	const struct tt_bpf_family *fam = tt_bpf_family(t);
	const char *text = NULL;

	switch (s) {
	case TT_STEP_HOOK:     text = fam->hook_text; break;
	case TT_STEP_DISPATCH: text = fam->dispatch_text; break;
	case TT_STEP_PROGRAM:  text = fam->filter_text; break;
	case TT_STEP_MAP:
		text = map_texts[t->vidx];
		if (ref)
			*ref = tt_bpf_variants[TT_BPF_EMPTY];
		break;
	case TT_STEP_READER:   text = reader_texts[t->vidx]; break;
	default:               break;
	}
	if (!text)
		return -1;
	snprintf(buf, len, "%s", text);
	return 0;
}

void tt_bpf_init(struct tt_bpf *b, const struct tt_bpf_family *fam, int var)
{
	b->fam = fam;
	b->var = var;
	snprintf(b->prog_name, sizeof(b->prog_name), "tt_%s_%s", fam->stem,
		 tt_bpf_variants[var]);
	for (char *c = b->prog_name; *c; c++)
		if (*c == '-')
			*c = '_';
}

struct tt_bpf *tt_bpf_new(struct tracer *t, size_t size)
{
	struct tt_bpf *b = calloc(1, size);

	if (!b) {
		tracer_error(t, "cannot allocate tracer state: %s", strerror(ENOMEM));
		return NULL;
	}
	t->priv = b;
	/* t->ops->variants is tt_bpf_variants[] or a prefix of it: vidx is the TT_BPF_ value. */
	tt_bpf_init(b, tt_bpf_family(t), t->vidx);
	if (tracer_fault(t, "verifier"))
		snprintf(b->prog_name, sizeof(b->prog_name), "tt_fault_verifier");
	b->threads = t->threads;
	b->ncpus = libbpf_num_possible_cpus();
	if (b->ncpus <= 0) {
		tracer_error(t, "cannot count possible CPUs: %s", strerror(-b->ncpus));
		return NULL;
	}
	b->percpu = calloc((size_t)b->ncpus, sizeof(*b->percpu));
	if (!b->percpu) {
		tracer_error(t, "cannot allocate tracer state: %s", strerror(ENOMEM));
		return NULL;
	}
	if (tt_bpf_is_ring(b->var) &&
	    tt_bpf_ring_size(t->events_hint, &b->ring, t->err, sizeof(t->err)))
		return NULL;
	return b;
}

/* The maps of bpf/common.bpf.h, by name: every object has all of them. */
static int find_maps(struct tt_bpf *b, struct bpf_object *obj, char *err, size_t len)
{
	static const char *const names[] = {
		"pcpu_count", "shared_count", "tid_count", "lost", "events",
	};
	struct bpf_map **slot[] = {
		&b->maps.pcpu_count, &b->maps.shared_count, &b->maps.tid_count,
		&b->maps.lost, &b->maps.events,
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		*slot[i] = bpf_object__find_map_by_name(obj, names[i]);
		if (!*slot[i]) {
			snprintf(err, len, "no BPF map '%s' in '%s'", names[i], bpf_object__name(obj));
			return -1;
		}
	}
	return 0;
}

int tt_bpf_open(struct tt_bpf *b, void *skel, struct bpf_object_skeleton *s,
		void (*destroy)(void *), char *err, size_t len)
{
	struct bpf_object *obj;
	char eb[96];

	tt_bpf_capture();
	if (!skel) {
		snprintf(err, len, "cannot open the BPF object of '%s': %s", b->prog_name,
			 tt_bpf_errstr(errno, eb, sizeof(eb)));
		return -1;
	}
	b->skel = skel;
	b->s = s;
	b->destroy = destroy;
	obj = *s->obj;
	b->prog = bpf_object__find_program_by_name(obj, b->prog_name);
	if (!b->prog) {
		snprintf(err, len, "no BPF program '%s' in '%s'", b->prog_name,
			 bpf_object__name(obj));
		return -1;
	}
	if (find_maps(b, obj, err, len))
		return -1;
	bpf_program__set_autoload(b->prog, true);
	/* Room for every thread even if tids are spread over the hash. */
	bpf_map__set_max_entries(b->maps.tid_count, b->threads < 256 ? 1024 : 4 * b->threads);
	if (tt_bpf_is_ring(b->var) && b->ring)
		bpf_map__set_max_entries(b->maps.events, b->ring);
	return 0;
}

int tt_bpf_load(struct tt_bpf *b, const char *what, char *err, size_t len)
{
	int e = -bpf_object__load_skeleton(b->s);	/* what X_bpf__load() does */
	char prog[64];

	if (!e) {
		activity_own_bpf_prog(bpf_program__fd(b->prog));
		return TT_OK;
	}
	snprintf(prog, sizeof(prog), "BPF program '%s'", b->prog_name);
	return tt_bpf_load_verdict(e, *b->s->obj, b->prog, what ? what : prog, err, len);
}

int tt_bpf_loaded(struct tracer *t, struct tt_bpf *b)
{
	debug("%s: program '%s' loaded", t->name, b->prog_name);
	if (!tt_bpf_is_ring(b->var))
		return TT_OK;
	debug("%s: ring buffer of %u bytes", t->name, b->ring);
	b->reader = tt_bpf_reader_start(bpf_map__fd(b->maps.events),
					b->var == TT_BPF_RINGBUF_BATCH ? TT_BPF_BATCH_MS : -1,
					t->err, sizeof(t->err));
	return b->reader ? TT_OK : TT_FAIL;
}

static int reset_counters(struct tt_bpf *b)
{
	uint32_t key = 0;
	uint64_t zero = 0;
	int64_t unused;

	if (tt_bpf_percpu_zero(b->maps.pcpu_count, b->percpu, b->ncpus) ||
	    tt_bpf_percpu_zero(b->maps.lost, b->percpu, b->ncpus) ||
	    bpf_map__update_elem(b->maps.shared_count, &key, sizeof(key), &zero, sizeof(zero),
				 BPF_ANY))
		return -1;
	return b->var == TT_BPF_HASH ? tt_bpf_tid_counts(b->maps.tid_count, 1, &unused) : 0;
}

int tt_bpf_arm(struct tracer *t, pid_t pid)
{
	struct tt_bpf *b = t->priv;

	if (reset_counters(b))
		return tracer_error(t, "cannot reset counters of '%s': %s", b->prog_name,
				    strerror(errno));
	if (b->reader)
		tt_bpf_reader_reset(b->reader);
	/*
	 * The programs count only the workload's tgid: other processes call
	 * getpid too. A plain store into the mmapped .bss; the go byte's
	 * write() orders it. bpf_get_current_pid_tgid() gives ids in the
	 * initial pid namespace, fork() in ours: tracetax must run in the
	 * initial pid namespace (root on a host or a VM, not a container).
	 */
	__atomic_store_n(b->tgid, (uint32_t)pid, __ATOMIC_SEQ_CST);
	return 0;
}

static int read_hits(struct tracer *t, struct tt_bpf *b, struct tt_hits *out)
{
	uint32_t key = 0;
	uint64_t v;

	switch (b->var) {
	case TT_BPF_COUNT:
		return tt_bpf_percpu_sum(b->maps.pcpu_count, b->percpu, b->ncpus, &out->hits);
	case TT_BPF_EMPTY:
		out->hits = -1;	/* the handler records nothing: nothing to tell */
		return 0;
	case TT_BPF_SHARED:
		if (bpf_map__lookup_elem(b->maps.shared_count, &key, sizeof(key), &v, sizeof(v), 0))
			return -1;
		out->hits = (int64_t)v;
		return 0;
	case TT_BPF_HASH:
		return tt_bpf_tid_counts(b->maps.tid_count, 0, &out->hits);
	default:
		/* Detached and the workload reaped: every record is in the ring. */
		return tt_bpf_reader_drain(b->reader, &out->hits, &out->consumer_ns, t->err,
					   sizeof(t->err)) ? -2 : 0;
	}
}

int tt_bpf_stop(struct tracer *t, struct tt_hits *out)
{
	struct tt_bpf *b = t->priv;
	int rc;

	/* Also lowers a USDT semaphore and takes uprobe breakpoints out. */
	bpf_link__destroy(b->link);
	b->link = NULL;
	/* Should the pid be reused before the next start(), it must not count. */
	__atomic_store_n(b->tgid, 0, __ATOMIC_SEQ_CST);
	out->stops = -1;
	out->consumer_ns = 0;
	rc = read_hits(t, b, out);
	if (rc == -2)
		return TT_FAIL;
	if (rc || tt_bpf_percpu_sum(b->maps.lost, b->percpu, b->ncpus, &out->lost))
		return tracer_error(t, "cannot read counters of '%s': %s", b->prog_name,
				    strerror(errno));
	/* The handler saw a lost event too: it is a hit that could not be kept. */
	if (out->hits >= 0)
		out->hits += out->lost;
	return 0;
}

/* Counted by the kernel since the load; the core takes differences. */
int tt_bpf_prog_stats(struct tracer *t, struct tt_prog_stats *out)
{
	struct tt_bpf *b = t->priv;
	struct bpf_prog_info info;
	uint32_t len = sizeof(info);
	int fd = b && b->prog ? bpf_program__fd(b->prog) : -1;

	memset(&info, 0, sizeof(info));
	if (fd < 0)
		return tracer_error(t, "no BPF program loaded for '%s'", t->name);
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return tracer_error(t, "cannot read the counters of BPF program '%s': %s",
				    b->prog_name, strerror(errno));
	out->run_ns = info.run_time_ns;
	out->run_cnt = info.run_cnt;
	return TT_OK;
}

void tt_bpf_release(struct tt_bpf *b)
{
	if (b->tgid)
		*b->tgid = 0;
	bpf_link__destroy(b->link);
	b->link = NULL;
	tt_bpf_reader_stop(b->reader);
	b->reader = NULL;
	if (b->skel)
		b->destroy(b->skel);
	b->skel = NULL;
	b->tgid = NULL;
}

void tt_bpf_teardown(struct tracer *t)
{
	struct tt_bpf *b = t->priv;

	if (!b)
		return;
	tt_bpf_release(b);
	free(b->percpu);
	free(b);
	t->priv = NULL;
}
