/*
 * Every tracing consumer on this machine, found read only (scan.c): the
 * scanners of this folder in turn, into one list (consumers.h). What is
 * this process's is left out, as base/activity.h does.
 */
#ifndef TRACETAX_ATTACH_SCAN_H
#define TRACETAX_ATTACH_SCAN_H

#include "attach/consumers.h"

/* 0, or -1 with errno (out of memory). What cannot be read is flagged in @l. */
int att_scan(struct att_list *l);
void att_release(struct att_list *l);

#endif
