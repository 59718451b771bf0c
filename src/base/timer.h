/*
 * The per-call timer of --latency and of `tracetax clocks`: one read of the
 * TSC between two lfences. The first lets everything before it finish, the
 * second keeps what follows from starting before the read. Not rdtscp:
 * CPUID hides it in some guests (this 2-vCPU VM), lfence;rdtsc is on every
 * x86-64, and on AMD the kernel makes lfence dispatch-serialising. Without
 * a TSC, the vDSO's CLOCK_MONOTONIC in ns. Shared by tracetax-load (built
 * without tracetax's libraries) and tracetax: header only.
 */
#ifndef TRACETAX_TIMER_H
#define TRACETAX_TIMER_H

#include <stdint.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define TIMER_TSC 1
#define TIMER_NAME "lfence;rdtsc;lfence"
#else
#include <time.h>
#define TIMER_NAME "CLOCK_MONOTONIC"
#endif

/* Ticks: TSC cycles, or ns without a TSC. */
static inline __attribute__((always_inline)) uint64_t timer_read(void)
{
#ifdef TIMER_TSC
	uint64_t t;

	_mm_lfence();
	t = __rdtsc();
	_mm_lfence();
	return t;
#else
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
#endif
}

#endif
