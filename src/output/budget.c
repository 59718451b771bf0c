/* `tracetax budget`: rates, costs, shares, verdicts, and -w cmd:'s checks. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "measure/rates.h"
#include "output/budget.h"

static void rate_str(char *buf, size_t len, double per_s)
{
	if (per_s >= 1e6)
		snprintf(buf, len, "%.2fM", per_s / 1e6);
	else if (per_s >= 1e3)
		snprintf(buf, len, "%.1fk", per_s / 1e3);
	else
		snprintf(buf, len, "%.0f", per_s);
}

/* A share in %, with enough digits to show a small one. */
void output_pct_str(char *buf, size_t len, double v)
{
	if (!isfinite(v))
		snprintf(buf, len, "-");
	else if (fabs(v) >= 10)
		snprintf(buf, len, "%.1f%%", v);
	else if (fabs(v) >= 0.1)
		snprintf(buf, len, "%.2f%%", v);
	else
		snprintf(buf, len, "%.4f%%", v);
}

/* "... 0.9% [...]" of one level: the share and its CI */
static void level_str(char *buf, size_t len, const struct budget_audit *a, int l)
{
	char s[32], lo[32], hi[32];

	output_pct_str(s, sizeof(s), a->share[l]);
	output_pct_str(lo, sizeof(lo), a->share_lo[l]);
	output_pct_str(hi, sizeof(hi), a->share_hi[l]);
	snprintf(buf, len, "%s [%s, %s]", s, lo, hi);
}

static void audit_verdict(const struct budget *b, const struct budget_tracer *t, const char *rate,
			  char *buf, size_t len)
{
	const struct budget_audit *a = t->audit;
	const struct budget_audit_est *e = &a->box;
	char p[96], l[96], u[96];
	size_t n;

	if (!t->cost.source[0]) {
		double sec = b->rates.seconds > 0 ? b->rates.seconds : 1;

		snprintf(buf, len, "%s with '%s': no cost per call (%s); at the current %s calls/s its"
			 " rules would record %.0f/s at the lower bound, %.0f/s at the point estimate,"
			 " %.0f/s at the upper", t->name, a->file, t->cost.reason, rate,
			 (double)e->records[AUDIT_LOWER] / sec, (double)e->records[AUDIT_POINT] / sec,
			 (double)e->records[AUDIT_UPPER] / sec);
		return;
	}
	level_str(p, sizeof(p), a, AUDIT_POINT);
	level_str(l, sizeof(l), a, AUDIT_LOWER);
	level_str(u, sizeof(u), a, AUDIT_UPPER);
	n = (size_t)snprintf(buf, len, "%s with '%s' would cost %s %s of its CPU at the current %s "
			     "calls/s (point estimate; lower %s, upper %s)", t->name, a->file,
			     strcmp(b->rates.scope, "the whole box") ? b->rates.scope : "this box",
			     p, rate, l, u);
	if (n >= len)
		return;
	if (!e->named)
		snprintf(buf + n, len - n, ": no call was of a syscall its rules name, every one pays "
			 "the walk");
	else if (e->named_sys && e->excluded == e->named_sys &&
		 e->records[AUDIT_LOWER] == e->records[AUDIT_POINT])
		snprintf(buf + n, len - n, ": the lower bound applies: every call of a syscall its "
			 "syscall rules name was made with a login uid their auid filters exclude; "
			 "the upper is what its file rules could add");
	else if (e->records[AUDIT_LOWER] == e->records[AUDIT_UPPER])
		snprintf(buf + n, len - n, ": its rules' filters are decided, the bounds are one");
	else
		snprintf(buf + n, len - n, ": between the bounds as the filters budget cannot decide "
			 "match (exit, success, files, arguments)");
}

void output_budget_verdict(const struct budget *b, const struct budget_tracer *t, char *buf,
			   size_t len)
{
	const struct budget_rates *r = &b->rates;
	char rate[32], s[32], lo[32], hi[32];
	size_t n;

	rate_str(rate, sizeof(rate), r->seconds > 0 ? (double)r->events / r->seconds : 0);
	if (t->audit) {
		const struct budget_audit_cost *w = &t->audit->walk;

		audit_verdict(b, t, rate, buf, len);
		n = strlen(buf);
		/* never silently: a walk of another set is not this set's */
		if (w->source[0] && !w->rules_match && n < len)
			snprintf(buf + n, len - n, " (its walk's cost is %s rule set's: %s)",
				 w->rules.file[0] ? "another" : "an unrecorded",
				 w->rules.file[0] ? w->rules.file : "a run from before tracetax kept it");
		return;
	}
	if (!t->cost.source[0]) {
		snprintf(buf, len, "%s: no cost per event (%s); %s events/s would hook it", t->name,
			 t->cost.reason, rate);
		return;
	}
	output_pct_str(s, sizeof(s), t->share);
	output_pct_str(lo, sizeof(lo), t->share_lo);
	output_pct_str(hi, sizeof(hi), t->share_hi);
	n = (size_t)snprintf(buf, len, "%s would cost %s %s of its CPU [%s, %s] at the current %s events/s",
			     t->name, r->scope[0] && strcmp(r->scope, "the whole box") ?
			     r->scope : "this box", s, lo, hi, rate);
	/* who pays: a command's processes together (a loop's, a build's) */
	if (n < len && r->ntop_comm && r->events > 0) {
		const struct budget_proc *c = &r->top_comm[0];

		n += (size_t)snprintf(buf + n, len - n, ", %s by %s (%d process%s, %.0f%% of the events)",
				      2 * c->events > r->events ? "mostly paid" :
				      "spread, the most paid", c->comm, c->pid, c->pid == 1 ? "" : "es",
				      100.0 * (double)c->events / (double)r->events);
	}
	/* a share past the machine is not paid in CPU: the traced programs slow down instead */
	if (n < len && t->share > 100)
		n += (size_t)snprintf(buf + n, len - n, "; more than the box has: its programs would "
				      "run slower instead, at this rate");
	if (n < len && isfinite(t->consumer_share)) {
		char c[32];

		output_pct_str(c, sizeof(c), t->consumer_share);
		n += (size_t)snprintf(buf + n, len - n, "; its consumer adds %s", c);
	}
	/* --target: the scope's other syscalls pay the hook's slow path too */
	if (n < len && r->others >= 0 && isfinite(t->coll_share)) {
		char c[32], seen[32];

		output_pct_str(c, sizeof(c), t->coll_share);
		output_pct_str(seen, sizeof(seen), t->seen_share);
		snprintf(buf + n, len - n, "; of it %s the %s calls it sees, %s the collateral on "
			 "the %.0f/s others (%.1f ns each, its hook on close costs getpid)", seen,
			 r->target, c, r->seconds > 0 ? (double)r->others / r->seconds : 0, t->coll.ns);
	} else if (n < len && r->others >= 0)
		snprintf(buf + n, len - n, "; the collateral on the %.0f/s other calls not priced: %s",
			 r->seconds > 0 ? (double)r->others / r->seconds : 0, t->coll.reason);
}

void output_pace(const struct budget_rates *r, FILE *f)
{
	if (!isfinite(r->price_ns)) {
		if (r->price_why[0])
			fprintf(f, "  its price on the calls it counts: not known (%s): the rates are the "
				"counts', low by that price where a process's pace is its CPU\n", r->price_why);
		return;
	}
	fprintf(f, "  its price: %.1f ns more on every call it counts (getppid %.1f ns, %.1f ns "
		"under it); the rates are the box's without it: the counts x %.3f, each process's "
		"calls by how much of the window it kept a CPU busy (%" PRId64 " of %" PRId64 " calls "
		"of processes whose CPU was read)\n", r->price_ns, r->price_base_ns,
		r->price_base_ns + r->price_ns, budget_pace(r), r->paced, r->events);
}

static void print_rates(const struct budget_rates *r, FILE *f)
{
	char rate[32];

	rate_str(rate, sizeof(rate), r->seconds > 0 ? (double)r->events / r->seconds : 0);
	fprintf(f, "events: %s syscall entries (%s) in %.2f s on %d CPUs = %s/s\n",
		r->target[0] ? r->target : "every", r->scope, r->seconds, r->cpus, rate);
	fprintf(f, "  counted by one BPF program on raw_syscalls:sys_enter, %" PRId64 " events", r->events);
	if (r->self_measured)
		fprintf(f, "; its own program time %.0f ns/event over %" PRId64 " runs (BPF stats),"
			" %.4f%% of the CPU\n", r->self_ns, r->self_runs,
			100.0 * r->self_ns * (double)r->self_runs * 1e-9 / (r->seconds * r->cpus));
	else
		fprintf(f, "; its own cost not measured: %s\n", r->self_reason);
	output_pace(r, f);
	fprintf(f, "  per CPU:");
	for (int k = 0; k < r->ncpu; k++) {
		rate_str(rate, sizeof(rate), (double)r->per_cpu[k] / r->seconds);
		fprintf(f, " cpu%d %s/s", k, rate);
	}
	fprintf(f, "\n  top syscalls:");
	for (int k = 0; k < r->nnrs; k++)
		fprintf(f, "%s %s %.0f%%", k ? "," : "", r->nrs[k].name,
			100.0 * (double)r->nrs[k].events / (double)(r->events ? r->events : 1));
	fprintf(f, "\n  top processes (of %d):", r->nprocs);
	for (int k = 0; k < r->ntop; k++) {
		rate_str(rate, sizeof(rate), (double)r->top[k].events / r->seconds);
		fprintf(f, "%s %s[%d] %s/s", k ? "," : "", r->top[k].comm, r->top[k].pid, rate);
	}
	fprintf(f, "\n  top commands:");
	for (int k = 0; k < r->ntop_comm; k++) {
		rate_str(rate, sizeof(rate), (double)r->top_comm[k].events / r->seconds);
		fprintf(f, "%s %s (%d) %s/s", k ? "," : "", r->top_comm[k].comm, r->top_comm[k].pid,
			rate);
	}
	if (r->unnamed)
		fprintf(f, ", %" PRId64 " events of processes past the table", r->unnamed);
	fprintf(f, "\n\n");
}

static void print_costs(const struct budget *b, FILE *f)
{
	const struct budget_rates *r = &b->rates;
	char rate[32], s[32], lo[32], hi[32];

	rate_str(rate, sizeof(rate), r->seconds > 0 ? (double)r->events / r->seconds : 0);
	fprintf(f, "%-18s %10s %26s %30s %s\n", "tracer", "events/s", "ns/event [95% CI]",
		"CPU share [95% CI]", "cost from");
	for (int i = 0; i < b->ntracers; i++) {
		const struct budget_tracer *t = &b->tracers[i];
		const struct budget_cost *c = &t->cost;
		char ns[64], share[64], from[160];

		if (!c->source[0]) {
			fprintf(f, "%-18s %10s %26s %30s none: %s\n", t->name, rate, "-", "-", c->reason);
			continue;
		}
		snprintf(ns, sizeof(ns), "%.0f [%.0f, %.0f]", c->ns, c->lo, c->hi);
		output_pct_str(s, sizeof(s), t->share);
		output_pct_str(lo, sizeof(lo), t->share_lo);
		output_pct_str(hi, sizeof(hi), t->share_hi);
		snprintf(share, sizeof(share), "%s [%s, %s]", s, lo, hi);
		if (c->run_id)
			snprintf(from, sizeof(from), "%s run %" PRId64 " (%s), %s, %d reps", c->source,
				 c->run_id, c->started, c->workload, c->reps);
		else
			snprintf(from, sizeof(from), "%s now, %s, %d reps", c->source, c->workload, c->reps);
		fprintf(f, "%-18s %10s %26s %30s %s\n", t->name, rate, ns, share, from);
	}
	fprintf(f, "\nper CPU (%% of that CPU, at that CPU's cost when measured there) and per"
		" process (%% of the box):\n");
	for (int i = 0; i < b->ntracers; i++) {
		const struct budget_tracer *t = &b->tracers[i];

		if (!t->cost.source[0] || t->audit)	/* audit:rules: its own section */
			continue;
		fprintf(f, "  %-16s", t->name);
		for (int k = 0; k < r->ncpu; k++) {
			output_pct_str(s, sizeof(s), t->cpu_share[k]);
			fprintf(f, " cpu%d %s", k, s);
		}
		fprintf(f, " |");
		for (int k = 0; k < r->ntop && k < 3; k++) {
			output_pct_str(s, sizeof(s), t->proc_share[k]);
			fprintf(f, " %s %s", r->top[k].comm, s);
		}
		if (t->per_cpu_weighted) {
			fprintf(f, " | ns/event per CPU:");
			for (int k = 0; k < t->cost.ncpu; k++)
				fprintf(f, " cpu%d %.0f [%.0f, %.0f]", t->cost.cpu[k].cpu,
					t->cost.cpu[k].ns, t->cost.cpu[k].lo, t->cost.cpu[k].hi);
		}
		if (isfinite(t->consumer_share)) {
			output_pct_str(s, sizeof(s), t->consumer_share);
			fprintf(f, " | consumer %s", s);
		} else if (t->cost.tool) {
			fprintf(f, " | the tool's own process: not measured");
		}
		fprintf(f, "\n");
	}
}

static void nr_list(const int *v, int n, FILE *f)
{
	for (int i = 0; i < n; i++) {
		const char *s = rates_syscall_name(v[i]);

		if (s)
			fprintf(f, "%s%s", i ? " " : "", s);
		else
			fprintf(f, "%snr %d", i ? " " : "", v[i]);
	}
	fprintf(f, " (%d)\n", n);
}

void output_walk_rules(const struct budget_audit_cost *c, char *buf, size_t len)
{
	const struct cell_rules *r = &c->rules;

	if (!c->source[0] || strcmp(c->tracer, "audit:rules"))
		snprintf(buf, len, "%s", "");
	else if (c->rules_match)
		snprintf(buf, len, "of this rule set (digest %s; the run loaded '%s', %d rules)",
			 r->digest, r->file, r->rules);
	else if (r->file[0])
		snprintf(buf, len, "of ANOTHER rule set: '%s' (%d rules, digest %s), none of this "
			 "set's stored", r->file, r->rules, r->digest);
	else
		snprintf(buf, len, "of a rule set not recorded (a run from before tracetax kept it), "
			 "none of this set's stored");
}

static void audit_cost_line(const char *what, const struct budget_audit_cost *c, FILE *f)
{
	char rules[1400];

	if (!c->source[0]) {
		fprintf(f, "  %s: no cost: %s\n", what, c->reason);
		return;
	}
	fprintf(f, "  %s: %.0f ns [%.0f, %.0f] per call, %s on %s, %s", what, c->ns, c->lo, c->hi,
		c->tracer, c->workload, c->source);
	if (c->run_id)
		fprintf(f, " run %" PRId64 " (%s)", c->run_id, c->started);
	else
		fprintf(f, " now");
	fprintf(f, ", %d reps", c->reps);
	if (c->consumer_ns > 0)
		fprintf(f, "; auditd's CPU %.0f ns per record", c->consumer_ns);
	output_walk_rules(c, rules, sizeof(rules));
	fprintf(f, "%s%s\n", *rules ? "; " : "", rules);
}

static void auid_str(char *buf, size_t len, uint32_t auid)
{
	if (auid == AUDIT_AUID_UNSET)
		snprintf(buf, len, "unset");
	else
		snprintf(buf, len, "%u", auid);
}

static void print_audit(const struct budget *b, const struct budget_tracer *t, FILE *f)
{
	static const char *const lv[AUDIT_LEVELS] = { "lower", "point", "upper" };
	static const char *const basis[AUDIT_LEVELS] = {
		"every filter budget cannot decide fails",
		"success=1 passes, the other undecided filters fail",
		"every filter budget cannot decide passes",
	};
	const struct budget_audit *a = t->audit;
	const struct budget_audit_est *e = &a->box;
	const struct budget_rates *r = &b->rates;
	double sec = r->seconds > 0 ? r->seconds : 1;
	char rate[32], au[16];

	fprintf(f, "\n%s with '%s': %d rules, %d on the syscall-exit list (%d of them file rules,"
		" %d of another arch), %d control lines left out\n", t->name, a->file, a->nrules,
		a->exit_rules, a->fs_rules, a->other_arch, a->dropped);
	fprintf(f, "  syscalls its syscall rules name:%s ", a->all_syscalls ? " every one, and" : "");
	nr_list(a->syscalls, a->nsyscalls, f);
	fprintf(f, "  syscalls its file rules can record (their permission classes): ");
	nr_list(a->fs_syscalls, a->nfs_syscalls, f);
	audit_cost_line("the walk (a call no rule records)", &a->walk, f);
	audit_cost_line("the walk of a call that looks a path up", &a->walk_path, f);
	audit_cost_line("a record", &a->record, f);
	audit_cost_line("a record of a call that looks a path up", &a->record_path, f);
	rate_str(rate, sizeof(rate), (double)e->events / sec);
	fprintf(f, "  calls: %s/s, %.2f%% of them looking a path up; of the syscalls the rules name"
		" %.2f%% (its syscall rules: %.2f%%); of those, made with a login uid their auid filters"
		" exclude: %.2f%%\n", rate,
		e->events ? 100.0 * (double)e->path / (double)e->events : 0,
		e->events ? 100.0 * (double)e->named / (double)e->events : 0,
		e->events ? 100.0 * (double)e->named_sys / (double)e->events : 0,
		e->named_sys ? 100.0 * (double)e->excluded / (double)e->named_sys : 0);
	fprintf(f, "  by login uid (read by the counter on every call):");
	for (int i = 0; i < a->nauids; i++) {
		auid_str(au, sizeof(au), a->auids[i].auid);
		rate_str(rate, sizeof(rate), (double)a->auids[i].events / sec);
		fprintf(f, "%s auid %s %s/s, %" PRId64 " named, records %" PRId64 "/%" PRId64 "/%" PRId64,
			i ? ";" : "", au, rate, a->auids[i].named, a->auids[i].records[AUDIT_LOWER],
			a->auids[i].records[AUDIT_POINT], a->auids[i].records[AUDIT_UPPER]);
	}
	if (r->auid_unnamed)
		fprintf(f, "; %" PRId64 " calls past the table (records at the upper bound)",
			r->auid_unnamed);
	fprintf(f, "\n  %-6s %10s %12s %30s %14s  %s\n", "bound", "records/s", "ns/call",
		"CPU share [95% CI]", "auditd's CPU", "basis");
	for (int l = 0; l < AUDIT_LEVELS; l++) {
		char sh[96], cs[32];

		level_str(sh, sizeof(sh), a, l);
		rate_str(rate, sizeof(rate), (double)e->records[l] / sec);
		output_pct_str(cs, sizeof(cs), a->consumer_share[l]);
		fprintf(f, "  %-6s %10s %12.0f %30s %14s  %s\n", lv[l], rate,
			e->events ? e->ns[l] / (double)e->events : NAN, sh, cs, basis[l]);
	}
	fprintf(f, "  %s\n", a->bound);
	fprintf(f, "  not modelled: a path call's cost beyond stat's; a record's at the box's own record"
		" rate; processes started before audit was first enabled have no audit context and pay"
		" nothing\n");
}

static void print_checks(const struct budget *b, FILE *f)
{
	if (!b->nchecks)
		return;
	fprintf(f, "\npredicted against measured (a run of the command, events x ns/event):\n");
	fprintf(f, "%-14s %-28s %9s %9s %24s %24s %9s\n", "tracer", "command", "events",
		"base ms", "predicted +% [CI]", "measured +% [CI]", "error");
	for (int i = 0; i < b->nchecks; i++) {
		const struct budget_check *k = &b->checks[i];
		char cmd[29], p[48], m[48], e[24];

		snprintf(cmd, sizeof(cmd), "%s", k->command);
		if (strcmp(k->status, "ok")) {
			fprintf(f, "%-14s %-28s %s: %s\n", k->tracer, cmd, k->status, k->reason);
			continue;
		}
		snprintf(p, sizeof(p), isfinite(k->pred_pct) ? "%.1f [%.1f, %.1f]" : "-",
			 k->pred_pct, k->pred_pct_lo, k->pred_pct_hi);
		snprintf(m, sizeof(m), "%.1f [%.1f, %.1f]", k->meas_pct, k->meas_pct_lo,
			 k->meas_pct_hi);
		snprintf(e, sizeof(e), isfinite(k->error_pct) ? "%+.0f%%%s" : "-", k->error_pct,
			 k->within ? "" : "*");
		fprintf(f, "%-14s %-28s %9" PRId64 " %9.2f %24s %24s %9s\n", k->tracer, cmd,
			k->events_per_run, k->base_ms, p, m, e);
		if (k->audit && k->named_per_run >= 0)
			fprintf(f, "  ^ %" PRId64 " calls a run of syscalls the rules name, records %" PRId64
				"/%" PRId64 "/%" PRId64 " (lower/point/upper); per call: predicted %.0f ns,"
				" lower %.0f, upper %.0f; measured %.0f [%.0f, %.0f]\n", k->named_per_run,
				k->records_per_run[AUDIT_LOWER], k->records_per_run[AUDIT_POINT],
				k->records_per_run[AUDIT_UPPER], k->pred_ns, k->lower_ns, k->upper_ns,
				k->meas_ns, k->meas_lo, k->meas_hi);
	}
	fprintf(f, "  error: (predicted - measured) / measured per event; *: the two CIs do not overlap\n");
}

void output_budget(const struct budget *b, FILE *f)
{
	char v[768];

	print_rates(&b->rates, f);
	print_costs(b, f);
	for (int i = 0; i < b->ntracers; i++)
		if (b->tracers[i].audit)
			print_audit(b, &b->tracers[i], f);
	print_checks(b, f);
	fprintf(f, "\n");
	for (int i = 0; i < b->ntracers; i++) {
		output_budget_verdict(b, &b->tracers[i], v, sizeof(v));
		fprintf(f, "%s\n", v);
	}
}
