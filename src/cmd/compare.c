/*
 * `tracetax compare A B`: what changed between two runs, cell by cell,
 * with a verdict a CI job can gate on (exit EXIT_WORSE).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli_results.h"
#include "cmd/cmd.h"
#include "compare/out.h"
#include "base/util.h"

static const char usage_compare[] =
	"usage: tracetax compare A B [--threshold PCT] [--store STORE] [--color WHEN]\n"
	"\n"
	"Compares two runs cell by cell (same workload, tracer, threads, target):\n"
	"the overhead per event in A and B, B - A with Welch's 95% CI over each run's\n"
	"round means, B/A, that t test's p-value and a verdict, worse, better or\n"
	"same. A and B are ids, last, last~N, or results documents (see 'tracetax\n"
	"show --help').\n"
	"\n"
	"      --threshold PCT    smallest change called, in % of A's overhead\n"
	"                         (default 5)\n"
	"\n"
	"A change is called only when it is significant at a family-wise 5% (Holm\n"
	"over the cells compared, on the same t test's p), and it exceeds the\n"
	"threshold and the runs' noise floor. No verdict with fewer than 3 round\n"
	"means (or reps, for a run of one round) a side ('too few reps'), nor when\n"
	"the cell's baseline moved between the runs beyond the threshold, by more\n"
	"than its rounds explain, or, for a run of one round, varied more than 5%\n"
	"between reps ('noisy'). No verdicts at all when one run is a guest of\n"
	"run --kernel under TCG and the other is not: an emulated CPU's ns are not\n"
	"costs ('not comparable'; two TCG guests compare with each other). A run\n"
	"in instructions (run --kernel under qemu's -icount) and one in ns are\n"
	"refused: one line, exit 5.\n"
	"Exit: 0 nothing worse, 4 a cell is worse, 5 not comparable, 1 a store\n"
	"error, 2 bad input.\n";

struct widths { int tracer, workload; bool workload_col, threads_col; };

static void plan_widths(const struct cmp *c, struct widths *w)
{
	const struct cell *first = NULL;

	memset(w, 0, sizeof(*w));
	w->tracer = 6;
	w->workload = 8;
	for (int i = 0; i < c->nrows; i++) {
		const struct cell *x = c->rows[i].a ? c->rows[i].a : c->rows[i].b;

		if ((int)strlen(x->tracer) > w->tracer)
			w->tracer = (int)strlen(x->tracer);
		if ((int)strlen(x->workload) > w->workload)
			w->workload = (int)strlen(x->workload);
		if (!first)
			first = x;
		w->workload_col |= strcmp(x->workload, first->workload) != 0;
		w->threads_col |= x->threads != first->threads;
	}
}

static void print_key(FILE *f, const struct widths *w, const char *tracer, const char *workload,
		      const char *threads)
{
	fprintf(f, "%-*s", w->tracer, tracer);
	if (w->workload_col)
		fprintf(f, "  %-*s", w->workload, workload);
	if (w->threads_col)
		fprintf(f, "  %3s", threads);
}

static void print_row(FILE *f, const struct widths *w, const struct cmp_row *r, double threshold_pct,
		      const struct cmp_style *st)
{
	char thr[16], ma[24], mb[24], d[24], lo[24], hi[24], ci[64] = "-", ratio[16] = "-", p[16] = "-";
	const char *colour = r->verdict == VERDICT_WORSE ? st->red :
			     r->verdict == VERDICT_BETTER ? st->green :
			     r->verdict == VERDICT_TOO_FEW || r->verdict == VERDICT_NOISY ||
			     r->verdict == VERDICT_NOT_COMPARABLE ? st->dim : "";

	snprintf(thr, sizeof(thr), "%d", r->a->threads);
	format_ns(ma, sizeof(ma), r->ma);
	format_ns(mb, sizeof(mb), r->mb);
	format_ns(d, sizeof(d), r->diff);
	if (!isnan(r->ci[0])) {
		format_ns(lo, sizeof(lo), r->ci[0]);
		format_ns(hi, sizeof(hi), r->ci[1]);
		snprintf(ci, sizeof(ci), "%s%s [%s, %s]", r->diff > 0 ? "+" : "", d, lo, hi);
	} else {
		snprintf(ci, sizeof(ci), "%s%s", r->diff > 0 ? "+" : "", d);
	}
	if (isfinite(r->ratio))
		snprintf(ratio, sizeof(ratio), "x%.2f", r->ratio);
	if (!isnan(r->p))
		snprintf(p, sizeof(p), r->p < 0.001 ? "<0.001" : "%.3f", r->p);
	print_key(f, w, r->a->tracer, r->a->workload, thr);
	fprintf(f, "  %9s  %9s  %-26s  %6s  %6s  %s%s%s", ma, mb, ci, ratio, p, colour,
		compare_verdict_name(r->verdict), st->reset);
	if (r->a->disturbed || r->b->disturbed)
		fprintf(f, "  (disturbed in %s)", r->a->disturbed && r->b->disturbed ? "A and B" :
			r->a->disturbed ? "A" : "B");
	/* a tracer that missed events did not do the work its cost is of */
	for (int i = 0; i < 2; i++) {
		const struct cell *x = i ? r->b : r->a;

		if (!results_hits_ok(x, x->hits, x->events))
			fprintf(f, "  (%s: hits %lld of %lld events)", i ? "B" : "A", (long long)x->hits,
				(long long)x->events);
	}
	if (r->a->aa)
		fputs("  (A/A: vs A's baseline)", f);
	if (fabs(r->base_shift) * 100 > threshold_pct)
		fprintf(f, "  (baseline %+.0f%%)", r->base_shift * 100);
	fputc('\n', f);
}

/* Cells on one side only, and cells that did not measure on a side. */
static void print_uncompared(FILE *f, const struct cmp *c, const struct cmp_style *st)
{
	bool first = true;

	for (int i = 0; i < c->nrows; i++) {
		const struct cmp_row *r = &c->rows[i];
		const struct cell *x = r->a ? r->a : r->b;

		if (r->compared)
			continue;
		fprintf(f, "%s%s%s (%s, %d thread%s): ", first ? "\n" : "", st->dim, x->tracer,
			x->workload, x->threads, x->threads == 1 ? "" : "s");
		first = false;
		if (!r->a || !r->b)
			fprintf(f, "only in %s", r->a ? "A" : "B");
		else if (r->a->status != CELL_OK)
			fprintf(f, "not compared: %s in A: %s", cell_status_name(r->a->status),
				r->a->reason);
		else
			fprintf(f, "not compared: %s in B: %s", cell_status_name(r->b->status),
				r->b->reason);
		fprintf(f, "%s\n", st->reset);
	}
}

static void print_footer(FILE *f, const struct cmp *c, const struct cmp_style *st, bool instr)
{
	fprintf(f, "\n%d worse, %d better, %d same, %d too few reps, %d noisy", c->worse, c->better,
		c->same, c->too_few, c->noisy);
	if (c->incomparable[0])
		fprintf(f, ", %d not comparable (%s)", c->not_comparable, c->incomparable);
	fputc('\n', f);
	fprintf(f, "%sA, B: mean overhead per event (%s) over each run's round means (its reps, for a\n"
		"run of one round); B - A [95%% CI]: Welch's t over those units; p: that t test's,\n"
		"two-sided, unadjusted. A verdict is worse or better when that p, Holm-adjusted over\n"
		"the %d cell%s compared (family-wise error 5%% when the units are independent: rounds\n"
		"spread over each run), is below 0.05 and |B - A| exceeds %.3g%% of A's overhead\n"
		"(--threshold) and the runs' noise floor; no verdict with too few units (under %d\n"
		"on a side), a baseline that moved between the runs (by more than the threshold,\n"
		"and significantly: noisy), or, for a run of one round, a noisy baseline (cv above\n"
		"%.0f%%)%s\n",
		st->dim, instr ? "instructions" : "ns", c->family, c->family == 1 ? "" : "s",
		c->threshold_pct, COMPARE_MIN_UNITS,
		COMPARE_NOISY_CV * 100, st->reset);
}

int cmd_compare(int argc, char **argv)
{
	static const struct cmp_style plain = { "", "", "", "", "", "" };
	static const struct cmp_style ansi = { "\033[31m", "\033[32m", "\033[1;33m", "\033[2m",
					       "\033[1m", "\033[0m" };
	struct results_args a;
	struct doc da, db;
	struct widths w;
	struct cmp c;
	char err[256];
	const struct cmp_style *st;

	if (cli_parse_results(argc, argv, &a, err, sizeof(err)))
		die_usage("%s (see 'tracetax compare --help')", err);
	if (a.help) {
		fputs(usage_compare, stdout);
		return 0;
	}
	st = cmd_want_colour(a.colour, STDOUT_FILENO) ? &ansi : &plain;
	cmd_load_run(a.runs[0], a.store, &da);
	cmd_load_run(a.runs[1], a.store, &db);
	/* a unit, not a label: instructions are never set beside ns */
	if (compare_units_apart(&da.r, &db.r, err, sizeof(err))) {
		error("runs '%s' and '%s' cannot be compared: %s", a.runs[0], a.runs[1], err);
		doc_release(&da);
		doc_release(&db);
		return EXIT_NOT_COMPARABLE;
	}
	compare_runs(&da.r, &db.r, a.threshold, &c);
	compare_print_env(stdout, &da, &db, st);
	if (fabs(c.base_shift) * 100 > c.threshold_pct)
		printf("%swarning: the untraced workload ran %.0f%% %s in B (median over the cells): the "
		       "machine differed between the runs, and overheads move with it%s\n\n", st->bold_yellow,
		       fabs(c.base_shift) * 100, c.base_shift > 0 ? "slower" : "faster", st->reset);
	plan_widths(&c, &w);
	fputs(st->bold, stdout);
	print_key(stdout, &w, "tracer", "workload", "thr");
	bool instr = results_in_instructions(&da.r.env);

	printf("  %9s  %9s  %-26s  %6s  %6s  %s%s\n", instr ? "A instr" : "A ns",
	       instr ? "B instr" : "B ns", "B - A [95% CI]", "B/A", "p",
	       "verdict", st->reset);
	for (int i = 0; i < c.nrows; i++)
		if (c.rows[i].compared)
			print_row(stdout, &w, &c.rows[i], c.threshold_pct, st);
	print_uncompared(stdout, &c, st);
	print_footer(stdout, &c, st, instr);
	int ret = c.incomparable[0] ? EXIT_NOT_COMPARABLE : c.worse ? EXIT_WORSE : 0;

	compare_release(&c);
	doc_release(&da);
	doc_release(&db);
	return fflush(stdout) ? EXIT_FAILED : ret;
}
