/*
 * Readers of a tracefs instance's ring buffer, one thread per CPU, consuming
 * per_cpu/cpuN/trace_pipe_raw the way trace-cmd record does: page by page,
 * with read(2) into our memory or with splice(2) through a pipe; or, since
 * Linux 6.10, in place, with the buffer mapped into our memory. Or one
 * thread on the instance's text trace_pipe, as `cat trace_pipe` reads it:
 * the kernel formats every event, and wakes the reader for each.
 */
#ifndef TRACETAX_FTRACE_READER_H
#define TRACETAX_FTRACE_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tracefs_instance;
struct ftrace_readers;

enum ftr_mode {
	FTR_READ,    /* read(2) each page, count its records (libtraceevent kbuffer) */
	FTR_SPLICE,  /* splice(2) each page into a pipe, then into /dev/null */
	FTR_MMAP,    /* map the buffer, take sub-buffers with the reader ioctl, parse in place */
	FTR_PIPE,    /* one thread: read(2) the text trace_pipe, count its lines */
};

struct ftr_totals {
	int64_t events;   /* records parsed (FTR_READ, FTR_MMAP), lines (FTR_PIPE); else -1 */
	int64_t pages;    /* pages read or spliced */
	int64_t bytes;    /* bytes read or spliced */
	uint64_t cpu_ns;  /* CPU time of all reader threads, drain included */
	/*
	 * FTR_MMAP: the meta pages' counters after the drain, summed over CPUs
	 * (else -1): every record written, those overwritten, those read.
	 */
	int64_t meta_entries, meta_overrun, meta_read;
};

/*
 * Whether the kernel lets us map a per-CPU buffer of @inst (Linux 6.10+):
 * 0, or -1 and the kernel's refusal in @reason.
 */
int ftr_mmap_probe(struct tracefs_instance *inst, char *reason, size_t len);

/*
 * Open every CPU's trace_pipe_raw of @inst (FTR_PIPE: its trace_pipe) and
 * start its reader thread.
 * NULL with a message in @err on failure (nothing left running). @stall
 * (a test switch): the readers consume nothing until ftr_finish()'s drain,
 * so that a small buffer loses events whatever the machine.
 */
struct ftrace_readers *ftr_start(struct tracefs_instance *inst, enum ftr_mode mode, bool stall,
				 char *err, size_t len);

/*
 * Call after tracing_on=0: each thread drains what is left, exits and is
 * joined; fds closed, memory freed, *@r set to NULL. NULL-safe. Returns 0,
 * or -1 with a message in @err if a reader failed (totals still filled).
 */
int ftr_finish(struct ftrace_readers **r, struct ftr_totals *out, char *err, size_t len);

#endif
