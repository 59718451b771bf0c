/* `tracetax budget --attached`: the consumers found, what each took, per owner. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "output/attached.h"

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

static void print_rows(const struct attached *a, FILE *f)
{
	fprintf(f, "%-34s %-14s %-34s %-22s %9s %8s %9s  %s\n", "consumer", "mechanism",
		"attached to", "owner", "events/s", "lost", "prog ns", "state");
	for (int i = 0; i < a->nrows; i++) {
		const struct att_row *r = &a->rows[i];
		char who[48], owner[48], rate[16], lost[24] = "-", prog[24] = "-";

		consumer_str(who, sizeof(who), r);
		owner_str(owner, sizeof(owner), r);
		rate_str(rate, sizeof(rate), r->rate);
		if (r->lost >= 0)
			snprintf(lost, sizeof(lost), "%lld", (long long)r->lost);
		if (isfinite(r->prog_ns))
			snprintf(prog, sizeof(prog), "%.1f", r->prog_ns);
		fprintf(f, "%-34.34s %-14.14s %-34.34s %-22.22s %9s %8s %9s  %s%s%s\n", who, r->c.mech,
			r->c.what, owner, rate, lost, prog, r->state, r->why[0] ? ": " : "", r->why);
	}
}

static void print_owners(const struct attached *a, FILE *f)
{
	fprintf(f, "\nper owner\n%-8s %-16s %9s %11s %14s  %s\n", "pid", "command", "consumers",
		"events/s", "prog ms/s", "command line");
	for (int i = 0; i < a->nowners; i++) {
		const struct att_owner *o = &a->owners[i];
		char rate[16], pid[16] = "-";

		rate_str(rate, sizeof(rate), o->rate);
		if (o->p.pid)
			snprintf(pid, sizeof(pid), "%d", (int)o->p.pid);
		fprintf(f, "%-8s %-16s %9d %10s%s %14.3f  %s\n", pid, o->p.comm, o->nrows, rate,
			o->nuncounted ? "+" : " ", o->prog_ns_total / 1e6, o->p.cmdline);
	}
	for (int i = 0; i < a->nowners; i++)
		if (a->owners[i].nuncounted) {
			fprintf(f, "(+: a floor, some of its consumers could not be counted)\n");
			break;
		}
}

void output_attached(const struct attached *a, FILE *f)
{
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
	fprintf(f, "audit: %s\n\n", a->audit);
	if (!a->nrows) {
		fprintf(f, "no tracing consumer found\n");
		return;
	}
	print_rows(a, f);
	print_owners(a, f);
}
