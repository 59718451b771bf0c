#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/cpuinfo.h"
#include "base/cpus.h"
#include "base/util.h"
#include "base/vmstat.h"

void vmstat_init(struct vmstat *v, int threads)
{
	v->ncpus = cpus_of_workload(threads, v->cpus, VMSTAT_MAX_CPUS);
	v->hz = sysconf(_SC_CLK_TCK);
}

static int wanted(const struct vmstat *v, int cpu)
{
	for (int i = 0; i < v->ncpus; i++)
		if (v->cpus[i] == cpu)
			return 1;
	return 0;
}

/* "cpuN user nice system idle iowait irq softirq steal ...": the 8th value. */
static uint64_t read_steal(const struct vmstat *v)
{
	char line[512];
	uint64_t total = 0;
	int seen = 0;
	FILE *f = fopen("/proc/stat", "re");

	if (!f)
		return UINT64_MAX;
	while (fgets(line, sizeof(line), f) && !strncmp(line, "cpu", 3)) {
		unsigned long long st;
		int cpu;

		if (sscanf(line, "cpu%d %*u %*u %*u %*u %*u %*u %*u %llu", &cpu, &st) == 2 &&
		    wanted(v, cpu)) {
			total += st;
			seen++;
		}
	}
	fclose(f);
	return seen ? total : UINT64_MAX;
}

struct mhz { const struct vmstat *v; double sum; int seen; };

static int add_mhz(int cpu, const char *key, const char *value, void *arg)
{
	struct mhz *m = arg;

	if (!strcmp(key, "cpu MHz") && wanted(m->v, cpu)) {
		m->sum += strtod(value, NULL);
		m->seen++;
	}
	return 0;
}

static double cpuinfo_mhz(const struct vmstat *v)
{
	struct mhz m = { v, 0, 0 };

	cpuinfo_each(add_mhz, &m);
	return m.seen ? m.sum / m.seen : NAN;
}

static double read_mhz(const struct vmstat *v)
{
	double sum = 0;

	for (int i = 0; i < v->ncpus; i++) {
		char path[96], buf[32];

		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_cur_freq",
			 v->cpus[i]);
		if (read_file_str(path, buf, sizeof(buf)))
			return cpuinfo_mhz(v);	/* no cpufreq (usual in a VM) */
		sum += strtod(buf, NULL) / 1000;	/* kHz */
	}
	return v->ncpus ? sum / v->ncpus : NAN;
}

void vmstat_sample(const struct vmstat *v, struct vm_sample *s)
{
	s->steal = read_steal(v);
	s->mhz = read_mhz(v);
}

double vmstat_steal_ms(const struct vmstat *v, const struct vm_sample *a,
		       const struct vm_sample *b)
{
	if (a->steal == UINT64_MAX || b->steal == UINT64_MAX || b->steal < a->steal || v->hz <= 0)
		return NAN;
	return (double)(b->steal - a->steal) * 1000.0 / (double)v->hz;
}
