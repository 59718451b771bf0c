/*
 * ftrace and audit consumers (ftrace.c): the top level and each instance
 * with events or a tracer on, their readers (@f: every process's tracing
 * fds), dynamic events; audit rules where audit is on. 0, or -1 out of
 * memory.
 */
#ifndef TRACETAX_ATTACH_FTRACE_H
#define TRACETAX_ATTACH_FTRACE_H

#include "attach/procfs.h"

int att_ftrace_scan(struct att_list *l, const struct att_fds *f);
int att_audit_scan(struct att_list *l);

#endif
