/* The ring-buffer reader of the BPF tracers' ringbuf variant (bpf_ring.c). */
#ifndef TRACETAX_BPF_RING_H
#define TRACETAX_BPF_RING_H

#include <stddef.h>
#include <stdint.h>

struct bpf_reader;

/* Start a thread that consumes BPF ringbuf map @map_fd as records arrive. */
struct bpf_reader *bpf_reader_start(int map_fd, char *err, size_t len);
/* Before a run: zero the record count, note the thread's CPU time. */
void bpf_reader_reset(struct bpf_reader *r);
/*
 * After a run, once no producer can submit any more: consume everything
 * left, then report records consumed and the reader's CPU ns since reset.
 */
int bpf_reader_drain(struct bpf_reader *r, int64_t *records, double *cpu_ns,
		     char *err, size_t len);
/* Join the thread and free everything; NULL is fine. */
void bpf_reader_stop(struct bpf_reader *r);

#endif
