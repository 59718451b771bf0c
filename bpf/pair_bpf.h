/*
 * What bpf/pair.bpf.c and src/pair.c share (libbpf-bootstrap's X.h): the
 * per-CPU counters and the histogram's layout, that of src/hist.h (src/pair.c
 * checks that they agree). User space includes <linux/types.h> first.
 */
#ifndef TRACETAX_PAIR_BPF_H
#define TRACETAX_PAIR_BPF_H

/* ST_LOCK_CAS: ST_LOCK where the kernel refuses its locks to tracing programs */
enum { ST_GLOBAL, ST_PERCPU, ST_HASH, ST_LOCK, ST_LOCK_CAS };
enum { CLK_KTIME, CLK_BOOT, CLK_COARSE };

#define PAIR_HIST_SUB_BITS 6
#define PAIR_HIST_MAX_EXP 36
#define PAIR_HIST_BUCKETS ((PAIR_HIST_MAX_EXP - PAIR_HIST_SUB_BITS + 1) << PAIR_HIST_SUB_BITS)

/* A stored start: its time and its thread. */
struct slot {
	__u64 ts;
	__u32 tid;
	__u32 pad;
};

struct pair_stats {
	__u64 starts, ends;	/* hits of each probe in the workload */
	__u64 paired;		/* ends that found their own thread's start */
	__u64 overwritten;	/* ends that found another thread's start */
	__u64 unpaired;		/* ends that found none */
	__u64 sum, max;		/* of the delays, ns */
	__u64 min1;		/* the smallest delay + 1; 0: none yet (a coarse clock gives 0s) */
};

#endif
