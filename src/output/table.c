/*
 * The terminal table: one line per measured cell, readable in 100 columns.
 * Columns are sized to their content, so a run of cheap BPF tracers stays
 * narrow and one with strace still lines up. Skipped and failed cells are
 * listed after the table, every one of them: a tracer that did not run is
 * an answer too ("not on this kernel"), never silently missing.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "output/dist.h"
#include "output/table.h"
#include "results/results.h"
#include "base/util.h"

#define TABLE_WIDTH 100
#define FIELD 96

enum col { COL_TRACER, COL_WORKLOAD, COL_THREADS, COL_BASE, COL_TRACED, COL_OVERHEAD,
	   COL_SLOWDOWN, COL_HITS, COL_LOST, COL_READER, COL_KREADER, COL_PROG, COL_TOOL, NCOLS };

static const char *const col_head[NCOLS] = {
	"tracer", "workload", "thr", "base ns", "traced ns", "+ns/event [95% CI]",
	"slowdown", "hits/events", "lost", "tracer cpu", "kernel cpu", "prog ns", "start/exit ms",
};
/* under qemu's -icount (environment.unit): the same figures, in instructions */
static const char *const col_head_instr[NCOLS] = {
	"tracer", "workload", "thr", "base instr", "traced instr", "+instr/event [95% CI]",
	"slowdown", "hits/events", "lost", "tracer cpu", "kernel cpu", "prog instr", "start/exit ms",
};

static const char *const *heads(const struct results *r)
{
	return results_in_instructions(&r->env) ? col_head_instr : col_head;
}

/* text columns align left, numbers right */
static const bool col_left[NCOLS] = { true, true };

struct style {
	const char *dim, *yellow, *red, *bold, *reset;
};

struct layout {
	bool show[NCOLS];
	int width[NCOLS];
};

static void fmt_slowdown(char *buf, size_t len, double v)
{
	if (!isfinite(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, v < 10 ? "x%.2f" : v < 100 ? "x%.1f" : "x%.0f", v);
}

static void cell_fields(const struct cell *c, char f[NCOLS][FIELD])
{
	char m[24], lo[24], hi[24], h[24], e[24];

	snprintf(f[COL_TRACER], FIELD, "%s", c->tracer);
	snprintf(f[COL_WORKLOAD], FIELD, "%s", c->workload);
	snprintf(f[COL_THREADS], FIELD, "%d", c->threads);
	format_ns(f[COL_BASE], FIELD, c->base.mean);
	format_ns(f[COL_TRACED], FIELD, c->traced.mean);
	format_ns(m, sizeof(m), c->overhead.mean);
	format_ns(lo, sizeof(lo), c->overhead.ci95[0]);
	format_ns(hi, sizeof(hi), c->overhead.ci95[1]);
	snprintf(f[COL_OVERHEAD], FIELD, "%s [%s, %s]", m, lo, hi);
	fmt_slowdown(f[COL_SLOWDOWN], FIELD, c->slowdown);
	format_count(e, sizeof(e), c->events);
	if (c->hits < 0) {
		snprintf(f[COL_HITS], FIELD, "n/a");
	} else {
		format_count(h, sizeof(h), c->hits);
		snprintf(f[COL_HITS], FIELD, "%s/%s", h, e);
	}
	snprintf(f[COL_LOST], FIELD, "%lld", (long long)c->lost);
	/* a reader on another CPU costs the machine without slowing the traced thread */
	if (c->consumer_ns_per_event > 0)
		format_ns(f[COL_READER], FIELD, c->consumer_ns_per_event);
	else
		snprintf(f[COL_READER], FIELD, "-");
	/* the kernel thread that feeds that reader (kauditd): unknown is "-", never 0 */
	if (isfinite(c->kernel_consumer_ns_per_event))
		format_ns(f[COL_KREADER], FIELD, c->kernel_consumer_ns_per_event);
	else
		snprintf(f[COL_KREADER], FIELD, "-");
	/* the BPF program's own time per run, from a pass with BPF stats on */
	if (c->prog.measured)
		format_ns(f[COL_PROG], FIELD, c->prog.ns_per_run);
	else
		snprintf(f[COL_PROG], FIELD, "-");
	/* a tool's start-up and shut-down: what it costs before and after the events */
	if (c->startup_ms > 0)
		snprintf(f[COL_TOOL], FIELD, "%.3g/%.3g", c->startup_ms,
			 c->shutdown_ms > 0 ? c->shutdown_ms : NAN);
	else
		snprintf(f[COL_TOOL], FIELD, "-");
}

static bool any_reader(const struct results *r)
{
	for (int i = 0; i < r->ncells; i++)
		if (r->cells[i].status == CELL_OK && r->cells[i].consumer_ns_per_event > 0)
			return true;
	return false;
}

static bool any_kreader(const struct results *r)
{
	for (int i = 0; i < r->ncells; i++)
		if (r->cells[i].status == CELL_OK && r->cells[i].kernel_consumer_ns_per_event > 0)
			return true;
	return false;
}

static bool any_prog(const struct results *r)
{
	for (int i = 0; i < r->ncells; i++)
		if (r->cells[i].status == CELL_OK && r->cells[i].prog.bpf)
			return true;
	return false;
}

static bool any_tool(const struct results *r)
{
	for (int i = 0; i < r->ncells; i++)
		if (r->cells[i].status == CELL_OK && r->cells[i].startup_ms > 0)
			return true;
	return false;
}

static bool varies(const struct results *r, bool by_workload)
{
	for (int i = 1; i < r->ncells; i++) {
		if (by_workload && strcmp(r->cells[i].workload, r->cells[0].workload))
			return true;
		if (!by_workload && r->cells[i].threads != r->cells[0].threads)
			return true;
	}
	return false;
}

static void plan_layout(const struct results *r, struct layout *l)
{
	char f[NCOLS][FIELD];

	for (int k = 0; k < NCOLS; k++) {
		l->show[k] = true;
		l->width[k] = (int)strlen(heads(r)[k]);
	}
	l->show[COL_WORKLOAD] = varies(r, true);
	l->show[COL_THREADS] = varies(r, false);
	l->show[COL_READER] = any_reader(r);
	l->show[COL_KREADER] = any_kreader(r);
	l->show[COL_PROG] = any_prog(r);
	l->show[COL_TOOL] = any_tool(r);
	for (int i = 0; i < r->ncells; i++) {
		if (r->cells[i].status != CELL_OK)
			continue;
		cell_fields(&r->cells[i], f);
		for (int k = 0; k < NCOLS; k++)
			if ((int)strlen(f[k]) > l->width[k])
				l->width[k] = (int)strlen(f[k]);
	}
}

/* Prints the columns, returns the width used, so the note can wrap. */
static int print_fields(FILE *out, const struct layout *l, const char *const f[NCOLS])
{
	int used = 0;

	for (int k = 0; k < NCOLS; k++) {
		if (!l->show[k])
			continue;
		used += fprintf(out, "%s%*s", used ? "  " : "", col_left[k] ? -l->width[k] : l->width[k], f[k]);
	}
	return used;
}

static void print_row(FILE *out, const struct layout *l, const struct cell *c, const struct style *st)
{
	char f[NCOLS][FIELD];
	const char *p[NCOLS];
	int used;

	cell_fields(c, f);
	for (int k = 0; k < NCOLS; k++)
		p[k] = f[k];
	used = print_fields(out, l, p);
	if (!c->note[0])
		fputc('\n', out);
	else if (used + 2 + (int)strlen(c->note) <= TABLE_WIDTH)
		fprintf(out, "  %s%s%s\n", st->yellow, c->note, st->reset);
	else	/* too long for the line: under it, indented, rather than wrapped by the terminal */
		fprintf(out, "\n    %s^ %s%s\n", st->yellow, c->note, st->reset);
}

/*
 * The A/A cells' verdict: the smallest overhead this run resolves, and a
 * warning when an A/A interval excludes 0 -- a tracer that does nothing
 * "costing" something means the machine is noisier than the CIs claim.
 */
static void print_floors(FILE *out, const struct results *r, const struct style *st)
{
	bool several = r->nfloors > 1;

	for (int i = 0; i < r->nfloors; i++) {
		const struct noise_floor *f = &r->floors[i];
		char ns[24], lo[24], hi[24];

		format_ns(ns, sizeof(ns), f->ns);
		format_ns(lo, sizeof(lo), f->ci95[0]);
		format_ns(hi, sizeof(hi), f->ci95[1]);
		if (several)
			fprintf(out, "noise floor, %s %dT: ", f->workload, f->threads);
		else
			fprintf(out, "noise floor: ");
		fprintf(out, "%s %s/event (A/A cell: [%s, %s])\n", ns, results_unit(&r->env), lo, hi);
		if (f->excludes_zero)
			fprintf(out, "%swarning: the A/A interval excludes 0: this machine's noise exceeds "
				"the stated CIs%s\n", st->yellow, st->reset);
	}
	if (!r->nfloors && r->ncells)
		fprintf(out, "noise floor: unknown (no A/A cell: add '-t none')\n");
}

/*
 * The machine's noise, once: the median baseline cv of each (workload,
 * threads), so that the rows need not repeat it; a row notes its own only
 * where it stands out (results.c).
 */
static void print_noise(FILE *out, const struct results *r, const struct style *st)
{
	bool several = false;

	for (int i = 1; i < r->ncells && !several; i++)
		several = strcmp(r->cells[i].workload, r->cells[0].workload) ||
			  r->cells[i].threads != r->cells[0].threads;
	for (int i = 0; i < r->ncells; i++) {
		const struct cell *c = &r->cells[i];
		struct run_note_sum s;
		bool seen = false;
		double cv;
		int n;

		for (int j = 0; j < i && !seen; j++)
			seen = r->cells[j].threads == c->threads &&
			       !strcmp(r->cells[j].workload, c->workload);
		cv = seen ? NAN : results_noise_cv(r, c->workload, c->threads, &n);
		if (!isfinite(cv))
			continue;
		results_run_note(r, c->workload, c->threads, RUN_NOTE_NOISE, &s);
		if (several)
			fprintf(out, "baseline noise, %s %dT: ", c->workload, c->threads);
		else
			fprintf(out, "baseline noise: ");
		fprintf(out, "%scv %.1f%%%s, the median of %d cell%s%s; a row notes one over %.1f%%\n",
			cv > RESULTS_NOISY_CV ? st->yellow : "", 100 * cv,
			cv > RESULTS_NOISY_CV ? " (noisy)" : "", n, n == 1 ? "" : "s",
			cv > RESULTS_NOISY_CV ? st->reset : "",
			100 * (results_run_note_wide(&s) ? results_run_note_bar(RUN_NOTE_NOISE, &s) :
			       RESULTS_NOISY_CV));
	}
}

/* Said once: it is the run's, not a cell's (docs/tracers.md, audit). */
static void print_audit_residue(FILE *out, const struct audit_residue *a, const struct style *st)
{
	char b[24], n[24], f[24];

	if (!a->measured)
		return;
	format_ns(b, sizeof(b), a->before_ns);
	format_ns(n, sizeof(n), a->never_ns);
	format_ns(f, sizeof(f), a->after_ns);
	fprintf(out, "%saudit residue%s: a fresh process's getpid %s ns before tracetax first enabled "
		"audit%s, %s ns with -a never,task, %s ns after it put audit back; every process "
		"started since pays it until reboot\n", st->yellow, st->reset, b,
		a->was_on ? " (audit was on already)" : "", n, f);
}

/*
 * Why a fresh task takes the syscall slow path, said only when something is
 * there (or it could not be read): every syscall pays that path's entry
 * work already, so a syscall hook's cost below is marginal to it.
 */
static void print_slow_path(FILE *out, const struct slow_path *s, const struct style *st)
{
	static const char *const audit_now[] = { ", off now", ", on", ", on and locked (-e 2)" };
	char why[1024] = "", g[24], n[24];
	unsigned c = s->causes;

	if (!results_slow_path_said(s))
		return;
	if (!s->known) {
		fprintf(out, "%ssyscall slow path: unknown%s (%s)\n", st->yellow, st->reset, s->unknown);
		return;
	}
#define WHY(...) snprintf(why + strlen(why), sizeof(why) - strlen(why), __VA_ARGS__)
	if (c & (1u << SLOW_AUDIT))
		WHY("%saudit: this boot has enabled audit%s", why[0] ? "; " : "",
		    s->audit_enabled >= 0 && s->audit_enabled <= 2 ? audit_now[s->audit_enabled] : "");
	if (c & (1u << SLOW_TRACEPOINT))
		WHY("%sa syscall tracepoint is enabled%s%s", why[0] ? "; " : "",
		    s->tracepoints[0] ? ": " : "", s->tracepoints);
	if (c & (1u << SLOW_SECCOMP))
		WHY("%sseccomp: tracetax runs under a filter, and so does every task it starts",
		    why[0] ? "; " : "");
	if (c & (1u << SLOW_PTRACE))
		WHY("%sptrace: tracetax is traced", why[0] ? "; " : "");
	if (c & (1u << SLOW_USER_DISPATCH))
		WHY("%ssyscall user dispatch", why[0] ? "; " : "");
#undef WHY
	format_ns(g, sizeof(g), s->getpid_ns);
	format_ns(n, sizeof(n), s->never_task_ns);
	fprintf(out, "%ssyscall slow path%s: %s (%s); a fresh process's getpid %s ns%s%s%s; a syscall "
		"hook's cost below is marginal to it\n", st->yellow, st->reset,
		c & ((1u << SLOW_AUDIT) | (1u << SLOW_TRACEPOINT)) ? "every new task takes it" :
		"the tasks tracetax starts take it", why, g,
		isfinite(s->never_task_ns) ? ", " : "", isfinite(s->never_task_ns) ? n : "",
		isfinite(s->never_task_ns) ? " ns with -a never,task" : "");
}

static void print_header(FILE *out, const struct results *r, const struct style *st)
{
	const struct environment *e = &r->env;
	char reps[32];
	int rounds;

	results_reps_ran(r, reps, sizeof(reps), &rounds);
	fprintf(out, "%stracetax %s%s: kernel %s %s, %d x %s\n", st->bold, e->tracetax_version,
		st->reset, e->kernel, e->arch, e->cpus, e->cpu_model);
	fprintf(out, "clocksource %s, virt %s, governor %s, %s reps in %d round%s, seed %llu%s%s\n",
		e->clocksource, e->virtualization, e->governor, reps, rounds, rounds > 1 ? "s" : "",
		(unsigned long long)r->opts.seed, r->opts.target[0] ? ", target " : "",
		r->opts.target);
	if (e->vm[0] && results_in_instructions(e))
		fprintf(out, "%sin a VM: kernel %s, accel tcg with -icount: every figure is guest "
			"instructions (instructions/event), not ns%s\n", st->yellow, e->kernel, st->reset);
	else if (e->vm[0])
		fprintf(out, "%sin a VM: kernel %s, accel %s%s%s\n", st->yellow, e->kernel, e->vm,
			strcmp(e->vm, "tcg") ? "" : " (emulated CPU: the ns are not costs)", st->reset);
	if (r->opts.precision > 0)
		fprintf(out, "--precision %.3g%%: rounds added until the overhead's CI is within +-%.3g%%, "
			"in at most %d s\n", r->opts.precision, r->opts.precision, r->opts.max_time_s);
	if (e->other_tracers[0] && strcmp(e->other_tracers, "none"))
		fprintf(out, "%salready tracing: %s%s\n", st->yellow, e->other_tracers, st->reset);
	print_slow_path(out, &r->slow_path, st);
	output_dist_header(r, out, st->reset[0]);
	print_floors(out, r, st);
	print_noise(out, r, st);
	/* the machine's notes that stand on most rows: here once (results.h, notes.c) */
	for (int k = RUN_NOTE_NOISE + 1; k < RUN_NOTES; k++) {
		char line[320];

		if (results_run_note_text(r, (enum run_note)k, line, sizeof(line)))
			fprintf(out, "%s%s%s\n", st->yellow, line, st->reset);
	}
	if (r->stats_cost.measured) {
		const struct stats_cost *k = &r->stats_cost;
		char m[24], lo[24], hi[24];

		format_ns(m, sizeof(m), k->mean);
		format_ns(lo, sizeof(lo), k->ci95[0]);
		format_ns(hi, sizeof(hi), k->ci95[1]);
		/* the sign as measured: on a busy machine the mean can come out below 0 */
		fprintf(out, "bpf stats: %s%s %s/event [%s, %s] while on (%s, %d pairs); in no figure "
			"below\n", k->mean >= 0 ? "+" : "", m, results_unit(&r->env), lo, hi, k->tracer,
			k->pairs);
	}
	print_audit_residue(out, &r->audit_residue, st);
	fputc('\n', out);
}

/* The family part of "bpf:tp/count", as a length. */
static size_t family_len(const char *tracer)
{
	const char *slash = strchr(tracer, '/');

	return slash ? (size_t)(slash - tracer) : strlen(tracer);
}

/* Cells j > i that say the same thing as cell i: same family, status, place, reason. */
static bool same_story(const struct cell *a, const struct cell *b)
{
	size_t n = family_len(a->tracer);

	return b->status == a->status && family_len(b->tracer) == n &&
	       !strncmp(a->tracer, b->tracer, n) && b->tracer[n] == '/' &&
	       !strcmp(a->workload, b->workload) && a->threads == b->threads &&
	       !strcmp(a->reason, b->reason);
}

/*
 * Skipped and failed cells, the variants of one family that share a reason
 * on one line ("bpf:kprobe/{count,empty}"); a reason that would pass 100
 * columns goes on a line of its own.
 */
static void print_unmeasured(FILE *out, const struct results *r, const struct layout *l,
			     const struct style *st)
{
	for (int i = 0; i < r->ncells; i++) {
		const struct cell *c = &r->cells[i];
		char where[96] = "", name[256];
		bool skipped = c->status == CELL_SKIPPED;
		const char *reason = c->reason[0] ? c->reason : "no reason given";
		int j = i + 1, len;

		if (c->status == CELL_OK)
			continue;
		while (j < r->ncells && same_story(c, &r->cells[j]))
			j++;
		if (j - i > 1) {
			size_t n = family_len(c->tracer);

			len = snprintf(name, sizeof(name), "%.*s/{%s", (int)n, c->tracer, c->tracer + n + 1);
			for (int k = i + 1; k < j; k++)
				len += snprintf(name + len, sizeof(name) - (size_t)len, ",%s",
						r->cells[k].tracer + n + 1);
			snprintf(name + len, sizeof(name) - (size_t)len, "}");
		} else {
			snprintf(name, sizeof(name), "%s", c->tracer);
		}
		if (l->show[COL_WORKLOAD] || l->show[COL_THREADS])
			snprintf(where, sizeof(where), " (%s, %d thread%s)", c->workload,
				 c->threads, c->threads == 1 ? "" : "s");
		len = (int)(strlen(name) + strlen(where) + strlen(reason)) + 13;
		fprintf(out, "%s  %-8s %s%s:%s%s%s\n", skipped ? st->dim : st->red,
			skipped ? "skipped" : "failed", name, where, len > 100 ? "\n           " : " ",
			reason, st->reset);
		i = j - 1;
	}
}

static void print_footer(FILE *out, const struct style *st, bool reader, bool kreader, bool prog,
			 bool tool, int rounds)
{
	fprintf(out, "%s"
		"base, traced: ns per op of the hot loop, mean over reps; +ns/event: traced - base,\n"
		"%s; slowdown: traced / base;\n"
		"noise floor: the largest overhead the A/A cell (none) allows; hits/events: events the\n"
		"tracer saw / events the workload made (n/a: the tracer cannot count); lost: seen but\n"
		"dropped or overwritten%s%s%s%s%s\n",
		st->dim, rounds > 1 ?
		"per event, mean [95% CI, Student's t over the cell's round means: it holds the\n"
		"machine's drift between rounds]" :
		"per event, mean [95% CI, Student's t over paired reps]",
		reader ? "; tracer cpu: CPU ns per event of our reader,\n"
		"supervisor or ptrace helper" : "", kreader ? "; kernel cpu: CPU ns per event of\n"
		"the kernel thread that feeds it (audit: kauditd)" : "", prog ? "; prog ns: the BPF program's own time per\n"
		"run (kernel BPF stats, median of 3 traced runs after the reps)" : "",
		tool ? ";\nstart/exit ms: a tool's launch to attached, and the workload's end (or\n"
		"detach) to the tool's exit, mean" : "", st->reset);
}

void output_table_instructions_note(FILE *out, const char *dim, const char *reset)
{
	fprintf(out, "%s"
		"instr: guest instructions, counted by qemu's -icount shift=0 (its clock: 1 ns an\n"
		"instruction), whatever the host's load; a rep's timers add ~70k instructions over\n"
		"its iterations (-n 200000: 0.05 an event run to run). They are not cycles:\n"
		"a trap (int3), a serializing instruction, a cache miss or a mitigation costs many\n"
		"cycles and counts as one instruction. On Debian's 6.1, kprobe reads 378 and tp 425\n"
		"instructions an event, while the kernel's trig bench has kprobe slower in M/s\n"
		"(docs/vm.md)%s\n", dim, reset);
}

/* What the document's repeat95 is, and the drift between runs it adds, from where. */
static void print_repeat(FILE *out, const struct results *r, const struct style *st)
{
	const struct repeat_drift *d = &r->drift;
	char from[200];

	if (!d->known)
		return;
	switch (d->basis) {
	case REPEAT_NONE:
		fprintf(out, "%srepeat95 (in the JSON): where a rerun's mean should land: none,\n%s%s\n",
			st->dim, d->note, st->reset);
		return;
	case REPEAT_ASSUMED:
		snprintf(from, sizeof(from), "ASSUMED, not measured on this host (%s;\n"
			 "docs/method.md 5c)", d->note);
		break;
	default:
		snprintf(from, sizeof(from), "the drift between runs, from this run and %d earlier "
			 "one%s%s (%d cell%s)%s%s", d->runs - 1, d->runs == 2 ? "" : "s",
			 d->basis == REPEAT_OTHER_VERSIONS ? " of this host, OTHER tracetax versions too" :
			 "", d->cells, d->cells == 1 ? "" : "s", d->note[0] ? "; " : "", d->note);
	}
	fprintf(out, "%srepeat95 (in the JSON): where a rerun's mean should land, 95%%: mean +-\n"
		"t sqrt(2 se^2 + 2 (tau mean)^2), se the CI's; tau %.2g%%: %s%s\n", st->dim,
		100 * d->tau, from, st->reset);
}

/* --placement rotate: each cell's overhead on each CPU its reps ran on. */
static void print_per_cpu(FILE *out, const struct results *r, const struct style *st)
{
	bool any = false;

	for (int i = 0; i < r->ncells; i++) {
		const struct cell *c = &r->cells[i];

		if (c->status != CELL_OK || !c->nper_cpu)
			continue;
		if (!any)
			fprintf(out, "\n%soverhead per CPU (ns/event [95%% CI], reps)%s\n", st->bold,
				st->reset);
		any = true;
		fprintf(out, "  %-16s %-10s", c->tracer, c->workload);
		for (int k = 0; k < c->nper_cpu; k++) {
			const struct cpu_overhead *o = &c->per_cpu[k];

			fprintf(out, "  cpu%d %.0f [%.0f, %.0f] %d", o->cpu, o->mean, o->ci95[0],
				o->ci95[1], o->n);
		}
		fprintf(out, "%s\n", c->cpus_differ ? "  CPUs differ (paired by round)" : "");
	}
}

void output_table(const struct results *r, FILE *out, bool colour)
{
	static const struct style plain = { "", "", "", "", "" };
	static const struct style ansi = { "\033[2m", "\033[33m", "\033[31m", "\033[1m", "\033[0m" };
	const struct style *st = colour ? &ansi : &plain;
	struct layout l;
	int measured = 0, unmeasured = 0;

	plan_layout(r, &l);
	print_header(out, r, st);
	for (int i = 0; i < r->ncells; i++) {
		if (r->cells[i].status == CELL_OK)
			measured++;
		else
			unmeasured++;
	}
	if (measured) {
		fputs(st->bold, out);
		print_fields(out, &l, heads(r));
		fprintf(out, "  note%s\n", st->reset);
		for (int i = 0; i < r->ncells; i++)
			if (r->cells[i].status == CELL_OK)
				print_row(out, &l, &r->cells[i], st);
	} else {
		fprintf(out, "no cell was measured\n");
	}
	if (unmeasured) {
		fputc('\n', out);
		print_unmeasured(out, r, &l, st);
	}
	if (measured) {
		fputc('\n', out);
		print_footer(out, st, l.show[COL_READER], l.show[COL_KREADER], l.show[COL_PROG], l.show[COL_TOOL],
			     r->opts.rounds);
		if (results_in_instructions(&r->env))
			output_table_instructions_note(out, st->dim, st->reset);
		print_repeat(out, r, st);
		print_per_cpu(out, r, st);
		output_dist_sections(r, out, st->reset[0]);
		output_table_net(r, out, st->bold, st->reset);
		output_table_cmd(r, out, st->bold, st->reset);
	}
}
