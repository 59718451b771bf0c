/*
 * Small pieces shared by the BPF probe tracers (bpf_uprobe.c, bpf_kernel.c):
 * libbpf's messages, capabilities, per-CPU counters, cached kernel probes.
 */
#ifndef TRACETAX_BPF_UTIL_H
#define TRACETAX_BPF_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "../tracer.h"

struct bpf_map;

/* Route libbpf's output to debug() and keep its first warning; clears it. */
void tt_libbpf_capture(void);
/* libbpf's first warning since tt_libbpf_capture(), "" if none. */
const char *tt_libbpf_msg(void);

/* "Operation not permitted (EPERM)": what the kernel said, and its name. */
const char *tt_errstr(int e, char *buf, size_t len);

/* 1 if we may load tracing programs; else 0 and the reason. */
int tt_bpf_caps_ok(char *reason, size_t len);

/* Sum a one-slot per-CPU u64 map (@buf: libbpf_num_possible_cpus() slots). */
int tt_percpu_sum(struct bpf_map *map, uint64_t *buf, int ncpus, int64_t *sum);
int tt_percpu_zero(struct bpf_map *map, uint64_t *buf, int ncpus);

/* A u32 tid -> u64 count hash: sum its values, or with @clear, empty it. */
int tt_tid_counts(struct bpf_map *map, int clear, int64_t *sum);

/* Bytes of the ringbuf variant's ring for @events_hint events (TRACETAX_RINGBUF_BYTES). */
int tt_ring_size(int64_t events_hint, uint32_t *out, char *err, size_t len);

/*
 * A kernel probe's verdict, kept for the life of the process: `tracetax
 * list` asks supported() for every variant, and a probe loads and attaches
 * programs. @key names what was probed ("kprobe:__x64_sys_getpid").
 */
struct tt_probe_memo {
	char key[96];
	int rc;
	char reason[TT_REASON_MAX];
};

/* The memo for @key: found (returns 1) or a fresh slot to fill (returns 0). */
int tt_probe_memo(const char *key, struct tt_probe_memo **out);

#endif
