/*
 * What the BPF tracers share: bpf.c (syscall tracepoints), bpf_uprobe.c
 * (uprobe, uretprobe, usdt) and bpf_kernel.c (fentry, kprobe) each open
 * their own skeleton and attach in their own way; the rest of a cell's
 * life -- picking the program, loading, counters, stop, teardown -- is
 * here (bpf_cell.c), with the ringbuf variant's reader (bpf_ring.c) and
 * libbpf and kernel helpers (bpf_util.c).
 */
#ifndef TRACETAX_BPF_UTIL_H
#define TRACETAX_BPF_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "tracers/tracer.h"

struct bpf_map;
struct bpf_program;
struct bpf_link;
struct bpf_object;
struct bpf_object_skeleton;
struct tt_bpf_reader;

/* Index into tt_bpf_variants[]: the handlers of bpf/common.bpf.h, in order. */
enum { TT_BPF_COUNT, TT_BPF_EMPTY, TT_BPF_SHARED, TT_BPF_HASH, TT_BPF_RINGBUF,
       TT_BPF_RINGBUF_BATCH };
#define tt_bpf_is_ring(var) ((var) == TT_BPF_RINGBUF || (var) == TT_BPF_RINGBUF_BATCH)
/* How often the ringbuf-batch reader comes by: it is never woken. */
#define TT_BPF_BATCH_MS 1

/* All five handler variants; the first is the default. */
extern const char *const tt_bpf_variants[];

/*
 * What tells a BPF family from the others its file serves (tracer_ops.data):
 * never its name. Its variants are tt_bpf_variants[] or a prefix of it, so
 * t->vidx is the TT_BPF_ value.
 */
struct tt_bpf_family {
	const char *stem;	/* its programs are tt_<stem>_<variant> */
	int hook;		/* the file's own index of the hook, what its code switches on */
	/* --explain: what the hook, the dispatch and the program's filter do */
	const char *hook_text, *dispatch_text, *filter_text;
};

/*
 * One cell's program, from setup() to teardown(): a BPF tracer's t->priv
 * is one, or begins with one (bpf_kernel.c adds the kernel function). The
 * last fields are the file's: its skeleton, given to tt_bpf_open(), and
 * tgid, which it sets after the load.
 */
struct tt_bpf {
	const struct tt_bpf_family *fam;
	int var, ncpus;			/* var: TT_BPF_ */
	int threads;			/* sizes the tid hash */
	uint32_t ring;			/* ringbuf variant: bytes of the ring */
	char prog_name[40];		/* tt_<hook>_<variant> */
	struct bpf_program *prog;	/* the one program the cell loads */
	struct bpf_link *link;		/* attached from start() to stop() */
	struct tt_bpf_reader *reader;	/* ringbuf variant */
	uint64_t *percpu;		/* ncpus slots: per-CPU map I/O */
	struct {
		struct bpf_map *pcpu_count, *shared_count, *tid_count, *lost, *events;
	} maps;
	/* The file's skeleton: bpftool's functions are per object, not generic. */
	void *skel;
	struct bpf_object_skeleton *s;	/* skel->skeleton */
	void (*destroy)(void *skel);	/* the object's X_bpf__destroy() */
	uint32_t *tgid;			/* &skel->bss->target_tgid, after load */
};

/* t's family: what its ops carry as data. */
static inline const struct tt_bpf_family *tt_bpf_family(const struct tracer *t)
{
	return t->ops->data;
}
/* Name the cell's program tt_<stem>_<variant @var>. */
void tt_bpf_init(struct tt_bpf *b, const struct tt_bpf_family *fam, int var);
/*
 * setup(): t->priv = @size zeroed bytes that begin with a struct tt_bpf,
 * initialised for t's family and variant and sized for its run; NULL and
 * t->err on failure (teardown frees what there is). TRACETAX_FAULT's
 * "verifier" puts common.bpf.h's tt_fault_verifier in place of the cell's
 * program: supported() builds its own and never sees that fault.
 */
struct tt_bpf *tt_bpf_new(struct tracer *t, size_t size);
/*
 * After X_bpf__open(): own @skel (NULL: the open failed), turn on the
 * autoload of the cell's program only -- the verifier, the kernel and the
 * caches see exactly one program -- and size the maps. 0, or -1 and @err.
 */
int tt_bpf_open(struct tt_bpf *b, void *skel, struct bpf_object_skeleton *s,
		void (*destroy)(void *), char *err, size_t len);
/*
 * Load: TT_OK, or TT_SKIP / TT_FAIL by tt_bpf_load_verdict() with @err
 * naming @what ("fentry program on 'f'"; NULL: "BPF program 'tt_x_y'").
 */
int tt_bpf_load(struct tt_bpf *b, const char *what, char *err, size_t len);
/* After setup()'s load: start the ringbuf variant's reader. */
int tt_bpf_loaded(struct tracer *t, struct tt_bpf *b);
/* start(), before the file attaches: zero the counters, filter on @pid. */
int tt_bpf_arm(struct tracer *t, pid_t pid);
/* Detach, stop the reader, destroy the skeleton; safe after a partial load. */
void tt_bpf_release(struct tt_bpf *b);
/* The stop and teardown of every BPF tracer. */
int tt_bpf_stop(struct tracer *t, struct tt_hits *out);
void tt_bpf_teardown(struct tracer *t);
/* Their prog_stats(): run_time_ns and run_cnt of the cell's program (bpf_prog_info). */
int tt_bpf_prog_stats(struct tracer *t, struct tt_prog_stats *out);
/* Their explain(): the family's texts, then the handler's. */
int tt_bpf_explain(const struct tracer *t, enum tt_step s, char *buf, size_t len,
		   const char **ref);

/*
 * The tracer_ops of a BPF tracer whose file defines <pfx>_supported,
 * <pfx>_setup and <pfx>_start: only the name, hook, text and family differ.
 */
#define TT_BPF_OPS(nm, hook_mask, text, vars, family, pfx) {		\
	.name = nm,							\
	.hooks = hook_mask,						\
	.summary = text,						\
	.variants = vars,						\
	.data = &family,						\
	.supported = pfx##_supported,					\
	.setup = pfx##_setup,						\
	.start = pfx##_start,						\
	.stop = tt_bpf_stop,						\
	.teardown = tt_bpf_teardown,					\
	.prog_stats = tt_bpf_prog_stats,				\
	.explain = tt_bpf_explain,					\
}

/* The ringbuf variant's reader: a thread that consumes ringbuf map @map_fd. */
/* @period_ms: -1, sleep until woken by a record; else consume every period_ms. */
struct tt_bpf_reader *tt_bpf_reader_start(int map_fd, int period_ms, char *err, size_t len);
/* Before a run: zero the record count, note the thread's CPU time. */
void tt_bpf_reader_reset(struct tt_bpf_reader *r);
/*
 * After a run, once no producer can submit any more: consume everything
 * left, then report records consumed and the reader's CPU ns since reset.
 */
int tt_bpf_reader_drain(struct tt_bpf_reader *r, int64_t *records, double *cpu_ns,
			char *err, size_t len);
/* Join the thread and free everything; NULL is fine. */
void tt_bpf_reader_stop(struct tt_bpf_reader *r);

/* libbpf's first warning since tt_bpf_capture(), "" if none. */
const char *tt_bpf_libbpf_msg(void);

/*
 * A verifier log (what libbpf prints after its "BEGIN PROG LOAD LOG" line):
 * its last lines that say something, " | "-joined, into @out; TT_SKIP if
 * they say the kernel lacks a helper, kfunc or instruction the program
 * uses ("unknown func bpf_ringbuf_reserve#131"), else TT_FAIL: the
 * verifier rejected the program itself ("invalid mem access").
 */
int tt_bpf_verifier_says(const char *log, char *out, size_t len);

/* 1 if we may load tracing programs; else 0 and the reason. */
int tt_bpf_caps_ok(char *reason, size_t len);

/* Sum a one-slot per-CPU u64 map (@buf: libbpf_num_possible_cpus() slots). */
int tt_bpf_percpu_sum(struct bpf_map *map, uint64_t *buf, int ncpus, int64_t *sum);
int tt_bpf_percpu_zero(struct bpf_map *map, uint64_t *buf, int ncpus);

/* A u32 tid -> u64 count hash: sum its values, or with @clear, empty it. */
int tt_bpf_tid_counts(struct bpf_map *map, int clear, int64_t *sum);

/* Bytes of the ringbuf variant's ring for @events_hint events (TRACETAX_RINGBUF_BYTES). */
int tt_bpf_ring_size(int64_t events_hint, uint32_t *out, char *err, size_t len);

/*
 * A kernel probe's verdict, kept for the life of the process: `tracetax
 * list` asks supported() for every variant, and a probe loads and attaches
 * programs. @key names what was probed ("kprobe:getpid").
 */
struct tt_bpf_memo {
	char key[96];
	int rc;
	char reason[TT_REASON_MAX];
};

/* The memo for @key: found (returns 1) or a fresh slot to fill (returns 0). */
int tt_bpf_memo(const char *key, struct tt_bpf_memo **out);

#endif
