/*
 * tracetax pair: two BPF probes that fire back to back on the workload's
 * syscall path, and the delay between them, per place the start timestamp
 * is stored and per thread count (bpf/pair.bpf.c says why).
 */
#ifndef TRACETAX_PAIR_H
#define TRACETAX_PAIR_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "base/hist.h"

enum pair_storage { PAIR_GLOBAL, PAIR_PERCPU, PAIR_HASH, PAIR_LOCK, PAIR_NSTORAGE };
enum pair_clock { PAIR_KTIME, PAIR_BOOT, PAIR_COARSE, PAIR_NCLOCK };
enum pair_kind { PAIR_ENTER, PAIR_SYSCALL, PAIR_FUNC, PAIR_NKIND };

#define PAIR_MAX 16

extern const char *const pair_storage_names[PAIR_NSTORAGE];  /* "global", "percpu", ... */
extern const char *const pair_clock_names[PAIR_NCLOCK];      /* "ktime", "boot", "coarse" */
extern const char *const pair_clock_helpers[PAIR_NCLOCK];    /* "bpf_ktime_get_ns", ... */
extern const char *const pair_kind_names[PAIR_NKIND];        /* "enter", "syscall", "func" */

struct pair_args {
	const char *workload;
	enum pair_kind kind;
	enum pair_clock clock;
	int storages[PAIR_NSTORAGE];
	int nstorages;
	int threads[PAIR_MAX];
	int nthreads;
	int64_t iterations;       /* per thread */
	const char *json_path;
	bool quiet, help;
	int wait_s;               /* for the machine's lock (--wait); 0: --no-wait */
	const char *kernel;       /* --kernel: in a VM of this image (measure/vm.h) */
	const char *kernel_modules;
	int argc;                 /* the command line parsed, for the VM's guest */
	char **argv;
};

/* One (storage, threads): a run of the workload with the pair attached. */
struct pair_cell {
	enum pair_storage storage;
	int threads;
	int status;               /* TT_OK, TT_SKIP, TT_FAIL */
	char reason[512];         /* why skipped or failed */
	char note[512];           /* ok: what the kernel refused first (fentry, its lock);
	                             as large as reason: copied from it */
	const char *lock;         /* PAIR_LOCK: "bpf_res_spin_lock" or "cmpxchg"; else NULL */
	int64_t events;           /* target events the workload made */
	int64_t starts, ends;     /* each probe's hits in the workload */
	int64_t paired;           /* ends that found their own thread's start: delays */
	int64_t overwritten;      /* ends that found another thread's start */
	int64_t unpaired;         /* ends that found none */
	struct hist *delay;       /* ns, when ok */
};

struct pair_results {
	struct pair_args args;
	char start_probe[96], end_probe[96];  /* what the two probes are on */
	const char *hook;         /* "tracepoint", "fentry", "kprobe" */
	struct pair_cell cells[PAIR_NSTORAGE * PAIR_MAX];
	int ncells;
};

/* `tracetax pair` options; -1 and one line in @err on a mistake. */
int pair_parse(int argc, char **argv, struct pair_args *a, char *err, size_t len);
/* Every cell; EXIT_OK, EXIT_FAILED when one failed, 128 + N when interrupted by signal N. */
int pair_run(const struct pair_args *a, const char *load_path, struct pair_results *r);
void pair_release(struct pair_results *r);


#endif
