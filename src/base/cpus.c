#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

int cpus_parse_list(const char *list, const char *opt, cpu_set_t *set, char *err, size_t len)
{
	cpu_set_t ours;
	const char *p = list;

	CPU_ZERO(set);
	if (sched_getaffinity(0, sizeof(ours), &ours))
		CPU_ZERO(&ours);
	if (!*p) {
		snprintf(err, len, "empty CPU list (%s)", opt);
		return -1;
	}
	while (*p) {
		char *end;
		long a = strtol(p, &end, 10), b = a;

		if (end == p || a < 0 || a >= CPU_SETSIZE)
			goto bad;
		if (*end == '-') {
			p = end + 1;
			b = strtol(p, &end, 10);
			if (end == p || b < a || b >= CPU_SETSIZE)
				goto bad;
		}
		for (long c = a; c <= b; c++) {
			if (!CPU_ISSET(c, &ours)) {
				snprintf(err, len, "no CPU %ld to run on (%s '%s')", c, opt, list);
				return -1;
			}
			CPU_SET(c, set);
		}
		if (*end == ',' && end[1])
			end++;
		else if (*end)
			goto bad;
		p = end;
	}
	return 0;
bad:
	snprintf(err, len, "invalid CPU list '%s' (%s: 0,2-3)", list, opt);
	return -1;
}

int cpus_restrict(const cpu_set_t *set, cpu_set_t *old)
{
	if (old && sched_getaffinity(0, sizeof(*old), old))
		return -1;
	return sched_setaffinity(0, sizeof(*set), set);
}
