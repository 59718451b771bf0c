/*
 * The terminal's view of how the cost spreads: what tracetax times with
 * (header), a scaling view when cells ran at several thread counts, the
 * latency percentiles of --latency and their log2 histograms in the style
 * of bpftrace's hist() ("[1K, 2K)  count |@@@@|"), runs of empty rows
 * elided.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/hist.h"
#include "output/dist.h"
#include "measure/plan.h"
#include "results/results.h"
#include "base/util.h"

#define BAR 20

static const char *yellow(bool colour) { return colour ? "\033[33m" : ""; }
static const char *dim(bool colour) { return colour ? "\033[2m" : ""; }
static const char *bold(bool colour) { return colour ? "\033[1m" : ""; }
static const char *reset(bool colour) { return colour ? "\033[0m" : ""; }

void output_dist_header(const struct results *r, FILE *out, bool colour)
{
	const struct timing *t = &r->timing;
	char ns[24];

	if (t->clock[0]) {
		format_ns(ns, sizeof(ns), t->clock_ns);
		fprintf(out, "timed with %s around each hot loop (%s, %s ns a read, resolution %g ns)\n",
			t->clock, t->clock_vdso > 0 ? "vDSO" : t->clock_vdso == 0 ? "a syscall" :
			"vDSO unknown", ns, t->clock_res_ns);
	}
	for (int i = 0; i < r->ncells; i++) {
		const struct cell *c = &r->cells[i];

		if (c->status == CELL_OK && c->cpus_used > 0 && c->threads > c->cpus_used) {
			fprintf(out, "%swarning: %d threads ran on %d CPUs: threads share CPUs, and their "
				"ns/op include waiting for one%s\n", yellow(colour), c->threads,
				c->cpus_used, reset(colour));
			break;
		}
	}
	if (!r->opts.latency)
		return;
	fprintf(out, "--latency: each call between two %s reads (TSC %.1f MHz, calibrated)\n",
		t->timer, t->tsc_hz / 1e6);
	/* the cost of timing: an A/A cell's timed loop against its untimed one */
	for (int i = 0; i < r->ncells; i++) {
		const struct cell *c = &r->cells[i];
		char cost[24], timer[24];

		if (c->status != CELL_OK || !c->lat || !c->lat->pairs || (!c->aa && i < r->ncells - 1))
			continue;
		format_ns(cost, sizeof(cost), c->lat->timing_cost_ns);
		format_ns(timer, sizeof(timer), c->lat->timer_ns);
		fprintf(out, "  costs the loop %s ns a call (%s %s %dT: %.1f ns/op timed, %.1f untimed); "
			"each sample\n  holds %s ns of the timer's own\n", cost, c->tracer, c->workload,
			c->threads, c->lat->base_ns_per_op, c->base.mean, timer);
		return;
	}
	fprintf(out, "  what timing costs: not measured (no cell ran)\n");
}

static bool several_threads(const struct results *r)
{
	for (int i = 1; i < r->ncells; i++)
		if (r->cells[i].threads != r->cells[0].threads)
			return true;
	return false;
}

static void fmt_num(char *buf, size_t len, double v, const char *unit)
{
	if (isfinite(v))
		snprintf(buf, len, v < 10 ? "%.2f%s" : v < 100 ? "%.1f%s" : "%.0f%s", v, unit);
	else
		snprintf(buf, len, "-");
}

/* Per (workload, tracer), each thread count on a line: cost and throughput against threads. */
static void print_scaling(const struct results *r, FILE *out, bool colour)
{
	fprintf(out, "\n%sscaling%s: per tracer against threads; Mops/s: all threads' ops / the "
		"slowest thread's time\n", bold(colour), reset(colour));
	fprintf(out, "%-22s %-11s %3s  %-24s %10s %10s  %s\n", "tracer", "workload", "thr",
		"+ns/event [95% CI]", "base Mops", "traced Mops", "thread spread base, traced");
	for (int i = 0; i < r->ncells; i++) {
		const struct cell *a = &r->cells[i];
		bool first = true;

		/* the first cell of its (workload, tracer) prints them all */
		for (int j = 0; j < i && a; j++)
			if (!strcmp(r->cells[j].tracer, a->tracer) && !strcmp(r->cells[j].workload, a->workload))
				a = NULL;
		for (int j = i; a && j < r->ncells; j++) {
			const struct cell *c = &r->cells[j];
			char m[24], lo[24], hi[24], ci[80], bm[24], tm[24], bs[24], ts[24];

			if (c->status != CELL_OK || strcmp(c->tracer, a->tracer) ||
			    strcmp(c->workload, a->workload))
				continue;
			format_ns(m, sizeof(m), c->overhead.mean);
			format_ns(lo, sizeof(lo), c->overhead.ci95[0]);
			format_ns(hi, sizeof(hi), c->overhead.ci95[1]);
			snprintf(ci, sizeof(ci), "%s [%s, %s]", m, lo, hi);
			fmt_num(bm, sizeof(bm), c->base_mops, "");
			fmt_num(tm, sizeof(tm), c->traced_mops, "");
			fmt_num(bs, sizeof(bs), c->base_spread_pct, "%");
			fmt_num(ts, sizeof(ts), c->traced_spread_pct, "%");
			fprintf(out, "%-22s %-11s %3d  %-24s %10s %10s  %s, %s\n", first ? c->tracer : "",
				first ? c->workload : "", c->threads, ci, bm, tm, bs, ts);
			first = false;
		}
	}
}

static void print_quantiles(FILE *out, const char *tracer, const char *side, const struct hist *h)
{
	static const double ps[] = { 0.5, 0.9, 0.99, 0.999, 0.9999 };
	char f[8][24];

	for (int k = 0; k < 5; k++)
		format_ns(f[k], sizeof(f[k]), hist_quantile(h, ps[k]));
	format_ns(f[5], sizeof(f[5]), h->count ? (double)h->max : NAN);
	format_ns(f[6], sizeof(f[6]), hist_mean(h));
	format_ns(f[7], sizeof(f[7]), sqrt(hist_variance(h)));
	fprintf(out, "%-22s %-8s %9llu %7s %7s %7s %7s %7s %8s %7s %7s\n", tracer, side,
		(unsigned long long)h->count, f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7]);
}

/* bpftrace's labels: powers of two with K, M, G of 1024. */
static void log2_label(char *buf, size_t len, uint64_t v)
{
	static const char units[] = " KMGTPE";
	int u = 0;

	while (v >= 1024 && !(v % 1024)) {
		v /= 1024;
		u++;
	}
	snprintf(buf, len, u ? "%llu%c" : "%llu", (unsigned long long)v, units[u]);
}

void output_hist_log2(FILE *out, const struct hist *const *h, const char *const *names, int n)
{
	uint64_t bins[4][HIST_LOG2_BINS], top[4] = { 0 };
	bool zero[HIST_LOG2_BINS];
	int first = HIST_LOG2_BINS, last = -1;

	n = n > 4 ? 4 : n;
	for (int s = 0; s < n; s++)
		hist_log2(h[s], bins[s]);
	for (int k = 0; k < HIST_LOG2_BINS; k++) {
		zero[k] = true;
		for (int s = 0; s < n; s++) {
			top[s] = bins[s][k] > top[s] ? bins[s][k] : top[s];
			zero[k] &= !bins[s][k];
		}
		if (!zero[k]) {
			first = k < first ? k : first;
			last = k;
		}
	}
	fprintf(out, "%-18s", "");
	for (int s = 0; s < n; s++)
		fprintf(out, " %10s  %-*s", "", BAR + 1, names[s]);
	fputc('\n', out);
	for (int k = first; k <= last; k++) {
		char lo[16], hi[16], label[40];

		/* two or more empty rows in a row: one "..." */
		if (zero[k] && (zero[k - 1] || zero[k + 1])) {
			if (!zero[k - 1])
				fprintf(out, "...\n");
			continue;
		}
		log2_label(lo, sizeof(lo), hist_log2_lo((unsigned)k));
		log2_label(hi, sizeof(hi), hist_log2_lo((unsigned)k + 1));
		snprintf(label, sizeof(label), k ? "[%s, %s)" : "[%s]", lo, hi);
		fprintf(out, "%-18s", label);
		for (int s = 0; s < n; s++) {
			/* rounded up: a tail of a few calls still shows */
			int w = top[s] ? (int)((bins[s][k] * BAR + top[s] - 1) / top[s]) : 0;

			fprintf(out, " %10llu |%.*s%*s|", (unsigned long long)bins[s][k], w,
				"@@@@@@@@@@@@@@@@@@@@", BAR - w, "");
		}
		fputc('\n', out);
	}
}

static void print_latency(const struct results *r, FILE *out, bool colour)
{
	static const char *const names[] = { "baseline", "traced" };

	fprintf(out, "\n%slatency%s: ns per call, every call of %d pairs of runs after the reps "
		"(--latency)\n", bold(colour), reset(colour), PLAN_LATENCY_PAIRS);
	fprintf(out, "%-22s %-8s %9s %7s %7s %7s %7s %7s %8s %7s %7s\n", "tracer", "side", "calls",
		"p50", "p90", "p99", "p99.9", "p99.99", "max", "mean", "stddev");
	for (int i = 0; i < r->ncells; i++) {
		const struct cell *c = &r->cells[i];

		if (c->status != CELL_OK || !c->lat || !c->lat->pairs)
			continue;
		print_quantiles(out, c->tracer, "baseline", c->lat->base);
		print_quantiles(out, "", "traced", c->lat->traced);
	}
	for (int i = 0; i < r->ncells; i++) {
		const struct cell *c = &r->cells[i];
		const struct hist *h[2];

		if (c->status != CELL_OK || !c->lat || !c->lat->pairs)
			continue;
		h[0] = c->lat->base;
		h[1] = c->lat->traced;
		fprintf(out, "\n%s%s, %s, %d thread%s: ns per call%s\n", bold(colour), c->tracer,
			c->workload, c->threads, c->threads == 1 ? "" : "s", reset(colour));
		output_hist_log2(out, h, names, 2);
	}
	fprintf(out, "\n%sp50 ... max: nearest-rank percentiles of every timed call, within 1%% (64\n"
		"buckets per power of two); each includes the timer's own reads (header)%s\n",
		dim(colour), reset(colour));
}

void output_dist_sections(const struct results *r, FILE *out, bool colour)
{
	if (several_threads(r))
		print_scaling(r, out, colour);
	if (r->opts.latency)
		print_latency(r, out, colour);
}
