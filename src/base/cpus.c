#include <sched.h>

#include "base/cpus.h"

int cpus_allowed(int *cpus, int max)
{
	cpu_set_t set;
	int n = 0;

	if (sched_getaffinity(0, sizeof(set), &set))
		return 0;
	for (int c = 0; c < CPU_SETSIZE && n < max; c++)
		if (CPU_ISSET(c, &set))
			cpus[n++] = c;
	return n;
}

int cpus_pin_self(int cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		return 0;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);	/* 0: the calling thread */
}

int cpus_of_workload(int threads, int *cpus, int max)
{
	int n = cpus_allowed(cpus, max);

	return threads < n ? threads : n;
}
