/*
 * /proc/cpuinfo, read in one place: the CPU model (env), its flags (the
 * hypervisor bit, the TSC's), each CPU's MHz when cpufreq is absent (the
 * usual case in a VM). Lines are "key<tabs>: value", blocks per CPU start
 * with "processor"; lines of any length (flags run to ~2 KB).
 */
#ifndef TRACETAX_CPUINFO_H
#define TRACETAX_CPUINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* @fn for each line with a key, @cpu the block's "processor" (-1 before
 * the first); a nonzero return stops and is returned. -1: no file. */
typedef int (*cpuinfo_fn)(int cpu, const char *key, const char *value, void *arg);
int cpuinfo_each(cpuinfo_fn fn, void *arg);
int cpuinfo_parse(FILE *f, cpuinfo_fn fn, void *arg);   /* the same from @f */

/* The first value of @key ("model name"); -1 and @buf untouched if none. */
int cpuinfo_value(const char *key, char *buf, size_t len);
/* Whether the first CPU's "flags" has @flag, a whole word. */
bool cpuinfo_has_flag(const char *flag);

#endif
