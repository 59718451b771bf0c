/*
 * The owners of the attached consumers (attached.h): each row goes to its
 * first holder, the process that holds its fd or supervises it. A seccomp
 * filter with no supervisor belongs to the filtered process itself; a
 * consumer nobody holds (a pinned program, an instance with no reader) is
 * the "unknown owner"'s, pid 0.
 */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "results/attached.h"

static bool perf_trace(const struct att_row *r)
{
	return r->c.kind == ATT_PERF && r->c.nholders &&
	       !strncmp(r->c.holders[0].cmdline, "perf trace", 10);
}

const char *attached_tracer_of(const struct att_row *r)
{
	static const struct { const char *mech, *tracer; } bpf[] = {
		{ "tracepoint", "bpf:tp/count" }, { "raw_tracepoint", "bpf:rawtp/count" },
		{ "tp_btf", "bpf:tpbtf/count" }, { "fentry", "bpf:fentry/count" },
		{ "fexit", "bpf:fexit/count" }, { "kprobe", "bpf:kprobe/count" },
		{ "kretprobe", "bpf:kretprobe/count" }, { "kprobe_multi", "bpf:kprobe_multi/count" },
		{ "uprobe", "bpf:uprobe/count" }, { "uretprobe", "bpf:uretprobe/count" },
	};

	switch (r->c.kind) {
	case ATT_BPF:
		for (size_t i = 0; i < sizeof(bpf) / sizeof(bpf[0]); i++)
			if (!strcmp(r->c.mech, bpf[i].mech))
				return bpf[i].tracer;
		return NULL;
	case ATT_PERF:
		/*
		 * perf trace: its tool's cost per syscall, two events each
		 * (attached_costs halves it). No other: a perf event's type
		 * cannot be read from outside, and its count may be cycles
		 * (perf stat), not hooked events (measure/attached.c)
		 */
		return perf_trace(r) ? "perf-trace" : NULL;
	case ATT_FTRACE:
		/* events only: the function tracer's cost is per function, not measured as such */
		if (strstr(r->c.what, "tracer "))
			return NULL;
		/* by the file its reader holds (attached.h's reads) */
		if (!strcmp(r->c.reads, "pipe"))
			return "ftrace:syscall/pipe";
		if (!strcmp(r->c.reads, "mmap"))
			return "ftrace:syscall/mmap";
		if (!strcmp(r->c.reads, "splice"))
			return "ftrace:syscall/splice";
		if (!strcmp(r->c.reads, "read"))
			return "ftrace:syscall/read";
		return "ftrace:syscall/noread";
	case ATT_PTRACE:
		return r->c.nholders && !strcmp(r->c.holders[0].comm, "strace") ? "strace" : "ptrace:all";
	case ATT_SECCOMP:
		return "seccomp:filter";
	case ATT_AUDIT:
		/* the rule set: its walk and records (attached_costs); audit on without a rule */
		return !strcmp(r->c.key, "audit rules") ? "audit:rules" : "audit:enabled";
	default:
		return NULL;
	}
}

/*
 * The syscall names in @what ("sys_enter_getuid", "syscalls:sys_exit_close"),
 * into @buf when they are one: true; "" with true when a raw one
 * (sys_enter, sys_exit: every syscall) or several; false when none.
 */
static bool syscall_in(const char *what, char *buf, size_t len)
{
	bool found = false, several = false;

	buf[0] = '\0';
	for (const char *p = what; (p = strstr(p, "sys_e")); p++) {
		const char *n = !strncmp(p, "sys_enter", 9) ? p + 9 : !strncmp(p, "sys_exit", 8) ?
				p + 8 : NULL;
		size_t k;

		if (!n)
			continue;
		if (p > what && (isalnum((unsigned char)p[-1]) || p[-1] == '_'))
			continue;	/* __x64_sys_exit... a function, not a tracepoint */
		found = true;
		if (*n != '_') {	/* raw: every syscall */
			several = true;
			continue;
		}
		n++;
		k = strspn(n, "abcdefghijklmnopqrstuvwxyz0123456789_");
		if (!k)
			continue;
		if (buf[0] && (strlen(buf) != k || strncmp(buf, n, k)))
			several = true;
		else if (k < len)
			snprintf(buf, len, "%.*s", (int)k, n);
	}
	if (several)
		buf[0] = '\0';
	return found;
}

bool attached_syscall_of(const struct att_row *r, char *buf, size_t len)
{
	buf[0] = '\0';
	switch (r->c.kind) {
	case ATT_BPF:
		if (strcmp(r->c.mech, "tracepoint") && strcmp(r->c.mech, "raw_tracepoint") &&
		    strcmp(r->c.mech, "tp_btf"))
			return false;
		return syscall_in(r->c.what, buf, len);
	case ATT_FTRACE:
		if (strstr(r->c.what, "tracer "))
			return false;
		return syscall_in(r->c.what, buf, len);
	case ATT_PERF:
		return perf_trace(r);
	case ATT_PTRACE:
	case ATT_SECCOMP:
		return true;
	default:
		return false;
	}
}

bool attached_box_slow_path(const struct att_row *r)
{
	char s[64];

	return (r->c.kind == ATT_BPF || r->c.kind == ATT_FTRACE || r->c.kind == ATT_PERF) &&
	       attached_syscall_of(r, s, sizeof(s));
}

static double pct(const struct attached *a, double ns_per_s)
{
	return ns_per_s / ((double)a->cpus * 1e9) * 100;
}

bool attached_audit_no_auditd(const struct attached *a)
{
	if (!a->audit_set || !a->audit_set->box.records[AUDIT_UPPER])
		return false;
	for (int i = 0; i < a->nrows; i++)
		if (a->rows[i].c.kind == ATT_AUDIT && !strcmp(a->rows[i].c.key, "audit rules"))
			return a->rows[i].c.nholders && !strcmp(a->rows[i].c.holders[0].comm, "kauditd");
	return false;
}

/*
 * No auditd: the records go to the kernel log through kauditd (printk,
 * rate-limited), a path no tracer measures; audit:rule/async's cost is an
 * auditd's, and a flat-out loop's at that, which waits on the backlog: it
 * put a rule on getuid at 122% of a 2-CPU box. What is measured: every
 * call's walk (a recorded one walks too) and kauditd's own CPU over the
 * window. Their sum is a floor, and says so; the record's own building in
 * the syscall is left out.
 */
static void audit_cost_kauditd(struct attached *a, struct att_row *r, double ev)
{
	struct budget_audit *au = a->audit_set;
	const struct budget_rates *rt = &a->rates;
	struct budget_audit_est we;
	struct att_cost *c = &r->cost;
	double own = isfinite(a->audit_owner_cpu_ns) ? a->audit_owner_cpu_ns : 0;

	/* a record is priced at the walk's cost: kauditd's path is not measured */
	budget_audit_estimate(au, rt->auid_nr, rt->nauid_nr, rt->auid_unnamed, &au->walk, &we, false);
	c->floor = true;
	snprintf(c->why, sizeof(c->why), "no auditd: the records take kauditd's path to the kernel "
		 "log, which no tracer measures: every call's walk%s, a floor",
		 isfinite(a->audit_owner_cpu_ns) ? " and kauditd's own CPU" : "");
	if (!isfinite(we.ns[AUDIT_POINT]))
		return;
	c->disp_ns = c->ns = (we.ns[AUDIT_POINT] + own) / ev;
	c->disp_lo = c->lo = (we.lo[AUDIT_POINT] + own) / ev;
	c->disp_hi = c->hi = (we.hi[AUDIT_POINT] + own) / ev;
	c->share = pct(a, (we.ns[AUDIT_POINT] + own) / rt->seconds);
	c->share_lo = pct(a, (we.lo[AUDIT_POINT] + own) / rt->seconds);
	c->share_hi = pct(a, (we.hi[AUDIT_POINT] + own) / rt->seconds);
}

/*
 * The row's note on the calls that pay nothing: a task with no audit
 * context (forked before audit was first enabled on this boot, or since
 * the box's `-a never,task` was loaded) walks no rule. The kernel keeps no
 * time of a rule's loading, so which tasks came after it is not known from
 * the rules: the counter reads each calling task's context instead.
 */
static void audit_no_ctx_note(const struct attached *a, struct att_row *r)
{
	const struct budget_audit *au = a->audit_set;
	const struct budget_audit_est *e = &au->box;
	double pct_no = e->events ? 100.0 * (double)e->no_ctx / (double)e->events : 0;

	if (au->task_never && a->rates.audit_ctx < 0)
		snprintf(r->why, sizeof(r->why), "-a never,task: tasks forked since it was loaded "
			 "have no audit context, but the tasks' contexts could not be read: every "
			 "call priced, an upper bound");
	else if (au->task_never)
		snprintf(r->why, sizeof(r->why), "-a never,task: tasks forked since it was loaded "
			 "have no audit context; %.1f%% of the calls were of such tasks (not priced), "
			 "the rest of tasks forked before it", pct_no);
	else if (e->no_ctx)
		snprintf(r->why, sizeof(r->why), "%.1f%% of the calls were of tasks with no audit "
			 "context (forked before audit was first enabled on this boot): not priced",
			 pct_no);
}

/*
 * The rule set's cost: the box's calls of the window by login uid and
 * syscall, each at the walk's cost or a record's (budget_audit_estimate,
 * as budget -t audit:rules prices a file), a call of a task with no audit
 * context at none. Per call: the point estimate's
 * mean, bounded by the lower estimate's lower and the upper's upper bound.
 */
static void audit_cost(struct attached *a, struct att_row *r)
{
	struct budget_audit *au = a->audit_set;
	const struct budget_rates *rt = &a->rates;
	struct budget_audit_est *e = &au->box;
	struct att_cost *c = &r->cost;
	double ev;

	budget_audit_estimate(au, rt->auid_nr, rt->nauid_nr, rt->auid_unnamed, NULL, e, false);
	audit_no_ctx_note(a, r);
	ev = (double)e->events;
	if (!ev || !isfinite(e->ns[AUDIT_POINT]) || rt->seconds <= 0) {
		if (!c->why[0])
			snprintf(c->why, sizeof(c->why), "%s", !au->walk.source[0] ? au->walk.reason :
				 !au->record.source[0] ? au->record.reason : "no call counted");
		return;
	}
	c->prog_ns = 0;
	if (attached_audit_no_auditd(a)) {
		audit_cost_kauditd(a, r, ev);
		return;
	}
	c->disp_ns = c->ns = e->ns[AUDIT_POINT] / ev;
	c->disp_lo = c->lo = e->lo[AUDIT_LOWER] / ev;
	c->disp_hi = c->hi = e->hi[AUDIT_UPPER] / ev;
	c->share = pct(a, e->ns[AUDIT_POINT] / rt->seconds);
	c->share_lo = pct(a, e->lo[AUDIT_LOWER] / rt->seconds);
	c->share_hi = pct(a, e->hi[AUDIT_UPPER] / rt->seconds);
}

static void row_cost(struct attached *a, struct att_row *r)
{
	struct att_cost *c = &r->cost;
	bool bpf = r->c.kind == ATT_BPF;

	c->disp_ns = c->disp_lo = c->disp_hi = c->ns = c->lo = c->hi = NAN;
	c->share = c->share_lo = c->share_hi = c->bpftop_share = NAN;
	if (!isfinite(r->rate))
		return;
	if (r->c.kind == ATT_AUDIT && !strcmp(c->tracer, "audit:rules")) {
		if (a->audit_set)
			audit_cost(a, r);
		return;
	}
	c->prog_ns = !bpf ? 0 : r->run_cnt > 0 ? r->prog_ns : 0;
	if (bpf && r->seconds > 0 && isfinite(r->run_ns))
		c->bpftop_share = pct(a, r->run_ns / r->seconds);
	if (c->tracer[0] && isfinite(c->cell_ns)) {
		double p = bpf ? c->cell_prog_ns : 0;

		/* perf trace counts sys_enter and sys_exit: the tool's cost is per pair */
		double per = !strcmp(c->tracer, "perf-trace") ? 2 : 1;

		if (isfinite(p)) {
			c->disp_ns = (c->cell_ns - p) / per;
			c->disp_lo = (c->cell_lo - p) / per;
			c->disp_hi = (c->cell_hi - p) / per;
		} else if (!c->why[0]) {
			snprintf(c->why, sizeof(c->why), "%s's own program time was not measured: "
				 "its dispatch is unknown", c->tracer);
		}
	}
	if (isfinite(c->disp_ns)) {
		c->ns = c->prog_ns + c->disp_ns;
		c->lo = c->prog_ns + c->disp_lo;
		c->hi = c->prog_ns + c->disp_hi;
	} else if (bpf && isfinite(c->prog_ns)) {
		c->floor = true;
		c->ns = c->lo = c->hi = c->prog_ns;
	}
	if (!isfinite(c->ns))
		return;
	c->share = pct(a, r->rate * c->ns);
	c->share_lo = pct(a, r->rate * c->lo);
	c->share_hi = pct(a, r->rate * c->hi);
}

/*
 * The syscalls @r sees over the counter's window (its own is the time
 * between its two reads): perf trace's events are a sys_enter and a
 * sys_exit each
 */
static double seen_syscalls(const struct att_row *r, double seconds)
{
	return r->rate * seconds / (perf_trace(r) ? 2 : 1);
}

/* The box's syscalls over the window at its pace: as many as it makes without budget's counter */
static double box_syscalls(const struct attached *a)
{
	return (double)a->rates.events * budget_pace(&a->rates);
}

/*
 * The collateral of the consumers that put the box on the syscall slow
 * path: the box's syscalls none of them sees, at the dearest of their
 * --target costs. The slow path is one for all of them (the kernel's
 * flag is per task, not per hook): the first consumer with that cost
 * carries it, the others say so; with the audit residue every task takes
 * it already, and it is 0.
 */
static void collateral(struct attached *a)
{
	double seen = 0;
	int64_t other;
	int carrier = -1;

	for (int i = 0; i < a->nrows; i++) {
		struct att_row *r = &a->rows[i];
		struct att_collateral *c = &r->coll;

		c->box = isfinite(r->rate) && attached_box_slow_path(r);
		c->carrier = -1;
		c->events = -1;
		c->rate = c->share = c->share_lo = c->share_hi = NAN;
		if (!c->box)
			continue;
		seen += seen_syscalls(r, a->rates.seconds);
		if (isfinite(c->cell_ns) && (carrier < 0 || c->cell_ns > a->rows[carrier].coll.cell_ns))
			carrier = i;
	}
	other = (int64_t)llround(box_syscalls(a) - seen);
	for (int i = 0; i < a->nrows; i++) {
		struct att_collateral *c = &a->rows[i].coll;

		if (!c->box)
			continue;
		if (a->rates_why[0]) {
			snprintf(c->why, sizeof(c->why), "the box's syscalls were not counted: %s",
				 a->rates_why);
			continue;
		}
		c->events = other > 0 ? other : 0;
		c->rate = a->rates.seconds > 0 ? (double)c->events / a->rates.seconds : NAN;
		if (a->residue == 1) {
			c->cell_ns = c->cell_lo = c->cell_hi = 0;
			c->share = c->share_lo = c->share_hi = 0;
			snprintf(c->why, sizeof(c->why), "0: this box carries the audit residue (audit was "
				 "enabled on this boot: every task forked since has an audit context and "
				 "takes the syscall slow path already, %s)", a->residue_how);
			continue;
		}
		if (carrier >= 0 && carrier != i) {
			c->shared = true;
			c->carrier = carrier;
			c->share = c->share_lo = c->share_hi = 0;
			snprintf(c->why, sizeof(c->why), "the slow path is one for every syscall hook: "
				 "counted on %s", a->rows[carrier].c.key);
			continue;
		}
		if (carrier < 0) {
			if (!c->why[0])
				snprintf(c->why, sizeof(c->why), "no collateral cost");
			a->nfloor++;	/* its share is then the seen part's only */
			continue;
		}
		c->share = pct(a, c->rate * c->cell_ns);
		c->share_lo = pct(a, c->rate * c->cell_lo);
		c->share_hi = pct(a, c->rate * c->cell_hi);
	}
}

void attached_costs(struct attached *a)
{
	int ncosted = 0, ncoll = 0;

	a->share = a->share_lo = a->share_hi = a->bpftop_share = 0;
	a->coll_share = a->coll_lo = a->coll_hi = 0;
	a->nfloor = 0;
	for (int i = 0; i < a->nrows; i++) {
		struct att_row *r = &a->rows[i];

		row_cost(a, r);
		if (isfinite(r->cost.share)) {
			a->share += r->cost.share;
			a->share_lo += r->cost.share_lo;
			a->share_hi += r->cost.share_hi;
			ncosted++;
		}
		if (isfinite(r->cost.bpftop_share))
			a->bpftop_share += r->cost.bpftop_share;
		if (r->cost.floor || (r->rate != 0 && !isfinite(r->cost.share)))
			a->nfloor++;
	}
	collateral(a);
	for (int i = 0; i < a->nrows; i++) {
		const struct att_collateral *c = &a->rows[i].coll;

		if (!isfinite(c->share))
			continue;
		a->coll_share += c->share;
		a->coll_lo += c->share_lo;
		a->coll_hi += c->share_hi;
		ncoll++;
	}
	a->seen_share = ncosted ? a->share : NAN;
	a->seen_lo = ncosted ? a->share_lo : NAN;
	a->seen_hi = ncosted ? a->share_hi : NAN;
	if (!ncoll)
		a->coll_share = a->coll_lo = a->coll_hi = NAN;
	if (!ncosted && !ncoll) {
		a->share = a->share_lo = a->share_hi = NAN;
		return;
	}
	if (ncoll) {
		a->share += a->coll_share;
		a->share_lo += a->coll_lo;
		a->share_hi += a->coll_hi;
	}
}

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

/*
 * Why @r's cost holds its owner's own CPU already, NULL if it does not: a
 * ptrace or seccomp supervisor works while its tracee waits, so the
 * tracee's measured overhead holds the supervisor's CPU; kauditd's CPU is
 * in the no-auditd floor (audit_cost_kauditd). Elsewhere the owner reads
 * the events apart from their dispatch (a BPF map or ring, a perf ring, a
 * trace_pipe, auditd's netlink socket): its own CPU is more.
 */
static const char *own_in_cost(const struct attached *a, const struct att_row *r)
{
	if (r->c.kind == ATT_PTRACE || r->c.kind == ATT_SECCOMP)
		return "not added: its tracee's measured cost holds it (the tracee waits while its "
		       "supervisor works)";
	if (r->c.kind == ATT_AUDIT && r->c.nholders && attached_audit_no_auditd(a))
		return "not added: the audit rules' no-auditd floor holds kauditd's CPU";
	return NULL;
}

/*
 * @o's own CPU from a->own; @itself: a seccomp filter's process, which owns
 * it; @in_cost: why its consumers' cost holds it already (NULL: it does not)
 */
static void owner_own(struct attached *a, struct att_owner *o, bool itself, const char *in_cost)
{
	const struct att_own *w = NULL;

	o->own_share = NAN;
	o->own_added = false;
	for (int k = 0; k < a->nown && !w; k++)
		if (a->own[k].pid == o->p.pid)
			w = &a->own[k];
	if (!o->p.pid)
		snprintf(o->own_why, sizeof(o->own_why), "no process holds it");
	else if (itself)
		snprintf(o->own_why, sizeof(o->own_why), "the filtered process itself: its CPU is "
			 "its own work");
	else if (!w)
		snprintf(o->own_why, sizeof(o->own_why), "not read");
	else if (!isfinite(w->ns))
		snprintf(o->own_why, sizeof(o->own_why), "%s", w->why);
	else
		o->own_share = a->seconds > 0 ? pct(a, w->ns / a->seconds) : NAN;
	if (!isfinite(o->own_share)) {
		a->own_unread += o->p.pid && !itself;
		return;
	}
	if (in_cost) {
		snprintf(o->own_why, sizeof(o->own_why), "%s", in_cost);
		a->own_in_cost += o->own_share;
		return;
	}
	o->own_added = true;
	a->own_share = (isfinite(a->own_share) ? a->own_share : 0) + o->own_share;
}

void attached_owners(struct attached *a)
{
	const char **in_cost;
	bool *itself;

	free(a->owners);
	a->owners = calloc((size_t)a->nrows + 1, sizeof(*a->owners));
	itself = calloc((size_t)a->nrows + 1, sizeof(*itself));
	in_cost = calloc((size_t)a->nrows + 1, sizeof(*in_cost));
	a->nowners = 0;
	if (!a->owners || !itself || !in_cost)
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
			itself[o - a->owners] = !r->c.nholders && r->c.kind == ATT_SECCOMP;
		}
		if (own_in_cost(a, r))
			in_cost[o - a->owners] = own_in_cost(a, r);
		o->nrows++;
		if (isfinite(r->rate))
			o->rate += r->rate;
		else
			o->nuncounted++;
		if (r->run_cnt > 0 && r->seconds > 0)
			o->prog_ns_total += r->run_ns / r->seconds;
		if (isfinite(r->cost.share)) {
			o->share += r->cost.share;
			o->share_lo += r->cost.share_lo;
			o->share_hi += r->cost.share_hi;
			o->ncosted++;
		}
		if (isfinite(r->coll.share)) {	/* what its consumers cost the syscalls they do not see */
			o->share += r->coll.share;
			o->share_lo += r->coll.share_lo;
			o->share_hi += r->coll.share_hi;
			o->coll_share += r->coll.share;
			o->ncosted += !isfinite(r->cost.share);
		}
		if (isfinite(r->cost.bpftop_share))
			o->bpftop_share += r->cost.bpftop_share;
		if (r->cost.floor || (r->rate != 0 && !isfinite(r->cost.share)) ||
		    (r->coll.box && !isfinite(r->coll.share)))
			o->nfloor++;
	}
	a->own_share = NAN;
	a->own_in_cost = 0;
	a->own_unread = 0;
	for (int k = 0; k < a->nowners; k++) {
		if (!a->owners[k].ncosted)
			a->owners[k].share = a->owners[k].share_lo = a->owners[k].share_hi = NAN;
		owner_own(a, &a->owners[k], itself[k], in_cost[k]);
	}
	free(itself);
	free(in_cost);
}

void attached_proc_events(struct att_row *r, const struct budget_proc *all, int nall, int max,
			  int64_t unnamed, bool alive)
{
	pid_t pid = r->c.target;

	r->events = -1;
	for (int i = 0; i < nall; i++)
		if (all[i].pid == pid) {
			r->events = all[i].events;
			/* its rate is at its own pace (measure/pace.h) */
			r->pace = all[i].pace > 0 ? all[i].pace : 1;
		}
	/* the counter's table was full: a process not in it may have made calls */
	if (r->events < 0 && (unnamed > 0 || nall >= max)) {
		snprintf(r->state, sizeof(r->state), "not counted");
		snprintf(r->why, sizeof(r->why), "the counter's table of processes was full (%d; %lld "
			 "calls of processes it had no room for)", nall, (long long)unnamed);
		return;
	}
	if (r->events < 0 && !alive) {
		snprintf(r->state, sizeof(r->state), "gone");
		snprintf(r->why, sizeof(r->why), "process %d exited during the window", (int)pid);
		return;
	}
	/* a process the counter never saw, with room in its table, made no syscall in the window */
	if (r->events < 0)
		r->events = 0;
	snprintf(r->state, sizeof(r->state), "counted");
}

void attached_release(struct attached *a)
{
	free(a->rates.per_cpu);
	a->rates.per_cpu = NULL;
	free(a->rates.auid_nr);
	a->rates.auid_nr = NULL;
	budget_audit_release(a->audit_set);
	a->audit_set = NULL;
	free(a->rows);
	free(a->owners);
	free(a->own);
	a->rows = NULL;
	a->owners = NULL;
	a->own = NULL;
	a->nown = 0;
	a->nrows = a->nowners = 0;
}
