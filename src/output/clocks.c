/* `tracetax clocks`: the table, and the document of --json (docs/schema.md). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/json_num.h"
#include "measure/clocks.h"
#include "base/timer.h"
#include "output/clocks.h"

/* A duration for people: 0.477 ns, 1 ns, 4 ms, 1 s. */
static void fmt_dur(char *buf, size_t len, double ns)
{
	if (!isfinite(ns))
		snprintf(buf, len, "-");
	else if (ns < 1e3)
		snprintf(buf, len, "%.3g ns", ns);
	else if (ns < 1e6)
		snprintf(buf, len, "%.3g us", ns / 1e3);
	else if (ns < 1e9)
		snprintf(buf, len, "%.3g ms", ns / 1e6);
	else
		snprintf(buf, len, "%.3g s", ns / 1e9);
}

static void fmt_ns(char *buf, size_t len, double ns)
{
	if (!isfinite(ns))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, ns < 100 ? "%.1f" : "%.0f", ns);
}

static const char *vdso_name(enum clock_vdso v)
{
	switch (v) {
	case VDSO_YES: return "yes";
	case VDSO_NO:  return "no";
	case VDSO_NA:  return "n/a";
	default:       return "unknown";
	}
}

void output_clocks_table(const struct clocks_report *r, FILE *f)
{
	char floor[24];

	fprintf(f, "clocksource %s (available: %s)\n", r->current, r->available);
	if (r->tsc_hz > 0)
		fprintf(f, "TSC %.1f MHz against CLOCK_MONOTONIC; flags: %s\n", r->tsc_hz / 1e6,
			*r->tsc_flags ? r->tsc_flags : "none");
	fmt_dur(floor, sizeof(floor), r->timer_floor_ns);
	fprintf(f, "two reads of the --latency timer back to back: %s (in every latency sample)\n\n",
		floor);
	fprintf(f, "%-26s %8s %8s %10s %10s %-7s %s\n", "source", "ns/read", "p99 ns", "resolution",
		"min step", "vdso", "monotonic");
	for (int i = 0; i < r->n; i++) {
		const struct clock_source *s = &r->src[i];
		char mean[24], p99[24], res[24], step[24], mono[48];

		if (!s->available) {
			fprintf(f, "%-26s not measured: %s\n", s->name, s->why);
			continue;
		}
		fmt_ns(mean, sizeof(mean), s->mean_ns);
		fmt_ns(p99, sizeof(p99), s->p99_ns);
		fmt_dur(res, sizeof(res), s->res_ns);
		fmt_dur(step, sizeof(step), s->step_ns);
		if (s->backwards)
			snprintf(mono, sizeof(mono), "no: %lld reads went back", (long long)s->backwards);
		else
			snprintf(mono, sizeof(mono), "yes");
		fprintf(f, "%-26s %8s %8s %10s %10s %-7s %s\n", s->name, mean, p99, res, step,
			vdso_name(s->vdso), mono);
	}
	fprintf(f, "\nns/read: mean over %lld reads in a loop; p99: reads timed one by one, the\n"
		"timer's own cost taken off; resolution: clock_getres or the unit; min step: the\n"
		"smallest change seen between two reads (- : none); vdso: served without a syscall\n"
		"(asked of the kernel: seccomp forbids the syscall in a child)\n",
		r->n ? (long long)r->src[0].reads : 0);
}

/* "a b c" as ["a", "b", "c"]. */
static json_t *words(const char *s)
{
	json_t *a = json_array();
	char buf[256], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", s);
	for (char *w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save))
		json_array_append_new(a, json_string(w));
	return a;
}

int output_clocks_json(const struct clocks_report *r, FILE *f)
{
	json_t *src = json_array(), *doc;
	char *s;
	int ret;

	for (int i = 0; i < r->n; i++) {
		const struct clock_source *c = &r->src[i];

		json_array_append_new(src, json_pack("{s:s, s:b, s:o, s:o, s:o, s:o, s:o, s:s, s:o, s:I}",
			"name", c->name, "available", c->available,
			"reason", c->available ? json_null() : json_string(c->why),
			"mean_ns", json_num(c->mean_ns), "p99_ns", json_num(c->p99_ns),
			"resolution_ns", json_num(c->res_ns), "min_step_ns", json_num(c->step_ns),
			"vdso", vdso_name(c->vdso),
			"monotonic", c->available ? json_boolean(!c->backwards) : json_null(),
			"reads", (json_int_t)(c->available ? c->reads : 0)));
	}
	doc = json_pack("{s:s, s:o, s:o, s:o, s:s, s:o, s:o}",
			"clocksource", r->current, "available_clocksources", words(r->available),
			"tsc_hz", json_num(r->tsc_hz > 0 ? r->tsc_hz : NAN), "tsc_flags", words(r->tsc_flags),
			"timer", TIMER_NAME, "timer_floor_ns", json_num(r->timer_floor_ns),
			"sources", src);
	s = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
	json_decref(doc);
	if (!s)
		return -1;
	ret = fprintf(f, "%s\n", s) < 0 ? -1 : 0;
	free(s);
	return ret;
}
