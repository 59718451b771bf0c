/*
 * BPF programs and perf events (bpf.c): each tracing program by id, what
 * it is attached to and who holds it (@f: every process's tracing fds);
 * the perf events that processes hold without a program, with their
 * counts. 0, or -1 out of memory.
 */
#ifndef TRACETAX_ATTACH_BPF_H
#define TRACETAX_ATTACH_BPF_H

#include "attach/procfs.h"

int att_bpf_scan(struct att_list *l, const struct att_fds *f);
int att_perf_scan(struct att_list *l, const struct att_fds *f);

#endif
