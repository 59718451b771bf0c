/*
 * Internal to the BPF syscall tracers: bpf.c runs the life cycle,
 * bpf_load.c loads, attaches and probes bpf/syscall.bpf.c.
 */
#ifndef TRACETAX_BPF_SYSCALL_INT_H
#define TRACETAX_BPF_SYSCALL_INT_H

#include <stddef.h>
#include <stdint.h>

#include "../tracer.h"

enum { F_TP, F_RAWTP, F_TPBTF };
/* Index into tt_bpf_variants[]. */
enum { V_COUNT, V_EMPTY, V_SHARED, V_HASH, V_RINGBUF };

extern const char *const tt_bpf_variants[];

struct syscall_bpf;
struct bpf_program;
struct bpf_link;
struct bpf_reader;

struct bpf_priv {
	int fam, var, ncpus;
	char prog_name[32];
	struct syscall_bpf *skel;
	struct bpf_program *prog;	/* the one program the cell loads */
	struct bpf_link *link;		/* attached from start() to stop() */
	struct bpf_reader *reader;	/* ringbuf variant */
	uint64_t *percpu;		/* ncpus values: per-CPU map I/O buffer */
};

int tt_bpf_family(const struct tracer *t);
int tt_bpf_variant(const struct tracer *t);
/* Open the skeleton and load only the cell's program: TT_OK, TT_SKIP, TT_FAIL. */
int tt_bpf_load(struct bpf_priv *p, const struct tt_syscall *target, uint32_t ring_bytes,
		int threads, char *err, size_t len);
int tt_bpf_attach(struct bpf_priv *p, const struct tt_syscall *target, char *err, size_t len);
void tt_bpf_detach(struct bpf_priv *p);
/* Detach, stop the reader, destroy the skeleton; safe after a partial load. */
void tt_bpf_release(struct bpf_priv *p);
/* supported(): capabilities, program type, hook, then a trial load and attach. */
int tt_bpf_supported(const struct tracer *t, char *reason, size_t len);

#endif
