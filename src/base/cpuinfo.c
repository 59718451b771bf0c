/* /proc/cpuinfo (base/cpuinfo.h). */
#include <stdlib.h>
#include <string.h>

#include "base/cpuinfo.h"

int cpuinfo_parse(FILE *f, cpuinfo_fn fn, void *arg)
{
	char *line = NULL, *colon, *end;
	size_t cap = 0;
	int cpu = -1, ret = 0;

	while (!ret && getline(&line, &cap, f) > 0) {
		if (!(colon = strchr(line, ':')))
			continue;
		end = colon;
		while (end > line && (end[-1] == ' ' || end[-1] == '\t'))
			end--;
		*end = '\0';
		colon += 1 + strspn(colon + 1, " \t");
		colon[strcspn(colon, "\n")] = '\0';
		if (!strcmp(line, "processor"))
			cpu = atoi(colon);
		ret = fn(cpu, line, colon, arg);
	}
	free(line);
	return ret;
}

int cpuinfo_each(cpuinfo_fn fn, void *arg)
{
	FILE *f = fopen("/proc/cpuinfo", "re");
	int ret;

	if (!f)
		return -1;
	ret = cpuinfo_parse(f, fn, arg);
	fclose(f);
	return ret;
}

struct find { const char *key; char *buf; size_t len; };

static int find_value(int cpu, const char *key, const char *value, void *arg)
{
	struct find *x = arg;

	(void)cpu;
	if (strcmp(key, x->key))
		return 0;
	snprintf(x->buf, x->len, "%s", value);
	return 1;
}

int cpuinfo_value(const char *key, char *buf, size_t len)
{
	struct find x = { key, buf, len };

	return cpuinfo_each(find_value, &x) == 1 ? 0 : -1;
}

struct flag { const char *flag; bool found; };

static int find_flag(int cpu, const char *key, const char *value, void *arg)
{
	struct flag *x = arg;
	size_t n = strlen(x->flag);

	(void)cpu;
	if (strcmp(key, "flags"))
		return 0;
	for (const char *p = value; (p = strstr(p, x->flag)); p += n)
		if ((p == value || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
			x->found = true;
	return 1;	/* the first CPU's */
}

bool cpuinfo_has_flag(const char *flag)
{
	struct flag x = { flag, false };

	cpuinfo_each(find_flag, &x);
	return x.found;
}
