/*
 * The box's syscall slow path (slowpath.c): whether a fresh task on this
 * boot takes it, and why (results.h, struct slow_path); and the refusal of
 * a tracer that would leave the audit residue on a boot that never had it.
 */
#ifndef TRACETAX_SLOWPATH_H
#define TRACETAX_SLOWPATH_H

#include <stdbool.h>
#include <stddef.h>

#include "results/results.h"

/*
 * Reads @sp: a BPF program on task_newtask reads the flags of a child this
 * thread forks; audit's state over netlink (read only); the consumers of an
 * enabled syscall tracepoint (attach/scan.h). When there is a cause, a
 * fresh process's getpid, and with the audit residue on a box whose audit
 * is nobody's (no auditd registered, no rule loaded), the same with a
 * `-a never,task` rule of ours loaded for the while (saved first, as the
 * audit cells save it: `tracetax cleanup` takes it out after a SIGKILL).
 */
void slowpath_probe(struct slow_path *sp);

/*
 * Whether @tracer (TT_F_RESIDUE: enabling it gives every task started until
 * reboot the syscall audit slow path) must be refused here without
 * --accept-audit-residue: on the machine itself (not in a guest of
 * --kernel), audit off and this boot's fresh tasks without an audit
 * context, or that not knowable. true with one line in @msg naming it, what
 * it would leave, and this box's fresh getpid now; false where it leaves
 * nothing new, or where the audit cells skip anyway (not root, no audit, a
 * box whose audit is someone's).
 */
bool slowpath_residue_refused(const char *tracer, char *msg, size_t len);

#endif
