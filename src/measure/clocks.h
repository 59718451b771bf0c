/*
 * The clocks of this machine: what a read of each costs, how fine it is,
 * whether the vDSO serves it, whether it went backwards. The first thing
 * to check when a measurement looks wrong, and what tracetax's own timing
 * rests on (`tracetax clocks`; the header of `tracetax run`).
 */
#ifndef TRACETAX_CLOCKS_H
#define TRACETAX_CLOCKS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct timing;

enum clock_vdso { VDSO_NA = -1, VDSO_NO = 0, VDSO_YES = 1, VDSO_UNKNOWN = 2 };

struct clock_source {
	const char *name;         /* "CLOCK_MONOTONIC", "gettimeofday", "rdtsc", ... */
	bool available;
	char why[128];            /* when not available: why not */
	double mean_ns;           /* one read, over a loop of reads */
	double p99_ns;            /* one read, timed one by one, the timer's own cost taken off */
	double res_ns;            /* clock_getres, or the unit; NaN: none */
	double step_ns;           /* the smallest step between two reads; NaN: none seen */
	enum clock_vdso vdso;     /* served without a syscall; VDSO_NA: an instruction */
	int64_t backwards;        /* reads smaller than the one before */
	int64_t reads;
};

#define CLOCKS_MAX 16

struct clocks_report {
	struct clock_source src[CLOCKS_MAX];
	int n;
	char current[64];         /* the kernel's clocksource */
	char available[256];      /* the ones it could use */
	char tsc_flags[128];      /* of constant_tsc nonstop_tsc tsc_reliable
	                             tsc_known_freq rdtscp, those the CPU has */
	double tsc_hz;            /* calibrated against CLOCK_MONOTONIC; 0: no TSC */
	double timer_floor_ns;    /* two timer reads back to back (timer.h) */
};

/* Every source, @reads reads each (a million for `tracetax clocks`). */
void clocks_measure(struct clocks_report *r, int64_t reads);
/* The TSC rate against CLOCK_MONOTONIC over @ms; 0 without a TSC. */
double clocks_tsc_hz(int ms);
/* What `tracetax run` times with and its cost, quickly, for its header. */
void clocks_for_run(struct timing *t);


#endif
