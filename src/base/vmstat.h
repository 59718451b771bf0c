/*
 * What the machine did to a run, read around it on the workload's CPUs:
 * the hypervisor's steal time (/proc/stat) and the CPU clock (cpufreq's
 * scaling_cur_freq, else /proc/cpuinfo's "cpu MHz"). A VM that lost a
 * slice of a rep to another guest, or a CPU that changed its clock, widens
 * the CI; these say why.
 */
#ifndef TRACETAX_VMSTAT_H
#define TRACETAX_VMSTAT_H

#include <stdint.h>

#define VMSTAT_MAX_CPUS 1024

struct vmstat {
	int cpus[VMSTAT_MAX_CPUS];
	int ncpus;
	long hz;                  /* USER_HZ: the unit of /proc/stat */
};

struct vm_sample {
	uint64_t steal;           /* ticks, summed over the CPUs; UINT64_MAX: unknown */
	double mhz;               /* mean over the CPUs; NaN: unknown */
};

/* For a workload of @threads threads. */
void vmstat_init(struct vmstat *v, int threads);
void vmstat_sample(const struct vmstat *v, struct vm_sample *s);
/* Steal between two samples, ms; NaN when unknown. */
double vmstat_steal_ms(const struct vmstat *v, const struct vm_sample *a,
		       const struct vm_sample *b);

#endif
