/*
 * Which stored cells stand for a host's cost of tracer T on workload W:
 * the one rule that budget's cost per event, the repeat interval's drift
 * between runs, `history --by` and `compare` ask (stand.c).
 *
 * A cell stands for the cost on the host that measured it when
 *  - it is ok and undisturbed, with an interval;
 *  - it was not measured in a VM of `run --kernel` (environment.vm): a
 *    guest has the host's hostname and, when `make debian-kernel` fetched
 *    the kernel the host runs, its kernel release too, and under TCG its
 *    ns are emulation's (x10), not a cost; under qemu's -icount its
 *    figures are instructions (environment.unit), never a host's ns;
 *  - it hooked its workload's own event, not a `--target` collateral one,
 *    unless that target is asked for;
 *  - it was made with the settings asked, by default tracetax's: the
 *    tracer on the workload's CPU (--tracer-cpu same: ptrace's helper on
 *    another CPU costs some 20x more), the tcp workloads' own message size
 *    (no --msg-size), no --latency.
 * It stands for *this* host's cost when it was also measured on this
 * hostname (and machine, where both runs know it) and kernel.
 */
#ifndef TRACETAX_STORE_STAND_H
#define TRACETAX_STORE_STAND_H

#include <stdbool.h>
#include <stdint.h>

#include "results/results.h"
#include "store/db.h"

/* What is asked; NULL (0) fields match anything. */
struct stand_query {
	/* whose cost: NULL matches any host, and the caller keys the cells by theirs */
	const char *hostname, *kernel;
	const char *kernel_glob;  /* or kernels matching this shell glob */
	const char *host_id;      /* the machine-id's hash; a run that does not know its own matches */
	bool guests;              /* also cells of VM guests: they stand for that VM's cost, not
	                             the host's, and the caller keys them apart (history --by) */
	const char *version;      /* tracetax's version */
	const char *since, *until;   /* ISO 8601 UTC: runs started in [since, until) */
	const char *tracer;       /* exactly this tracer */
	const char *tracer_glob;  /* or tracers matching this shell glob */
	const char *workload;
	int threads;              /* 0: any */
	const char *target;       /* NULL: the workload's own event only; else that target */
	bool any_target;          /* every target, each cell the cost of its own (the caller keys
	                             cells by target: a rerun of a collateral cell is one too) */
	int runs;                 /* the newest N runs that have such a cell; 0: all */
	/* the settings the cells were made with; 0 (NULL): the defaults, this host's cost */
	const char *tracer_cpu;   /* --tracer-cpu: NULL or "same", "other", "any" */
	int msg_size;             /* --msg-size; 0 or TCP_MSG_DEFAULT: the default */
	bool latency;             /* --latency */
};

/* One cell that stands, with its run. */
struct stand_cell {
	int64_t run_id;
	int idx;                  /* its index among its document's cells */
	char started[32], hostname[64], host_id[32], kernel[128], version[64];
	char vm[24];              /* "", "kvm", "tcg", or "tcg icount": its figures instructions */
	char tracer[TT_NAME_MAX], workload[TT_NAME_MAX], target[128];
	int threads, reps;
	int64_t events;
	double ns, lo, hi;        /* overhead per event and its 95% CI */
	double consumer_ns;       /* NaN: none */
	struct cell_rules rules;  /* an audit:rules cell's rule set; file "": none or not known */
};

/*
 * The cells @q asks for that stand, newest run first and in each run in
 * the plan's order: @fn on each (its non-zero return stops the walk and
 * is returned). 0, or -1 with one line in @err.
 */
int store_stand_walk(struct store *s, const struct stand_query *q,
		     int (*fn)(const struct stand_cell *c, void *arg), void *arg, char *err,
		     size_t errlen);

/*
 * The same rule on two documents' environments: whether their cells stand
 * for the same host's costs (hostname, kernel, and neither or the same kind
 * of VM guest). false with what differs in @why.
 */
bool stand_same_host(const struct environment *a, const struct environment *b, char *why,
		     size_t len);

#endif
