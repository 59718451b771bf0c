/*
 * The attached consumers over a window (attached.h here): the box is
 * sampled (attach/scan.c), budget's syscall counter runs for the window
 * (rates.c), the box is sampled again. What each consumer took is the
 * difference of its own counters between the samples:
 *   BPF        run_cnt (BPF stats are on from before the first sample to
 *              after the second, through the BPF_ENABLE_STATS fd, which
 *              turns them off when closed: kernel.bpf_stats_enabled is
 *              never written)
 *   ftrace     entries + overrun + read events over every CPU
 *   perf       each event's count, paired by its id
 *   ptrace, seccomp   the counter's syscall entries of the traced process
 *   audit      the counter's syscall entries of the whole box (every call
 *              walks the rules), by login uid and syscall where rules are
 *              loaded: what they record is priced in attached_costs
 * A consumer seen at one end only is "gone" or "appeared", never 0.
 * The first holder of each consumer (its owner) has its own CPU read just
 * before the counter starts and just after it stops: its threads' CPU
 * time (base/proc_cpu.h), the same process at both ends or none.
 */
#include <errno.h>
#include <signal.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <linux/bpf.h>

#include "attach/scan.h"
#include "audit/audit_nl.h"
#include "base/proc_cpu.h"
#include "base/signals.h"
#include "base/util.h"
#include "measure/attached.h"
#include "measure/progstats.h"
#include "measure/rates.h"

#define ALL_PROCS 4096

static struct att_row *row_add(struct attached *a, const struct att_consumer *c)
{
	struct att_row *r;

	r = &a->rows[a->nrows++];
	memset(r, 0, sizeof(*r));
	r->c = *c;
	r->events = r->lost = r->run_cnt = -1;
	r->rate = r->prog_ns = r->run_ns = NAN;
	r->pace = budget_pace(&a->rates);
	r->cost.cell_ns = r->cost.cell_lo = r->cost.cell_hi = r->cost.cell_prog_ns = NAN;
	r->coll.cell_ns = r->coll.cell_lo = r->coll.cell_hi = NAN;
	r->coll.share = r->coll.share_lo = r->coll.share_hi = r->coll.rate = NAN;
	r->coll.events = -1;
	r->coll.carrier = -1;
	snprintf(r->cost.tracer, sizeof(r->cost.tracer), "%s", attached_tracer_of(r) ?: "");
	return r;
}

static void not_counted(struct att_row *r, const char *fmt, const char *arg)
{
	snprintf(r->state, sizeof(r->state), "not counted");
	snprintf(r->why, sizeof(r->why), fmt, arg);
}

static void syscall_row(struct attached *a, struct att_row *r, const struct budget_proc *all,
			int nall)
{
	pid_t pid = r->c.target;

	if (a->rates_why[0]) {
		not_counted(r, "%s", a->rates_why);
		return;
	}
	r->seconds = a->rates.seconds;
	r->pace = budget_pace(&a->rates);
	snprintf(r->source, sizeof(r->source), "syscall counter");
	if (!pid) {
		r->events = a->rates.events;
		snprintf(r->state, sizeof(r->state), "counted");
		return;
	}
	attached_proc_events(r, all, nall, ALL_PROCS, a->rates.unnamed,
			     !(kill(pid, 0) && errno == ESRCH));
}

static void delta_row(struct att_row *r, const struct att_consumer *b, const struct att_consumer *e,
		      double seconds)
{
	int64_t n = 0;
	int paired = 0;

	/* its counters were read at each sample's own time: their distance is its window */
	r->seconds = b->t > 0 && e->t > b->t ? e->t - b->t : seconds;
	switch (r->c.kind) {
	case ATT_BPF:
		r->run_cnt = (int64_t)(e->run_cnt - b->run_cnt);
		r->run_ns = (double)(e->run_ns - b->run_ns);
		r->events = r->run_cnt;
		r->prog_ns = r->run_cnt > 0 ? r->run_ns / (double)r->run_cnt : NAN;
		snprintf(r->source, sizeof(r->source), "bpf run_cnt");
		break;
	case ATT_FTRACE:
		r->events = (int64_t)(e->written - b->written);
		r->lost = (int64_t)(e->lost - b->lost);
		snprintf(r->source, sizeof(r->source), "ftrace per-cpu stats");
		if (r->events < 0) {
			not_counted(r, "%s", "its buffer was reset during the window");
			return;
		}
		break;
	case ATT_PERF:
		for (int i = 0; i < b->ncounts; i++)
			for (int k = 0; k < e->ncounts; k++)
				if (b->counts[i].id == e->counts[k].id) {
					n += (int64_t)(e->counts[k].value - b->counts[i].value);
					paired++;
				}
		if (!paired) {
			not_counted(r, "%s", "its events were replaced during the window");
			return;
		}
		r->events = n;
		snprintf(r->source, sizeof(r->source), "perf event counts");
		break;
	default:
		return;
	}
	snprintf(r->state, sizeof(r->state), "counted");
}

/*
 * Why a perf event without a program (not perf trace's) is not counted:
 * its attributes cannot be read from outside, so its count may be cycles
 * or a clock's ns (perf stat), not events hooked; one whose holder holds
 * BPF programs is most likely their output ring (bpftrace's), whose
 * writing is in their run time already.
 */
static const char *perf_why(const struct att_list *l, const struct att_consumer *c)
{
	for (size_t i = 0; i < l->n; i++)
		for (int k = 0; l->v[i].kind == ATT_BPF && k < l->v[i].nholders; k++)
			if (c->nholders && l->v[i].holders[k].pid == c->holders[0].pid)
				return "its holder holds BPF programs: an output ring of theirs, written "
				       "in their run time (priced there)";
	return "a perf event's type cannot be read from outside: its count may be cycles or a "
	       "clock's (perf stat), not hooked events; only perf trace's are priced";
}

/* The rows of the two samples; @b, @e: the samples, @dt their distance */
static int rows_of(struct attached *a, const struct att_list *b, const struct att_list *e,
		   double dt, const struct budget_proc *all, int nall)
{
	a->rows = calloc(b->n + e->n + 1, sizeof(*a->rows));
	if (!a->rows)
		return -1;
	for (size_t i = 0; i < b->n; i++) {
		const struct att_consumer *c = &b->v[i], *end = att_find(e, c->key);
		struct att_row *r = row_add(a, c);

		if (!end) {
			snprintf(r->state, sizeof(r->state), "gone");
			snprintf(r->why, sizeof(r->why), "there at the start, not at the end");
		} else if (c->kind == ATT_PTRACE || c->kind == ATT_SECCOMP || c->kind == ATT_AUDIT) {
			syscall_row(a, r, all, nall);
		} else if (c->kind == ATT_DYNEVENT) {
			not_counted(r, "%s", c->why);
		} else if (c->kind == ATT_PERF && !attached_tracer_of(r)) {
			not_counted(r, "%s", perf_why(b, c));
		} else if (!c->counted || !end->counted) {
			not_counted(r, "%s", c->counted ? end->why : c->why);
		} else if (c->kind == ATT_BPF && !a->stats_on) {
			not_counted(r, "no run count: %s", a->stats_why);
		} else {
			delta_row(r, c, end, dt);
		}
		/* the rate the box has without budget's counter: its pace (measure/pace.h) */
		if (r->events >= 0 && r->seconds > 0)
			r->rate = (double)r->events / r->seconds * r->pace;
	}
	for (size_t i = 0; i < e->n; i++)
		if (!att_find(b, e->v[i].key)) {
			struct att_row *r = row_add(a, &e->v[i]);

			snprintf(r->state, sizeof(r->state), "appeared");
			snprintf(r->why, sizeof(r->why), "not there at the start: part of the window");
		}
	return 0;
}

/*
 * The rules loaded now (read only), summarised as budget -t audit:rules
 * summarises a file, when @l has the "audit rules" consumer: the counter
 * then counts by login uid too.
 */
static void audit_rules_read(struct attached *a, const struct att_list *l, struct rates_opts *ro)
{
	const struct att_consumer *c = att_find(l, "audit rules");
	struct audit_rule_sum *sums;
	int fd, n;

	if (!c)
		return;
	if ((fd = audit_nl_open(a->audit_why, sizeof(a->audit_why))) < 0)
		return;
	n = audit_nl_rule_sums(fd, &sums, a->audit_why, sizeof(a->audit_why));
	if (n < 0) {
		audit_nl_close(fd);
		return;
	}
	a->audit_set = budget_audit_new(sums, n);
	a->audit_set->live = true;	/* a task with no audit context walks none of them */
	free(sums);
	/* the set's identity, as a run of audit:rules records it: its stored walk is looked up by it */
	{
		char err[256];
		int nd;

		if (audit_nl_rules_digest(fd, a->audit_set->digest, &nd, err, sizeof(err)))
			a->audit_set->digest[0] = '\0';
	}
	audit_nl_close(fd);
	ro->by_auid = true;
}

/* The first holder of each of @l's consumers not yet in a->own, its CPU not read (@why) */
static void own_add(struct attached *a, const struct att_list *l, const char *why)
{
	for (size_t i = 0; i < l->n; i++) {
		pid_t pid = l->v[i].nholders ? l->v[i].holders[0].pid : 0;
		struct att_own *o;
		int k;

		for (k = 0; k < a->nown && a->own[k].pid != pid; k++)
			;
		if (!pid || k < a->nown)
			continue;
		o = &a->own[a->nown++];
		o->pid = pid;
		o->ns = NAN;
		/* att_scan leaves tracetax's own out: this says so if it ever does not */
		snprintf(o->why, sizeof(o->why), "%s", pid == getpid() ? "tracetax itself" : why);
	}
}

/* The owners' CPU now: at the window's start into @start, at its end the differences */
static void own_read(struct attached *a, struct proc_cpu *start, bool end)
{
	for (int k = 0; k < a->nown; k++) {
		struct att_own *o = &a->own[k];
		struct proc_cpu now;

		if (o->pid == getpid() || (end && !start[k].start))
			continue;
		if (proc_cpu_read(o->pid, &now)) {
			snprintf(o->why, sizeof(o->why), "%s", end ? "it exited during the window" :
				 "it could not be read at the window's start");
		} else if (!end) {
			start[k] = now;
		} else if (now.start != start[k].start) {
			snprintf(o->why, sizeof(o->why), "it exited during the window (its pid is "
				 "another process's now)");
		} else {
			o->ns = (double)(now.ns - start[k].ns);
			o->why[0] = '\0';
		}
	}
}

/* The owners found at the window's end only: not read at its start */
static void own_appeared(struct attached *a, const struct att_list *e)
{
	struct att_own *v = realloc(a->own, (a->nown + e->n + 1) * sizeof(*v));

	if (!v)
		die("out of memory");
	a->own = v;
	own_add(a, e, "it held nothing at the window's start: not read then");
}

/* The audit rules' owner's CPU, the general figure's: NaN when it changed or is unread */
static void audit_owner_cpu(struct attached *a, const struct att_list *b, const struct att_list *e)
{
	const struct att_consumer *cb = att_find(b, "audit rules"), *ce = att_find(e, "audit rules");

	a->audit_owner_cpu_ns = NAN;
	if (!cb || !ce || !cb->nholders || !ce->nholders || ce->holders[0].pid != cb->holders[0].pid)
		return;
	for (int k = 0; k < a->nown; k++)
		if (a->own[k].pid == cb->holders[0].pid)
			a->audit_owner_cpu_ns = a->own[k].ns;
}

int attached_measure(const struct attached_opts *o, struct attached *a, char *err, size_t len)
{
	struct att_list b = { 0 }, e = { 0 };
	struct rates_opts ro = { .seconds = o->seconds };
	struct budget_proc *all = calloc(ALL_PROCS, sizeof(*all));
	struct proc_cpu *own_start = NULL;
	int nall = 0, stats_fd, ret = -1;
	double t0, t1;

	memset(a, 0, sizeof(*a));
	if (!all)
		die("out of memory");
	a->cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	a->stats_sysctl_before = progstats_sysctl();
	stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	a->stats_on = stats_fd >= 0;
	if (stats_fd < 0)
		snprintf(a->stats_why, sizeof(a->stats_why), "kernel refused BPF_ENABLE_STATS: %s",
			 strerror(-stats_fd));
	signals_doing("reading the box's tracing consumers");
	if (att_scan(&b)) {
		snprintf(err, len, "cannot read the consumers: %s", strerror(errno));
		goto out;
	}
	audit_rules_read(a, &b, &ro);
	a->own = calloc(b.n + 1, sizeof(*a->own));
	own_start = calloc(b.n + 1, sizeof(*own_start));
	if (!a->own || !own_start)
		die("out of memory");
	own_add(a, &b, "");
	own_read(a, own_start, false);
	t0 = now_s();
	ro.all = all;
	ro.max_all = ALL_PROCS;
	ro.nall = &nall;
	ret = rates_count(&ro, &a->rates, a->rates_why, sizeof(a->rates_why));
	if (ret >= 128)
		goto out;
	if (ret)
		ret = 0;	/* rates_why says it: the syscall-hooking rows are not counted */
	t1 = now_s();
	a->residue = a->rates_why[0] ? -1 : a->rates.audit_ctx;
	snprintf(a->residue_how, sizeof(a->residue_how), "%s", a->residue < 0 ?
		 "not known: budget's own task's audit context could not be read" : a->residue ?
		 "budget's own task, forked on this boot, has an audit context" :
		 "budget's own task has no audit context");
	own_read(a, own_start, true);
	signals_doing("reading the box's tracing consumers");
	if (att_scan(&e)) {
		snprintf(err, len, "cannot read the consumers: %s", strerror(errno));
		ret = -1;
		goto out;
	}
	signals_doing(NULL);
	own_appeared(a, &e);
	audit_owner_cpu(a, &b, &e);
	a->seconds = t1 - t0;
	a->bpf_unknown = b.bpf_unknown || e.bpf_unknown;
	a->tracefs_unknown = b.tracefs_unknown || e.tracefs_unknown;
	a->proc_partial = b.proc_partial || e.proc_partial;
	snprintf(a->audit, sizeof(a->audit), "%s", e.audit);
	if (rows_of(a, &b, &e, a->seconds, all, nall))
		die("out of memory");
out:
	if (stats_fd >= 0)
		close(stats_fd);
	a->stats_sysctl_after = progstats_sysctl();
	att_release(&b);
	att_release(&e);
	free(all);
	free(own_start);
	return ret;
}
