/* The run-time syscall check: what a workload's ops really make (syscheck.c). */
#ifndef TRACETAX_SYSCHECK_H
#define TRACETAX_SYSCHECK_H

#include <stddef.h>

enum { SYSCHECK_OK, SYSCHECK_UNCHECKED, SYSCHECK_MISMATCH };

/*
 * Once per run and workload (later calls answer from the first): OK with
 * the syscall seen in @seen; UNCHECKED (no syscall, or no BPF here: @reason
 * says why, @seen ""); MISMATCH, @reason naming the syscall the kernel saw.
 */
int syscheck_workload(const char *workload, const char *load_path, char *seen, size_t seen_len,
		      char *reason, size_t len);

#endif
