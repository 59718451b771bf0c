/*
 * The report's charts, inline SVG: overheads on a log axis from 1 ns to
 * 100 us (what tracers span, from an inline counter to ptrace), a row per
 * cell with its name and figures above its bar, so the chart stays narrow
 * enough for a phone. Every bar carries a <title> with its figures.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/report.h"
#include "base/util.h"

/*
 * The charts' width in user units: at the page's widest (html.c caps a
 * chart at 68rem) a unit is ~1.1 px, so the 13 px labels stay 13-15 px.
 */
#define WIDTH   960
#define X0      12                  /* plot area, left and right */
#define X1      (WIDTH - 12)
/*
 * A label's room, in characters: a 13 px system-ui character is 6-7.2
 * units wide (digits, tabular, the widest): what passes X1 is cut by the
 * SVG's edge, so a name is shortened first, never the figures after it.
 */
#define CHAR_W  7.4
#define LABEL_CHARS ((int)((X1 - X0) / CHAR_W))
#define DECADES 5                   /* 1 ns .. 100 us */
#define ROW     40
#define TOP     28                  /* room for the axis labels */

/* Okabe-Ito, told apart with most colour blindness; darkened where light on white. */
static const struct { const char *family, *colour; } colours[] = {
	{ "none", "#8c8c8c" }, { "inline", "#009e73" }, { "preload", "#56b4e9" },
	{ "ptrace", "#d55e00" }, { "seccomp", "#cc79a7" }, { "ftrace", "#e69f00" },
	{ "perf", "#0072b2" }, { "bpf", "#3a3f9e" }, { "uprobe", "#a08c00" },
};
static const char *const spare[] = { "#7a4f2a", "#2a7a6f", "#7a2a5a", "#4f7a2a" };

void html_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default: fputc(*s, f);
		}
	}
}

const char *report_family(const char *tracer, char *family, size_t len)
{
	size_t n = strcspn(tracer, ":/");
	unsigned h = 0;

	snprintf(family, len, "%.*s", (int)n, tracer);
	for (size_t i = 0; i < sizeof(colours) / sizeof(colours[0]); i++)
		if (!strcmp(colours[i].family, family))
			return colours[i].colour;
	for (const char *p = family; *p; p++)	/* tools as tracers: a stable colour each */
		h = h * 31 + (unsigned char)*p;
	return spare[h % (sizeof(spare) / sizeof(spare[0]))];
}

/* Characters (UTF-8 code points) in @s. */
static int chars(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

/*
 * @name, escaped, in at most @room characters: cut at a character's start
 * and ended with "…" when longer (the <title> keeps it whole).
 */
static void label_name(FILE *f, const char *name, int room)
{
	char buf[256];
	int n = 0;
	size_t i = 0;

	if (room < 8)
		room = 8;
	if (chars(name) <= room) {
		html_text(f, name);
		return;
	}
	for (; name[i] && i + 4 < sizeof(buf); i++) {
		if (((unsigned char)name[i] & 0xc0) != 0x80 && ++n > room - 1)
			break;
		buf[i] = name[i];
	}
	while (i > 0 && ((unsigned char)name[i] & 0xc0) == 0x80)	/* not inside a character */
		i--;
	buf[i] = '\0';
	html_text(f, buf);
	fputs("…", f);
}

/* x of @ns on the log axis, clamped to it: below 1 ns (or <= 0) at its left end. */
static double xpos(double ns)
{
	double d = ns >= 1 ? log10(ns) : 0;

	if (!isfinite(d))
		d = 0;
	if (d > DECADES)
		d = DECADES;
	return X0 + (X1 - X0) * d / DECADES;
}

static void axis(FILE *f, int height)
{
	static const char *const label[] = { "1 ns", "10 ns", "100 ns", "1 µs", "10 µs", "100 µs" };

	fputs("<g class=\"axis\">", f);
	for (int d = 0; d <= DECADES; d++) {
		double x = X0 + (double)(X1 - X0) * d / DECADES;

		fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>", x, TOP - 6, x, height - 4);
		fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"%s\">%s</text>", x, TOP - 10,
			d == 0 ? "start" : d == DECADES ? "end" : "middle", label[d]);
	}
	fputs("</g>\n", f);
}

/* "38.9 ns [38.2, 39.6]" */
static void fmt_overhead(char *buf, size_t len, const struct summary *s)
{
	char m[24], lo[24], hi[24];

	format_ns(m, sizeof(m), s->mean);
	format_ns(lo, sizeof(lo), s->ci95[0]);
	format_ns(hi, sizeof(hi), s->ci95[1]);
	snprintf(buf, len, "%s ns [%s, %s]", m, lo, hi);
}

/* "getpid, 2 threads" when the run has several of either, else "" */
static void place(char *buf, size_t len, const struct results *r, const struct cell *c)
{
	bool workloads = false, threads = false;

	for (int i = 0; i < r->ncells; i++) {
		workloads |= strcmp(r->cells[i].workload, c->workload) != 0;
		threads |= r->cells[i].threads != c->threads;
	}
	buf[0] = '\0';
	if (workloads || threads)
		snprintf(buf, len, " · %s%s%d thread%s", workloads ? c->workload : "", workloads ? ", " : "",
			 c->threads, c->threads == 1 ? "" : "s");
}

/* A bar from the axis' start to @mean, and the interval's whisker across it. */
static void bar(FILE *f, int y, const struct summary *s, const char *colour, double opacity)
{
	double x = xpos(s->mean), lo = xpos(s->ci95[0]), hi = xpos(s->ci95[1]);

	fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"12\" fill=\"%s\" fill-opacity=\"%.2f\"/>",
		X0, y, fmax(x - X0, 1.5), colour, opacity);
	if (isfinite(s->ci95[0]) && hi > lo)
		fprintf(f, "<path class=\"ci\" d=\"M%.1f %dV%dM%.1f %dH%.1fM%.1f %dV%d\"/>", lo, y + 2, y + 10,
			lo, y + 6, hi, hi, y + 2, y + 10);
}

static void overhead_row(FILE *f, const struct results *r, const struct cell *c, int y)
{
	char family[32], where[96], over[96], hits[48], h[24], e[24], figs[256];
	const char *colour = report_family(c->tracer, family, sizeof(family));
	const struct noise_floor *fl = results_floor(r, c);

	place(where, sizeof(where), r, c);
	fmt_overhead(over, sizeof(over), &c->overhead);
	format_count(e, sizeof(e), c->events);
	format_count(h, sizeof(h), c->hits);
	snprintf(hits, sizeof(hits), "%s%s%s hits", c->hits < 0 ? "n/a" : h, c->hits < 0 ? "" : "/",
		 c->hits < 0 ? "" : e);
	fprintf(f, "<g class=\"bar\" data-tracer=\"");
	html_text(f, c->tracer);
	fprintf(f, "\" data-family=\"");
	html_text(f, family);
	fprintf(f, "\"><title>");
	html_text(f, c->tracer);
	html_text(f, where);
	fprintf(f, ": %s per event (95%% CI), %d reps; %s, %lld lost", over, c->nreps, hits,
		(long long)c->lost);
	if (c->note[0]) {
		fputs("; ", f);
		html_text(f, c->note);
	}
	/* the figures follow the name, so a narrow screen shows them before the bar's end */
	snprintf(figs, sizeof(figs), " — %s · %s · %lld lost", over, hits, (long long)c->lost);
	fprintf(f, "</title><text x=\"%d\" y=\"%d\" class=\"name\">", X0, y + 12);
	label_name(f, c->tracer, LABEL_CHARS - chars(where) - chars(figs));
	html_text(f, where);
	fprintf(f, "<tspan class=\"fig\">%s</tspan></text>", figs);
	if (fl && isfinite(fl->ns) && fl->ns >= 1)	/* below it, no overhead is told from noise */
		fprintf(f, "<rect class=\"floor\" x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"16\"/>", X0,
			y + 16, xpos(fl->ns) - X0);
	bar(f, y + 18, &c->overhead, colour, 1);
	fputs("</g>\n", f);
}

void svg_overhead(FILE *f, const struct results *r)
{
	int rows = 0, y = TOP;

	for (int i = 0; i < r->ncells; i++)
		rows += r->cells[i].status == CELL_OK;
	fprintf(f, "<svg class=\"chart\" viewBox=\"0 0 %d %d\" role=\"img\" "
		"aria-label=\"overhead per event of each tracer, log scale\">\n", WIDTH, TOP + rows * ROW + 4);
	axis(f, TOP + rows * ROW + 4);
	for (int i = 0; i < r->ncells; i++) {
		if (r->cells[i].status != CELL_OK)
			continue;
		overhead_row(f, r, &r->cells[i], y);
		y += ROW;
	}
	fputs("</svg>\n", f);
}

static void compare_row(FILE *f, const struct cmp_row *w, int y)
{
	char family[32], d[24], lo[24], hi[24], a[96], b[96], figs[256];
	const char *colour = report_family(w->a->tracer, family, sizeof(family));
	const char *v = compare_verdict_name(w->verdict);

	format_ns(d, sizeof(d), w->diff);
	format_ns(lo, sizeof(lo), w->ci[0]);
	format_ns(hi, sizeof(hi), w->ci[1]);
	fmt_overhead(a, sizeof(a), &w->a->overhead);
	fmt_overhead(b, sizeof(b), &w->b->overhead);
	fprintf(f, "<g class=\"pair %s\"><title>", w->verdict == VERDICT_TOO_FEW ? "too-few" : v);
	html_text(f, w->a->tracer);
	fprintf(f, " (%s, %d thread%s): A %s, B %s; B - A %s%s ns", w->a->workload, w->a->threads,
		w->a->threads == 1 ? "" : "s", a, b, w->diff > 0 ? "+" : "", d);
	if (isfinite(w->ci[0]))
		fprintf(f, " [%s, %s]", lo, hi);
	fprintf(f, "; %s</title><text x=\"%d\" y=\"%d\" class=\"name\">", v, X0, y + 12);
	snprintf(figs, sizeof(figs), " — %s%s ns · %s", w->diff > 0 ? "+" : "", d, v);
	label_name(f, w->a->tracer, LABEL_CHARS - chars(figs) - chars(w->a->workload) - 8);
	fputs(" · ", f);
	label_name(f, w->a->workload, 40);
	fprintf(f, ", %dT<tspan class=\"fig verdict\">%s</tspan></text>", w->a->threads, figs);
	bar(f, y + 17, &w->a->overhead, colour, 0.35);
	bar(f, y + 31, &w->b->overhead, colour, 1);
	fputs("</g>\n", f);
}

void svg_compare(FILE *f, const struct cmp *c)
{
	int rows = 0, y = TOP;

	for (int i = 0; i < c->nrows; i++)
		rows += c->rows[i].compared;
	fprintf(f, "<svg class=\"chart\" viewBox=\"0 0 %d %d\" role=\"img\" "
		"aria-label=\"overhead per event in A (light) and B (dark), log scale\">\n", WIDTH,
		TOP + rows * (ROW + 14) + 4);
	axis(f, TOP + rows * (ROW + 14) + 4);
	for (int i = 0; i < c->nrows; i++) {
		if (!c->rows[i].compared)
			continue;
		compare_row(f, &c->rows[i], y);
		y += ROW + 14;
	}
	fputs("</svg>\n", f);
}

/* Thread scaling: the cells of one (workload, tracer) at each thread count. */
#define TH_H    260                 /* plot height; 1 ns at the bottom */
#define TH_X0   56
#define TH_X1   (WIDTH - 170)       /* room for the series' names */

static double ypos(double ns)
{
	double d = ns >= 1 ? log10(ns) : 0;

	d = isfinite(d) ? fmin(d, DECADES) : 0;
	return TOP + TH_H - TH_H * d / DECADES;
}

static bool same_series(const struct cell *a, const struct cell *b)
{
	return !strcmp(a->workload, b->workload) && !strcmp(a->tracer, b->tracer) &&
	       !strcmp(a->target, b->target);
}

/* Sorted distinct thread counts of the series with two or more; their count. */
static int thread_counts(const struct results *r, int *t, int max)
{
	int n = 0;

	for (int i = 0; i < r->ncells; i++) {
		const struct cell *c = &r->cells[i];
		bool series = false, seen = false;

		for (int j = 0; j < r->ncells; j++)
			series |= j != i && r->cells[j].status == CELL_OK && same_series(c, &r->cells[j]) &&
				  r->cells[j].threads != c->threads;
		for (int k = 0; k < n; k++)
			seen |= t[k] == c->threads;
		if (c->status != CELL_OK || !series || seen || n == max)
			continue;
		int k = n++;

		for (; k > 0 && t[k - 1] > c->threads; k--)
			t[k] = t[k - 1];
		t[k] = c->threads;
	}
	return n;
}

static double th_x(const int *t, int n, int threads)
{
	for (int k = 0; k < n; k++)
		if (t[k] == threads)
			return n == 1 ? TH_X0 : TH_X0 + (double)(TH_X1 - TH_X0) * k / (n - 1);
	return TH_X0;
}

static void th_axes(FILE *f, const int *t, int n)
{
	static const char *const label[] = { "1 ns", "10 ns", "100 ns", "1 µs", "10 µs", "100 µs" };

	fputs("<g class=\"axis\">", f);
	for (int d = 0; d <= DECADES; d++) {
		double y = TOP + TH_H - (double)TH_H * d / DECADES;

		fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/><text x=\"%d\" y=\"%.1f\" "
			"text-anchor=\"end\">%s</text>", TH_X0, y, TH_X1, y, TH_X0 - 6, y + 4, label[d]);
	}
	for (int k = 0; k < n; k++)
		fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%d</text>", th_x(t, n, t[k]),
			TOP + TH_H + 16, t[k]);
	fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">threads</text></g>\n",
		(TH_X0 + TH_X1) / 2, TOP + TH_H + 32);
}

static void th_series(FILE *f, const struct results *r, int first, const int *t, int n)
{
	const struct cell *s = &r->cells[first];
	char family[32], m[24];
	const char *colour = report_family(s->tracer, family, sizeof(family));
	double lx = 0, ly = 0;

	fprintf(f, "<g class=\"series\"><polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"",
		colour);
	for (int i = first; i < r->ncells; i++)
		if (r->cells[i].status == CELL_OK && same_series(s, &r->cells[i]))
			fprintf(f, "%.1f,%.1f ", th_x(t, n, r->cells[i].threads), ypos(r->cells[i].overhead.mean));
	fputs("\"/>", f);
	for (int i = first; i < r->ncells; i++) {
		const struct cell *c = &r->cells[i];

		if (c->status != CELL_OK || !same_series(s, c))
			continue;
		lx = th_x(t, n, c->threads);
		ly = ypos(c->overhead.mean);
		format_ns(m, sizeof(m), c->overhead.mean);
		fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\"><title>", lx, ly, colour);
		html_text(f, c->tracer);
		fprintf(f, " on %s, %d thread%s: %s ns per event</title></circle>", c->workload, c->threads,
			c->threads == 1 ? "" : "s", m);
	}
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" class=\"name\">", lx + 8, ly + 4);
	label_name(f, s->tracer, (int)((WIDTH - lx - 8) / CHAR_W) - chars(s->workload) - 3);
	fputs(" · ", f);
	html_text(f, s->workload);
	fputs("</text></g>\n", f);
}

bool svg_threads(FILE *f, const struct results *r)
{
	int t[64], n = thread_counts(r, t, 64);

	if (n < 2 || !f)
		return n >= 2;
	fprintf(f, "<svg class=\"chart\" viewBox=\"0 0 %d %d\" role=\"img\" "
		"aria-label=\"overhead per event against threads, log scale\">\n", WIDTH, TOP + TH_H + 40);
	th_axes(f, t, n);
	for (int i = 0; i < r->ncells; i++) {
		bool first = true, series = false;

		if (r->cells[i].status != CELL_OK)
			continue;
		for (int j = 0; j < r->ncells; j++) {
			if (r->cells[j].status != CELL_OK || !same_series(&r->cells[i], &r->cells[j]) || j == i)
				continue;
			first &= j > i;
			series |= r->cells[j].threads != r->cells[i].threads;
		}
		if (first && series)
			th_series(f, r, i, t, n);
	}
	fputs("</svg>\n", f);
	return true;
}

/*
 * Runs of several hosts or kernels: for each tracer (with its workload
 * and threads) measured in more than one of them, its bars side by side,
 * one per run, named by host or kernel: what the tracer costs across a
 * fleet, on one axis.
 */
static bool same_cell(const struct cell *a, const struct cell *b)
{
	return !strcmp(a->tracer, b->tracer) && !strcmp(a->workload, b->workload) &&
	       a->threads == b->threads;
}

/* The first ok cell of run @k like @c; NULL: none. */
static const struct cell *cell_like(const struct results *r, const struct cell *c)
{
	for (int i = 0; i < r->ncells; i++)
		if (r->cells[i].status == CELL_OK && same_cell(&r->cells[i], c))
			return &r->cells[i];
	return NULL;
}

void svg_fleet(FILE *f, const struct doc *docs, int n, bool by_kernel)
{
	int rows = 0, groups = 0, y = TOP;

	/* a group per cell of any run, first seen; counted, then drawn */
	for (int pass = 0; pass < 2; pass++) {
		for (int k = 0; k < n; k++)
			for (int i = 0; i < docs[k].r.ncells; i++) {
				const struct cell *c = &docs[k].r.cells[i];
				char family[32];
				const char *colour;
				int seen = 0, in = 0;

				if (c->status != CELL_OK)
					continue;
				for (int j = 0; j < k && !seen; j++)
					seen = cell_like(&docs[j].r, c) != NULL;
				for (int j = 0; j < i && !seen; j++)
					seen = docs[k].r.cells[j].status == CELL_OK && same_cell(&docs[k].r.cells[j], c);
				for (int j = 0; j < n; j++)
					in += cell_like(&docs[j].r, c) != NULL;
				if (seen || in < 2)
					continue;
				if (!pass) {
					groups++;
					rows += in;
					continue;
				}
				colour = report_family(c->tracer, family, sizeof(family));
				fprintf(f, "<text x=\"%d\" y=\"%d\" class=\"name\">", X0, y + 12);
				label_name(f, c->tracer, LABEL_CHARS - 50);
				fputs(" · ", f);
				label_name(f, c->workload, 40);
				fprintf(f, ", %dT</text>\n", c->threads);
				y += 18;
				for (int j = 0; j < n; j++) {
					const struct cell *o = cell_like(&docs[j].r, c);
					char over[96];

					if (!o)
						continue;
					fmt_overhead(over, sizeof(over), &o->overhead);
					fprintf(f, "<g class=\"bar\"><title>");
					html_text(f, by_kernel ? docs[j].r.env.kernel : docs[j].r.env.hostname);
					fprintf(f, " (%s): %s per event (95%% CI)</title>", docs[j].name, over);
					fprintf(f, "<text x=\"%d\" y=\"%d\" class=\"fig\" text-anchor=\"end\">", X1, y + 10);
					html_text(f, by_kernel ? docs[j].r.env.kernel : docs[j].r.env.hostname);
					fprintf(f, " · %s</text>", over);
					bar(f, y, &o->overhead, colour, 1 - 0.5 * j / (n > 1 ? n - 1 : 1));
					fputs("</g>\n", f);
					y += 16;
				}
				y += 8;
			}
		if (!pass) {
			int h = TOP + groups * 26 + rows * 16 + 4;

			fprintf(f, "<svg class=\"chart\" viewBox=\"0 0 %d %d\" role=\"img\" "
				"aria-label=\"overhead per event per %s, log scale\">\n", WIDTH, h,
				by_kernel ? "kernel" : "host");
			axis(f, h);
		}
	}
	fputs("</svg>\n", f);
}
