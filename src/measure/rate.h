/*
 * tracetax rate: the highest event rate a tracer's consumer keeps up with.
 *
 * A flat-out loop outruns a slow consumer at once, and a run shorter than
 * the consumer's buffer never waits for it: neither says what rate the
 * consumer sustains. Here a paced load (tracetax-load --rate) makes the
 * events of a step at each rate of a rising list, under each tracer set
 * up once; a step is kept when the tracer saw every event (hits ==
 * events), lost none, and the kernel never held the load back on a full
 * buffer (audit: backlog_wait_time_actual). A tracer climbs until its
 * first step that is not kept.
 *
 * A step is RATE_BACKLOGS buffers' worth of events, so that a consumer
 * slower than the rate by a third fills the buffer within it. With the
 * buffer fixed (Debian's 8192 audit records) a step at SYNC's ~50
 * records a second would last 8 minutes; by default the step lasts
 * --step-ms and the buffer is sized to a third of it (the tracer's
 * buffer_events), which keeps that rule and bounds the time: a kept step
 * lasts --step-ms, one that fails by 2x about twice as long.
 */
#ifndef TRACETAX_RATE_H
#define TRACETAX_RATE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "tracers/tracer.h"

#define RATE_MAX_STEPS 24
#define RATE_MAX_TRACERS 16
#define RATE_BACKLOGS 3
#define RATE_STEP_MS_DEFAULT 1000
/*
 * The fewest events a step: a buffer of 64, the kernel's default backlog.
 * A smaller one fills on any pause of the consumer (a busy box's
 * scheduling), which says nothing of the rate it sustains.
 */
#define RATE_RECORDS_MIN (RATE_BACKLOGS * 64)

struct rate_args {
	const char *workload;
	char tracers[RATE_MAX_TRACERS][TT_NAME_MAX];
	int ntracers;
	int64_t rates[RATE_MAX_STEPS];    /* events a second, rising */
	int nrates;
	int64_t records;                  /* events a step; 0: from --step-ms or --backlog */
	int64_t backlog;                  /* the buffer in events; 0: records / RATE_BACKLOGS */
	int step_ms;                      /* a step's length when neither is given */
	bool all;                         /* every rate, also after the first not kept */
	bool quiet, help;
	bool accept_residue;              /* --accept-audit-residue (slowpath.h) */
	int wait_s;                       /* the machine's lock (--wait); LOCK_NOWAIT */
};

enum rate_verdict {
	RATE_KEPT,      /* every event seen, none lost, no wait */
	RATE_LOST,      /* the kernel dropped events */
	RATE_WAIT,      /* the kernel held the load back on a full buffer */
	RATE_SLOW,      /* the load could not make the rate (its syscalls cost too much) */
	RATE_MISSED,    /* fewer hits than events, with no loss counted */
	RATE_FAILED,    /* the run failed: the reason is the tracer's */
};

struct rate_step {
	int64_t rate;             /* asked, events a second */
	double reached;           /* events / the paced loop's time, events a second */
	int64_t events, hits, lost;
	int64_t backlog;          /* the buffer the step ran with, events */
	int64_t waited;           /* the kernel's count of the load held back (audit: jiffies
	                             of backlog_wait_time_actual); -1: the tracer cannot tell */
	double consumer_ns;       /* the consumer's CPU per event (audit: auditd); NaN: none */
	double kernel_consumer_ns; /* the kernel thread's feeding it (kauditd); NaN: none */
	double seconds;           /* the step, spawn to the last record counted */
	enum rate_verdict verdict;
};

struct rate_tracer {
	char name[TT_NAME_MAX];
	int status;               /* TT_OK, TT_SKIP, TT_FAIL */
	char reason[256];         /* skipped or failed: why */
	char note[TT_REASON_MAX]; /* what the tracer said */
	struct rate_step steps[RATE_MAX_STEPS];
	int nsteps;
	int kept;                 /* the highest step kept below the first not kept; -1 */
	int first_bad;            /* the first step not kept; -1: none */
};

struct rate_results {
	struct rate_args args;
	struct rate_tracer tr[RATE_MAX_TRACERS];
	int ntr;
};

extern const char *const rate_verdict_names[];

/* `tracetax rate` options (cli/rate_cli.c); -1 and one line in @err. */
int rate_parse(int argc, char **argv, struct rate_args *a, char *err, size_t len);
/* Every tracer's climb; EXIT_OK, EXIT_FAILED when one failed, 128 + N when interrupted. */
int rate_run(const struct rate_args *a, const char *load_path, struct rate_results *r,
	     FILE *progress);

#endif
