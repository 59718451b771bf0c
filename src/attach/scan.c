/*
 * Every consumer (scan.h): each source has its scanner, procfs.c (/proc:
 * fds, ptrace, seccomp), bpf.c (programs, links, pins, perf events),
 * ftrace.c (tracefs, audit). A source that cannot be read flags the list
 * and the others go on.
 */
#include <errno.h>
#include <string.h>

#include "attach/bpf.h"
#include "attach/ftrace.h"
#include "attach/procfs.h"
#include "attach/scan.h"
#include "base/utf8.h"

/*
 * What other processes named (a comm is anyone's to set: "\xff" too, an
 * instance's or a pin's name, a command line) as valid UTF-8: JSON and
 * Prometheus labels hold nothing else
 */
static void scrub(struct att_consumer *c)
{
	utf8_scrub(c->key, sizeof(c->key));
	utf8_scrub(c->what, sizeof(c->what));
	utf8_scrub(c->name, sizeof(c->name));
	utf8_scrub(c->pin, sizeof(c->pin));
	utf8_scrub(c->target_comm, sizeof(c->target_comm));
	for (int i = 0; i < c->nholders; i++) {
		utf8_scrub(c->holders[i].comm, sizeof(c->holders[i].comm));
		utf8_scrub(c->holders[i].cmdline, sizeof(c->holders[i].cmdline));
	}
}

int att_scan(struct att_list *l)
{
	struct att_fds *fds = NULL;
	int err = 0;

	memset(l, 0, sizeof(*l));
	if (att_fds_scan(&fds, l) || att_bpf_scan(l, fds) || att_perf_scan(l, fds) ||
	    att_task_scan(l) || att_ftrace_scan(l, fds) || att_audit_scan(l))
		err = errno ? errno : ENOMEM;
	for (size_t i = 0; !err && i < l->n; i++)
		scrub(&l->v[i]);
	att_fds_release(fds);
	if (err) {
		att_release(l);
		errno = err;
		return -1;
	}
	return 0;
}

