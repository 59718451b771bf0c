/* `tracetax budget --attached`: the consumers found, what each took, per owner. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "output/attached.h"
#include "output/budget.h"

static void rate_str(char *buf, size_t len, double per_s)
{
	if (!isfinite(per_s))
		snprintf(buf, len, "-");
	else if (per_s >= 1e6)
		snprintf(buf, len, "%.2fM", per_s / 1e6);
	else if (per_s >= 1e3)
		snprintf(buf, len, "%.1fk", per_s / 1e3);
	else
		snprintf(buf, len, "%.1f", per_s);
}

static void owner_str(char *buf, size_t len, const struct att_row *r)
{
	if (r->c.nholders)
		snprintf(buf, len, "%d %s%s", (int)r->c.holders[0].pid, r->c.holders[0].comm,
			 r->c.nholders > 1 ? " +" : "");
	else if (r->c.kind == ATT_SECCOMP)
		snprintf(buf, len, "%d %s (itself)", (int)r->c.target, r->c.target_comm);
	else
		snprintf(buf, len, "unknown owner");
}

static void consumer_str(char *buf, size_t len, const struct att_row *r)
{
	switch (r->c.kind) {
	case ATT_BPF:
		snprintf(buf, len, "bpf prog %u '%s'", r->c.prog_id, r->c.name);
		break;
	case ATT_FTRACE:
		snprintf(buf, len, "ftrace %s", r->c.name);
		break;
	default:
		snprintf(buf, len, "%s", r->c.key);
	}
}

static void share_str(char *buf, size_t len, double v, double lo, double hi, bool floor)
{
	char a[16], b[16], c[16];

	output_pct_str(a, sizeof(a), v);
	if (!isfinite(v)) {
		snprintf(buf, len, "-");
		return;
	}
	output_pct_str(b, sizeof(b), lo);
	output_pct_str(c, sizeof(c), hi);
	if (floor)
		snprintf(buf, len, ">=%s", a);
	else
		snprintf(buf, len, "%s [%s, %s]", a, b, c);
}

static void ns_str(char *buf, size_t len, const struct att_cost *c)
{
	if (!isfinite(c->ns))
		snprintf(buf, len, "-");
	else if (c->floor)
		snprintf(buf, len, ">=%.0f", c->ns);
	else
		snprintf(buf, len, "%.0f [%.0f, %.0f]", c->ns, c->lo, c->hi);
}

/* A row's collateral share: its own, "shared" (another row carries it), "-" none */
static void coll_str(char *buf, size_t len, const struct att_collateral *c)
{
	if (!c->box)
		snprintf(buf, len, "-");
	else if (c->shared)
		snprintf(buf, len, "shared");
	else if (!isfinite(c->share))
		snprintf(buf, len, "no cost");
	else
		share_str(buf, len, c->share, c->share_lo, c->share_hi, false);
}

static void print_rows(const struct attached *a, FILE *f)
{
	fprintf(f, "%-32s %-14s %-26s %-20s %9s %8s %18s %7s %8s %20s %22s  %s\n", "consumer",
		"mechanism", "attached to", "owner", "events/s", "lost", "ns/event [95% CI]",
		"program", "dispatch", "share of CPU [CI]", "collateral [CI]", "state");
	for (int i = 0; i < a->nrows; i++) {
		const struct att_row *r = &a->rows[i];
		const struct att_cost *c = &r->cost;
		char who[48], owner[48], rate[16], lost[24] = "-", prog[24] = "-", disp[24] = "-";
		char ns[48], share[64], coll[64];

		consumer_str(who, sizeof(who), r);
		owner_str(owner, sizeof(owner), r);
		rate_str(rate, sizeof(rate), r->rate);
		if (r->lost >= 0)
			snprintf(lost, sizeof(lost), "%lld", (long long)r->lost);
		if (isfinite(c->ns))
			snprintf(prog, sizeof(prog), "%.1f", c->prog_ns);
		if (isfinite(c->disp_ns))
			snprintf(disp, sizeof(disp), "%.1f", c->disp_ns);
		ns_str(ns, sizeof(ns), c);
		share_str(share, sizeof(share), c->share, c->share_lo, c->share_hi, c->floor);
		coll_str(coll, sizeof(coll), &r->coll);
		fprintf(f, "%-32.32s %-14.14s %-26.26s %-20.20s %9s %8s %18s %7s %8s %20s %22s  "
			"%s%s%s\n", who, r->c.mech, r->c.what, owner, rate, lost, ns, prog, disp, share,
			coll, r->state, r->why[0] ? ": " : "", r->why);
	}
}

/* Where each row's cost per event comes from, and why some have none */
static void print_costs(const struct attached *a, FILE *f)
{
	fprintf(f, "\ncosts per event: the program's time (BPF stats, this window) + the "
		"mechanism's dispatch (a tracer's overhead on the stored syscall workloads less its "
		"program time)\n");
	for (int i = 0; i < a->nrows; i++) {
		const struct att_cost *c = &a->rows[i].cost;
		char who[48];
		bool dup = false;

		/* the audit rule set: print_audit */
		if (!isfinite(a->rows[i].rate) || (a->audit_set && !strcmp(c->tracer, "audit:rules")))
			continue;
		for (int k = 0; k < i && !dup; k++)
			dup = isfinite(a->rows[k].rate) && !strcmp(a->rows[k].cost.tracer, c->tracer) &&
			      !strcmp(a->rows[k].cost.why, c->why) &&
			      !strcmp(a->rows[k].cost.source, c->source);
		if (dup)
			continue;
		consumer_str(who, sizeof(who), &a->rows[i]);
		if (c->source[0] && isfinite(c->disp_ns)) {
			char src[48];

			if (c->run_id)
				snprintf(src, sizeof(src), "stored run %lld", (long long)c->run_id);
			else
				snprintf(src, sizeof(src), "measured now");
			fprintf(f, "  %-20s %.1f ns/event [%.1f, %.1f] (%s; on %s; %s), its program "
				"%.1f ns: dispatch %.1f ns\n", c->tracer, c->cell_ns, c->cell_lo,
				c->cell_hi, src, c->workloads, c->per_cpu_weighted ?
				"weighted by the box's syscalls per CPU" : "not per-CPU weighted: no "
				"costs per CPU (run --placement rotate)", c->cell_prog_ns, c->disp_ns);
		}
		else
			fprintf(f, "  %-20s %s%s\n", c->tracer[0] ? c->tracer : who,
				c->floor ? "program time only, a floor: " : "no cost: ",
				c->why[0] ? c->why : "-");
	}
}

/* What the syscall hooks cost the syscalls they do not see, and where that cost comes from */
static void print_collateral(const struct attached *a, FILE *f)
{
	bool any = false;

	for (int i = 0; i < a->nrows; i++) {
		const struct att_row *r = &a->rows[i];
		const struct att_collateral *c = &r->coll;
		char who[48], rate[16];

		if (!c->box)
			continue;
		if (!any)
			fprintf(f, "\ncollateral: a syscall tracepoint puts every task on the syscall slow "
				"path; the box's syscalls it does not see pay it (%s, --target %s: what a "
				"hook on %s costs %s)\n", "a tracer's cost on " ATT_COLL_WORKLOAD, ATT_COLL_TARGET,
				ATT_COLL_TARGET, ATT_COLL_WORKLOAD);
		any = true;
		consumer_str(who, sizeof(who), r);
		rate_str(rate, sizeof(rate), c->rate);
		if (c->source[0] && isfinite(c->share) && !c->shared && a->residue != 1)
			fprintf(f, "  %-32.32s %s syscalls/s x %.1f ns [%.1f, %.1f] (%s, %s)\n", who, rate,
				c->cell_ns, c->cell_lo, c->cell_hi, c->tracer, c->run_id ? "stored" :
				"measured now");
		else
			fprintf(f, "  %-32.32s %s syscalls/s: %s\n", who, rate, c->why[0] ? c->why : "-");
	}
}

static void audit_cost_line(FILE *f, const char *what, const struct budget_audit_cost *c)
{
	char rules[1400];

	if (!c->source[0]) {
		fprintf(f, "  %-26s no cost: %s\n", what, c->reason[0] ? c->reason : "-");
		return;
	}
	fprintf(f, "  %-26s %s %.1f ns/call [%.1f, %.1f] (on %s, ", what, c->tracer, c->ns, c->lo,
		c->hi, c->workload);
	if (c->run_id)
		fprintf(f, "stored run %lld)\n", (long long)c->run_id);
	else
		fprintf(f, "measured now)\n");
	output_walk_rules(c, rules, sizeof(rules));
	if (*rules)
		fprintf(f, "  %-26s %s\n", "", rules);
}

/* The live rule set: its records and walk over the window, their costs, its owner's CPU */
static void print_audit(const struct attached *a, FILE *f)
{
	const struct budget_audit *au = a->audit_set;
	const struct budget_audit_est *e;
	double s = a->rates.seconds;
	char rate[16], rec[3][16], walk[16];

	if (!au)
		return;
	e = &au->box;
	fprintf(f, "\naudit rules: %d read from the kernel (%d on the exit list); every call "
		"counted by login uid and syscall, priced as budget -t audit:rules prices a file\n",
		au->nrules, au->exit_rules);
	if (!e->events || s <= 0) {
		fprintf(f, "  no call counted\n");
		return;
	}
	rate_str(rate, sizeof(rate), (double)e->events / s);
	for (int l = 0; l < AUDIT_LEVELS; l++)
		rate_str(rec[l], sizeof(rec[l]), (double)e->records[l] / s);
	rate_str(walk, sizeof(walk), (double)(e->events - e->no_ctx - e->records[AUDIT_POINT]) / s);
	fprintf(f, "  %-26s %s/s, of syscalls the rules name %.1f%%\n", "calls", rate,
		100.0 * (double)e->named / (double)e->events);
	fprintf(f, "  %-26s lower %s, point %s, upper %s\n", "records/s", rec[AUDIT_LOWER],
		rec[AUDIT_POINT], rec[AUDIT_UPPER]);
	fprintf(f, "  %-26s %s calls/s (point)\n", "the walk (no record)", walk);
	if (e->no_ctx || au->task_never) {
		char none[16];

		rate_str(none, sizeof(none), (double)e->no_ctx / s);
		fprintf(f, "  %-26s %s calls/s of tasks with no audit context: no walk, no record%s\n",
			"no audit context", none, au->task_never ? " (-a never,task: tasks forked since "
			"it was loaded have none; those forked before keep theirs)" : "");
	}
	audit_cost_line(f, "a record", &au->record);
	audit_cost_line(f, "the walk", &au->walk);
	if (au->walk_path.source[0])
		audit_cost_line(f, "the walk, naming a path", &au->walk_path);
	if (au->record_path.source[0])
		audit_cost_line(f, "a record, naming a path", &au->record_path);
	if (a->audit_walk_how[0] && au->walk.source[0])
		fprintf(f, "  %-26s %s\n", "", a->audit_walk_how);
	if (isfinite(a->audit_owner_cpu_ns) && a->seconds > 0) {
		char pct[16];

		output_pct_str(pct, sizeof(pct), a->audit_owner_cpu_ns / (a->seconds * a->cpus * 1e9)
			       * 100);
		fprintf(f, "  %-26s %s of the box's CPU over the window (its threads' schedstat; "
			"its owner's \"own CPU\" below)\n", "its owner's own CPU", pct);
	}
	if (attached_audit_no_auditd(a))
		fprintf(f, "  %-26s no auditd: the records go to the kernel log through kauditd "
			"(printk, rate-limited), a path no tracer measures (a record's cost above is an "
			"auditd's): the rule set's cost is every call's walk and kauditd's own CPU, a "
			"floor\n", "");
}

static void own_str(char *buf, size_t len, const struct att_owner *o)
{
	output_pct_str(buf, len, o->own_share);
	if (isfinite(o->own_share) && !o->own_added)
		snprintf(buf + strlen(buf), len - strlen(buf), "*");
}

static void print_owners(const struct attached *a, FILE *f)
{
	bool star = false;

	fprintf(f, "\nper owner\n%-8s %-16s %9s %11s %24s %12s %9s  %s\n", "pid", "command",
		"consumers", "events/s", "share of CPU [CI]", "bpftop's", "own CPU", "command line");
	for (int i = 0; i < a->nowners; i++) {
		const struct att_owner *o = &a->owners[i];
		char rate[16], pid[16] = "-", share[64], bt[16], own[16];

		rate_str(rate, sizeof(rate), o->rate);
		if (o->p.pid)
			snprintf(pid, sizeof(pid), "%d", (int)o->p.pid);
		share_str(share, sizeof(share), o->share, o->share_lo, o->share_hi, false);
		if (o->nfloor)
			snprintf(share + strlen(share), sizeof(share) - strlen(share), "+");
		output_pct_str(bt, sizeof(bt), o->bpftop_share);
		own_str(own, sizeof(own), o);
		star |= isfinite(o->own_share) && !o->own_added;
		fprintf(f, "%-8s %-16s %9d %10s%s %24s %12s %9s  %s\n", pid, o->p.comm, o->nrows, rate,
			o->nuncounted ? "+" : " ", share, bt, own, o->p.cmdline);
	}
	for (int i = 0; i < a->nowners; i++)
		if (a->owners[i].nuncounted || a->owners[i].nfloor) {
			fprintf(f, "(+: a floor: some of its consumers could not be counted or costed)\n");
			break;
		}
	fprintf(f, "(own CPU: the owner's threads' CPU time over the window, %% of the box: what it "
		"does with the events, apart from their cost in the kernel%s)\n", star ?
		"; *: its consumers' cost holds it already (a ptrace or seccomp supervisor works while "
		"its tracee waits; kauditd's is in the no-auditd floor): not added to the total" : "");
	for (int i = 0; i < a->nowners; i++) {
		const struct att_owner *o = &a->owners[i];

		if (!isfinite(o->own_share) && o->p.pid)
			fprintf(f, "  own CPU of %d %s: none, %s\n", (int)o->p.pid, o->p.comm, o->own_why);
	}
}

/* The owners' own CPU beside the consumers' total: what is added, what is in it already */
static void print_own_total(const struct attached *a, FILE *f)
{
	char own[16], in[16], sum[16];

	output_pct_str(own, sizeof(own), a->own_share);
	output_pct_str(in, sizeof(in), a->own_in_cost);
	fprintf(f, "the owners' own CPU: %s more", isfinite(a->own_share) ? own : "none read, nothing");
	if (isfinite(a->own_share) && isfinite(a->share)) {
		output_pct_str(sum, sizeof(sum), a->share + a->own_share);
		fprintf(f, " (%s with the consumers')", sum);
	}
	if (a->own_in_cost > 0)
		fprintf(f, "; %s more is not added: the consumers' cost holds it (*)", in);
	if (a->own_unread)
		fprintf(f, "; %d owner%s not read", a->own_unread, a->own_unread > 1 ? "s" : "");
	fprintf(f, "\n");
}

void output_attached(const struct attached *a, FILE *f)
{
	char share[64], bt[16];

	fprintf(f, "tracing attached to this box, counted for %.2f s on %d CPUs\n", a->seconds,
		a->cpus);
	if (a->bpf_unknown)
		fprintf(f, "bpf: unknown, the programs could not be listed (needs root)\n");
	if (a->tracefs_unknown)
		fprintf(f, "tracefs: unknown, it could not be read (needs root)\n");
	if (a->proc_partial)
		fprintf(f, "processes: some could not be read (needs root)\n");
	if (!a->stats_on)
		fprintf(f, "bpf: no run counts: %s\n", a->stats_why);
	if (a->rates_why[0])
		fprintf(f, "syscalls: not counted: %s\n", a->rates_why);
	else {
		fprintf(f, "syscalls: counted by budget's BPF program on raw_syscalls:sys_enter\n");
		output_pace(&a->rates, f);
	}
	fprintf(f, "audit: %s\n", a->audit);
	if (a->residue == 1)
		fprintf(f, "syscall slow path: taken already by every task forked on this boot since "
			"audit was first enabled (the audit residue: %s): a syscall hook's collateral "
			"is then 0\n", a->residue_how);
	fprintf(f, "\n");
	if (!a->nrows) {
		fprintf(f, "no tracing consumer found\n");
		return;
	}
	print_rows(a, f);
	print_costs(a, f);
	print_collateral(a, f);
	print_audit(a, f);
	print_owners(a, f);
	share_str(share, sizeof(share), a->share, a->share_lo, a->share_hi, false);
	output_pct_str(bt, sizeof(bt), a->bpftop_share);
	fprintf(f, "\ntotal: %s%s of the box's CPU", share,
		a->nfloor ? " (a floor: some consumers have no cost)" : "");
	if (isfinite(a->coll_share)) {
		char seen[64], coll[64];

		share_str(seen, sizeof(seen), a->seen_share, a->seen_lo, a->seen_hi, false);
		share_str(coll, sizeof(coll), a->coll_share, a->coll_lo, a->coll_hi, false);
		fprintf(f, ": the events seen %s, the collateral %s", seen, coll);
	}
	fprintf(f, "; bpftop's method (run_time_ns / run_cnt x rate, BPF programs only): %s\n", bt);
	print_own_total(a, f);
}
