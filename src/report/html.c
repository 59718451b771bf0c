/*
 * The report page (report.h): the overhead of every cell as bars, what
 * did not run and why, the comparison when there are two runs or more,
 * thread scaling, the environment and the method; the documents embedded.
 * Dark text on white, readable at laptop width, on a phone (the charts
 * scroll sideways rather than shrink their text away) and on paper.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doc/budget.h"
#include "report/report.h"
#include "base/util.h"

static const char style[] =
	":root{color-scheme:light}"
	"body{margin:0;background:#fff;color:#1a1a1a;font:16px/1.45 system-ui,-apple-system,"
	"'Segoe UI',Roboto,'Helvetica Neue',Arial,sans-serif}"
	"main{max-width:80rem;margin:0 auto;padding:1rem 1.5rem 3rem}"
	"h1{font-size:1.45rem;margin:.5rem 0 .2rem}h2{font-size:1.15rem;margin:2rem 0 .5rem;"
	"border-bottom:1px solid #d0d0d0;padding-bottom:.2rem}h3{font-size:1rem;margin:1.2rem 0 .3rem}"
	"p{margin:.4rem 0;max-width:50rem}.sub{color:#555}.warn{color:#8a4b00}"
	".scroll{overflow-x:auto}"
	"svg.chart{display:block;width:100%;min-width:45rem;max-width:68rem;height:auto}"
	"svg text{font:13px system-ui,-apple-system,'Segoe UI',Roboto,Arial,sans-serif;fill:#1a1a1a}"
	"svg .fig{fill:#444;font-variant-numeric:tabular-nums}"
	"svg .axis line{stroke:#e2e2e2}svg .axis text{fill:#666;font-size:11px}"
	"svg .ci{stroke:#1a1a1a;stroke-width:1.3;fill:none}svg .floor{fill:#ececec}"
	"svg .worse .verdict{fill:#b00020;font-weight:600}svg .better .verdict{fill:#1b7f3b;font-weight:600}"
	"ul.legend{list-style:none;padding:0;margin:.3rem 0;display:flex;flex-wrap:wrap;gap:.2rem 1.1rem}"
	"ul.legend svg{vertical-align:-1px;margin-right:.3rem}"
	"table{border-collapse:collapse;margin:.3rem 0;font-size:.92rem}"
	"th,td{padding:.2rem .55rem;border-bottom:1px solid #e6e6e6;text-align:left;vertical-align:top}"
	"td{overflow-wrap:anywhere}td.num{text-align:right;white-space:nowrap;font-variant-numeric:tabular-nums}"
	"table.verdicts td,table.verdicts th{white-space:nowrap}tr.differs td{background:#fff6e0}.worse{color:#b00020;font-weight:600}"
	".better{color:#1b7f3b;font-weight:600}"
	"@media (max-width:40rem){main{padding:.6rem .6rem 2rem}th,td{padding:.15rem .3rem}}"
	"@media print{body{font-size:10.5pt}main{max-width:none;padding:0}.scroll{overflow:visible}"
	"svg.chart{min-width:0}section{break-inside:avoid-page}tr.differs td{background:none;"
	"font-weight:600}}";

static void run_name(FILE *f, const struct doc *d)
{
	if (d->run_id)
		fprintf(f, "run %lld", (long long)d->run_id);
	else
		html_text(f, d->name);
}

static void head(FILE *f, const struct doc *d)
{
	const struct environment *e = &d->r.env;

	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>", f);
	fputs("tracetax: what tracing costs on ", f);
	html_text(f, e->hostname);
	fputs(", kernel ", f);
	html_text(f, e->kernel);
	fprintf(f, "</title>\n<style>%s</style>\n</head>\n<body>\n<main>\n", style);
	fputs("<h1>What tracing costs on ", f);
	html_text(f, e->hostname);
	fputs("</h1>\n<p class=\"sub\">kernel ", f);
	html_text(f, e->kernel);
	fprintf(f, " %s · %d × ", e->arch, e->cpus);
	html_text(f, e->cpu_model);
	fputs(" · ", f);
	html_text(f, e->virtualization);
	fputs(" · tracetax ", f);
	html_text(f, e->tracetax_version);
	fprintf(f, " · %s</p>\n", e->started);
}

static void legend(FILE *f, const struct results *r)
{
	char seen[64][32], family[32];
	int n = 0;

	fputs("<ul class=\"legend\">", f);
	for (int i = 0; i < r->ncells && n < 64; i++) {
		const char *colour = report_family(r->cells[i].tracer, family, sizeof(family));
		bool dup = false;

		for (int k = 0; k < n; k++)
			dup |= !strcmp(seen[k], family);
		if (dup || r->cells[i].status != CELL_OK)
			continue;
		snprintf(seen[n++], sizeof(seen[0]), "%s", family);
		fprintf(f, "<li><svg width=\"12\" height=\"12\" aria-hidden=\"true\"><rect width=\"12\" "
			"height=\"12\" fill=\"%s\"/></svg>", colour);
		html_text(f, family);
		fputs("</li>", f);
	}
	fputs("</ul>\n", f);
}

static void floors(FILE *f, const struct results *r)
{
	for (int i = 0; i < r->nfloors; i++) {
		const struct noise_floor *fl = &r->floors[i];
		char ns[24];

		format_ns(ns, sizeof(ns), fl->ns);
		fputs("<p>Noise floor, ", f);
		html_text(f, fl->workload);
		fprintf(f, ", %d thread%s: <b>%s ns</b> per event (grey behind the bars)%s</p>\n",
			fl->threads, fl->threads == 1 ? "" : "s", ns, fl->excludes_zero ?
			" <span class=\"warn\">— the A/A interval excludes 0: this machine's noise "
			"exceeds the stated intervals</span>" : "");
	}
}

static void unmeasured(FILE *f, const struct results *r)
{
	bool any = false;

	for (int i = 0; i < r->ncells; i++) {
		const struct cell *c = &r->cells[i];

		if (c->status == CELL_OK)
			continue;
		if (!any)
			fputs("<h3>Not measured</h3>\n<ul class=\"unmeasured\">\n", f);
		any = true;
		fprintf(f, "<li class=\"%s\"><b>", cell_status_name(c->status));
		html_text(f, c->tracer);
		fprintf(f, "</b> (%s, %d thread%s) %s: ", c->workload, c->threads, c->threads == 1 ? "" : "s",
			cell_status_name(c->status));
		html_text(f, c->reason);
		fputs("</li>\n", f);
	}
	if (any)
		fputs("</ul>\n", f);
}

static void run_section(FILE *f, const struct doc *d, int n)
{
	const struct results *r = &d->r;
	char reps[32];
	int ok = 0, rounds;

	for (int i = 0; i < r->ncells; i++)
		ok += r->cells[i].status == CELL_OK;
	fputs("<section class=\"run\">\n<h2>Overhead per event", f);
	if (n > 1) {
		fputs(" · ", f);
		run_name(f, d);
		fputs(", ", f);
		html_text(f, r->env.started);
	}
	fprintf(f, "</h2>\n<p>%d cell%s measured, %s reps each, 95%% intervals as whiskers, log scale.</p>\n",
		ok, ok == 1 ? "" : "s", results_reps_ran(r, reps, sizeof(reps), &rounds));
	floors(f, r);
	if (ok) {
		legend(f, r);
		fputs("<div class=\"scroll\">\n", f);
		svg_overhead(f, r);
		fputs("</div>\n", f);
	}
	unmeasured(f, r);
	if (svg_threads(NULL, r)) {
		fputs("<h3>Thread scaling</h3>\n<p>Overhead per event against the workload's threads, "
		      "log scale.</p>\n<div class=\"scroll\">\n", f);
		svg_threads(f, r);
		fputs("</div>\n", f);
	}
	fputs("</section>\n", f);
}

static void compare_table(FILE *f, const struct cmp *c)
{
	fputs("<div class=\"scroll\"><table class=\"verdicts\">\n<tr><th>tracer</th><th>workload</th>"
	      "<th>thr</th><th>A ns</th><th>B ns</th><th>B − A [95% CI]</th><th>B/A</th><th>p</th>"
	      "<th>verdict</th></tr>\n", f);
	for (int i = 0; i < c->nrows; i++) {
		const struct cmp_row *w = &c->rows[i];
		const struct cell *x = w->a ? w->a : w->b;
		char ma[24], mb[24], d[24], lo[24], hi[24];

		fputs("<tr><td>", f);
		html_text(f, x->tracer);
		fputs("</td><td>", f);
		html_text(f, x->workload);
		fprintf(f, "</td><td class=\"num\">%d</td>", x->threads);
		if (!w->compared) {
			fprintf(f, "<td colspan=\"6\">%s</td></tr>\n", !w->a ? "only in B" : !w->b ? "only in A" :
				"not measured on both sides");
			continue;
		}
		format_ns(ma, sizeof(ma), w->ma);
		format_ns(mb, sizeof(mb), w->mb);
		format_ns(d, sizeof(d), w->diff);
		format_ns(lo, sizeof(lo), w->ci[0]);
		format_ns(hi, sizeof(hi), w->ci[1]);
		fprintf(f, "<td class=\"num\">%s</td><td class=\"num\">%s</td><td class=\"num\">%s%s", ma, mb,
			w->diff > 0 ? "+" : "", d);
		if (isfinite(w->ci[0]))
			fprintf(f, " [%s, %s]", lo, hi);
		fputs("</td><td class=\"num\">", f);
		if (isfinite(w->ratio))
			fprintf(f, "×%.2f", w->ratio);
		fputs("</td><td class=\"num\">", f);
		if (isfinite(w->p))
			fprintf(f, w->p < 0.001 ? "&lt;0.001" : "%.3f", w->p);
		fprintf(f, "</td><td class=\"%s\">%s</td></tr>\n", w->verdict == VERDICT_WORSE ? "worse" :
			w->verdict == VERDICT_BETTER ? "better" : "", compare_verdict_name(w->verdict));
	}
	fputs("</table></div>\n", f);
}

static void compare_section(FILE *f, const struct doc *a, const struct doc *b)
{
	struct cmp c;

	compare_runs(&a->r, &b->r, COMPARE_THRESHOLD_PCT, &c);
	fputs("<section class=\"compare\">\n<h2>Compared: A = ", f);
	run_name(f, a);
	fputs(", B = ", f);
	run_name(f, b);
	fprintf(f, "</h2>\n<p><b>%d worse, %d better, %d same, %d too few reps, %d noisy.</b> A light, B dark; "
		"verdicts at a family-wise 5%% (Holm over %d cells), a change called only past %.3g%% "
		"of A's overhead and the noise floor.</p>\n", c.worse, c.better, c.same, c.too_few,
		c.noisy, c.family, c.threshold_pct);
	if (c.incomparable[0]) {
		fputs("<p class=\"warn\">No verdicts: ", f);
		html_text(f, c.incomparable);
		fputs(": an emulated CPU's ns are not costs, so their differences are not the "
		      "tracers'.</p>\n", f);
	}
	if (fabs(c.base_shift) * 100 > c.threshold_pct)
		fprintf(f, "<p class=\"warn\">The untraced workload ran %.0f%% %s in B (median over the "
			"cells): the machine differed between the runs, and overheads move with it.</p>\n",
			fabs(c.base_shift) * 100, c.base_shift > 0 ? "slower" : "faster");
	if (c.same + c.worse + c.better + c.too_few + c.noisy + c.not_comparable) {
		fputs("<div class=\"scroll\">\n", f);
		svg_compare(f, &c);
		fputs("</div>\n", f);
	}
	compare_table(f, &c);
	compare_release(&c);
	fputs("</section>\n", f);
}

/* Every field of the documents' environments, a column per run; rows that differ marked. */
static void environment(FILE *f, struct doc *docs, int n)
{
	json_t *first = json_object_get(docs[0].json, "environment");
	const char *key;
	json_t *v;

	fputs("<section class=\"environment\">\n<h2>Environment</h2>\n<div class=\"scroll\"><table>\n", f);
	if (n > 1) {
		fputs("<tr><th></th>", f);
		for (int i = 0; i < n; i++) {
			fprintf(f, "<th>%c: ", i < 26 ? 'A' + i : '?');
			run_name(f, &docs[i]);
			fputs("</th>", f);
		}
		fputs("</tr>\n", f);
	}
	json_object_foreach(first, key, v) {
		bool differs = false;

		for (int i = 1; i < n; i++)
			differs |= !json_equal(v, json_object_get(json_object_get(docs[i].json, "environment"), key));
		fprintf(f, "<tr%s><th>", differs ? " class=\"differs\"" : "");
		html_text(f, key);
		fputs("</th>", f);
		for (int i = 0; i < n; i++) {
			json_t *x = json_object_get(json_object_get(docs[i].json, "environment"), key);
			char *s = json_is_string(x) ? NULL : json_dumps(x, JSON_ENCODE_ANY | JSON_COMPACT);

			fputs("<td>", f);
			html_text(f, json_is_string(x) ? json_string_value(x) : s ? s : "");
			fputs("</td>", f);
			free(s);
		}
		fputs("</tr>\n", f);
	}
	fputs("</table></div>\n</section>\n", f);
}

static void method(FILE *f)
{
	fputs("<section class=\"method\">\n<h2>Method</h2>\n"
	      "<p>Each cell runs a workload's hot loop in a fresh process, untraced (the baseline) and "
	      "traced, back to back, in reps that alternate which runs first. The overhead per event is "
	      "traced minus baseline nanoseconds per operation, per rep (each operation makes one "
	      "event); a bar is its mean over the reps, the whisker its 95% confidence interval "
	      "(Student's t).</p>\n"
	      "<p><i>hits</i>: the events the tracer reported against those the workload made; "
	      "<i>lost</i>: seen but dropped. The noise floor is what the A/A cell (nothing attached) "
	      "measured as an overhead: smaller overheads cannot be told from noise.</p>\n"
	      "<p>Comparisons: B − A of the mean overheads, Welch's 95% interval over each run's "
	      "round means, the p of that same t test (Holm-adjusted for the verdicts), and a verdict "
	      "(tracetax's docs/method.md, §9).</p>\n"
	      "<p>The results documents are embedded in this page "
	      "(<code>script type=\"application/json\"</code>).</p>\n</section>\n", f);
}

/* Inside <script> only "</script" or "<!--" could end or upset it: every '<'
 * of the document is in a JSON string, where \u003c means the same. */
static void embed(FILE *f, const struct doc *d, int i)
{
	fprintf(f, "<script type=\"application/json\" class=\"tracetax-results\" id=\"tracetax-run-%d\"", i + 1);
	if (d->run_id)
		fprintf(f, " data-run=\"%lld\"", (long long)d->run_id);
	fputs(">\n", f);
	for (size_t k = 0; k < d->len; k++) {
		if (d->text[k] == '<')
			fputs("\\u003c", f);
		else
			fputc(d->text[k], f);
	}
	fputs("\n</script>\n", f);
}

/* How many of the runs' hosts (or kernels) differ from the first's. */
static int others(const struct doc *docs, int n, bool kernel)
{
	int k = 0;

	for (int i = 1; i < n; i++)
		k += strcmp(kernel ? docs[i].r.env.kernel : docs[i].r.env.hostname,
			    kernel ? docs[0].r.env.kernel : docs[0].r.env.hostname) != 0;
	return k;
}

/* Runs of several hosts or kernels: a tracer's cost across them, bar by bar. */
static void fleet_section(FILE *f, const struct doc *docs, int n)
{
	bool kernel = others(docs, n, true) > 0;

	if (!kernel && !others(docs, n, false))
		return;
	fprintf(f, "<section class=\"fleet\">\n<h2>Across %s</h2>\n<p>Each tracer measured in two "
		"runs or more, one bar per run, named by its %s; 95%% intervals as whiskers, log "
		"scale.</p>\n<div class=\"scroll\">\n", kernel ? "kernels" : "hosts",
		kernel ? "kernel" : "host");
	svg_fleet(f, docs, n, kernel);
	fputs("</div>\n</section>\n", f);
}

/* The store's last budgets: each tracer's verdict, and the checks of -w cmd:. */
static void budget_section(FILE *f, const struct budget_brief *b, int nb)
{
	char buf[64];

	if (!nb)
		return;
	fputs("<section class=\"budget\">\n<h2>Budgets: what tracing would cost the box</h2>\n"
	      "<p>Event rates counted on the box times each tracer's measured cost per event "
	      "(<code>tracetax budget</code>, docs/budget.md).</p>\n", f);
	for (int i = 0; i < nb; i++) {
		fprintf(f, "<h3>budget %lld, ", (long long)b[i].id);
		html_text(f, b[i].started);
		fputs(" on ", f);
		html_text(f, b[i].host);
		snprintf(buf, sizeof(buf), ": %.0f events/s over %.1f s, ", b[i].per_s, b[i].seconds);
		fputs(buf, f);
		html_text(f, b[i].scope);
		fputs("</h3>\n<ul>\n", f);
		for (int t = 0; t < b[i].ntracers; t++) {
			fputs("<li>", f);
			html_text(f, b[i].t[t].verdict);
			fputs("</li>\n", f);
		}
		fputs("</ul>\n", f);
		if (!b[i].nchecks)
			continue;
		fputs("<table>\n<tr><th>tracer</th><th>command</th><th>predicted slowdown</th>"
		      "<th>measured</th><th>error per event</th></tr>\n", f);
		for (int k = 0; k < b[i].nchecks; k++) {
			fputs("<tr><td>", f);
			html_text(f, b[i].k[k].tracer);
			fputs("</td><td>", f);
			html_text(f, b[i].k[k].command);
			if (strcmp(b[i].k[k].status, "ok")) {
				fputs("</td><td colspan=\"3\">", f);
				html_text(f, b[i].k[k].status);
				fputs("</td></tr>\n", f);
				continue;
			}
			snprintf(buf, sizeof(buf), "</td><td>%+.1f%%</td><td>%+.1f%%</td>",
				 b[i].k[k].pred_pct, b[i].k[k].meas_pct);
			fputs(buf, f);
			snprintf(buf, sizeof(buf), isfinite(b[i].k[k].error_pct) ? "<td>%+.0f%%%s</td>" :
				 "<td>-</td>", b[i].k[k].error_pct,
				 b[i].k[k].overlap ? "" : " (CIs apart)");
			fputs(buf, f);
			fputs("</tr>\n", f);
		}
		fputs("</table>\n", f);
	}
	fputs("</section>\n", f);
}

int report_html(FILE *f, struct doc *docs, int n)
{
	return report_html_budgets(f, docs, n, NULL, 0);
}

int report_html_budgets(FILE *f, struct doc *docs, int n, const struct budget_brief *b, int nb)
{
	head(f, &docs[0]);
	fleet_section(f, docs, n);
	for (int i = 0; i < n; i++)
		run_section(f, &docs[i], n);
	for (int i = 1; i < n; i++)
		compare_section(f, &docs[0], &docs[i]);
	budget_section(f, b, nb);
	environment(f, docs, n);
	method(f);
	fputs("</main>\n", f);
	for (int i = 0; i < n; i++)
		embed(f, &docs[i], i);
	fputs("</body>\n</html>\n", f);
	return ferror(f) ? -1 : 0;
}
