/*
 * The owners of the attached consumers (attached.h): each row goes to its
 * first holder, the process that holds its fd or supervises it. A seccomp
 * filter with no supervisor belongs to the filtered process itself; a
 * consumer nobody holds (a pinned program, an instance with no reader) is
 * the "unknown owner"'s, pid 0.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "results/attached.h"

static struct att_proc owner_of(const struct att_row *r)
{
	struct att_proc p;

	if (r->c.nholders)
		return r->c.holders[0];
	memset(&p, 0, sizeof(p));
	if (r->c.kind == ATT_SECCOMP) {
		p.pid = r->c.target;
		memcpy(p.comm, r->c.target_comm, sizeof(p.comm));
		return p;
	}
	strcpy(p.comm, "unknown owner");
	return p;
}

void attached_owners(struct attached *a)
{
	free(a->owners);
	a->owners = calloc((size_t)a->nrows + 1, sizeof(*a->owners));
	a->nowners = 0;
	if (!a->owners)
		die("out of memory");
	for (int i = 0; i < a->nrows; i++) {
		const struct att_row *r = &a->rows[i];
		struct att_proc p = owner_of(r);
		struct att_owner *o = NULL;

		for (int k = 0; k < a->nowners && !o; k++)
			if (a->owners[k].p.pid == p.pid)
				o = &a->owners[k];
		if (!o) {
			o = &a->owners[a->nowners++];
			o->p = p;
		}
		o->nrows++;
		if (isfinite(r->rate))
			o->rate += r->rate;
		else
			o->nuncounted++;
		if (r->run_cnt > 0 && r->seconds > 0)
			o->prog_ns_total += r->run_ns / r->seconds;
	}
}

void attached_release(struct attached *a)
{
	free(a->rows);
	free(a->owners);
	a->rows = NULL;
	a->owners = NULL;
	a->nrows = a->nowners = 0;
}
