/*
 * `tracetax budget --attached --prometheus-textfile DIR`: what is attached
 * and what it costs, as gauges for node_exporter's textfile collector
 * (DIR/tracetax-attached.prom). Shares are ratios of the box's CPU (0..1),
 * costs seconds per event: base units. A consumer not counted or not
 * costed has its info series and no figure, never a 0.
 */
#include <math.h>
#include <stdio.h>

#include "output/attached.h"
#include "output/export.h"

static void host_labels(FILE *f, const struct environment *env)
{
	fputs("host=", f);
	output_prom_label(f, env->hostname);
	fputs(",kernel=", f);
	output_prom_label(f, env->kernel);
}

static void row_labels(FILE *f, const struct att_row *r, const struct environment *env)
{
	char pid[16];

	snprintf(pid, sizeof(pid), "%d", r->c.nholders ? (int)r->c.holders[0].pid : 0);
	fputs("{consumer=", f);
	output_prom_label(f, r->c.key);
	fputs(",kind=", f);
	output_prom_label(f, att_kind_name(r->c.kind));
	fputs(",mechanism=", f);
	output_prom_label(f, r->c.mech);
	fputs(",owner=", f);
	output_prom_label(f, r->c.nholders ? r->c.holders[0].comm : "unknown owner");
	fputs(",owner_pid=", f);
	output_prom_label(f, pid);
	fputc(',', f);
	host_labels(f, env);
}

static void gauge(FILE *f, const char *name, const struct att_row *r,
		  const struct environment *env, double v)
{
	if (!isfinite(v))
		return;
	fprintf(f, "%s", name);
	row_labels(f, r, env);
	fprintf(f, "} %.9g\n", v);
}

static void help(FILE *f, const char *name, const char *text)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s gauge\n", name, text, name);
}

/* Each owner's own CPU (none when not read, never 0), and the owners' total added */
static void owners_prom(const struct attached *a, const struct environment *env, FILE *f)
{
	help(f, "tracetax_attached_owner_own_cpu_share_ratio", "the owner's threads' CPU time over the "
	     "window over the box's CPU; added=\"0\": its consumers' cost holds it already");
	for (int i = 0; i < a->nowners; i++) {
		const struct att_owner *o = &a->owners[i];
		char pid[16];

		if (!isfinite(o->own_share))
			continue;
		snprintf(pid, sizeof(pid), "%d", (int)o->p.pid);
		fputs("tracetax_attached_owner_own_cpu_share_ratio{owner=", f);
		output_prom_label(f, o->p.comm);
		fputs(",owner_pid=", f);
		output_prom_label(f, pid);
		fprintf(f, ",added=\"%d\",", o->own_added);
		host_labels(f, env);
		fprintf(f, "} %.9g\n", o->own_share / 100);
	}
	help(f, "tracetax_attached_total_owners_own_cpu_share_ratio", "the owners' own CPU added "
	     "to the consumers' share");
	if (isfinite(a->own_share)) {
		fprintf(f, "tracetax_attached_total_owners_own_cpu_share_ratio{");
		host_labels(f, env);
		fprintf(f, "} %.9g\n", a->own_share / 100);
	}
}

int output_attached_prometheus(const struct attached *a, const struct environment *env, FILE *f)
{
	static const struct {
		const char *name, *help;
	} m[] = {
		{ "tracetax_attached_consumer_info", "a tracing consumer found on the box; state counted, gone, appeared or not counted" },
		{ "tracetax_attached_events_per_second", "its events over the window" },
		{ "tracetax_attached_cost_per_event_seconds", "program time plus the mechanism's measured dispatch" },
		{ "tracetax_attached_cost_per_event_ci95_lower_seconds", "its 95% CI" },
		{ "tracetax_attached_cost_per_event_ci95_upper_seconds", "its 95% CI" },
		{ "tracetax_attached_program_per_event_seconds", "the BPF program's own time per run (BPF stats)" },
		{ "tracetax_attached_cpu_share_ratio", "events/s x cost per event over the box's CPU" },
		{ "tracetax_attached_bpftop_cpu_share_ratio", "run_time_ns / run_cnt x rate over the box's CPU: what bpftop reports" },
	};

	help(f, "tracetax_attached_window_seconds", "the window the events were counted over");
	fprintf(f, "tracetax_attached_window_seconds{");
	host_labels(f, env);
	fprintf(f, "} %.6f\n", a->seconds);
	for (size_t k = 0; k < sizeof(m) / sizeof(m[0]); k++) {
		help(f, m[k].name, m[k].help);
		for (int i = 0; i < a->nrows; i++) {
			const struct att_row *r = &a->rows[i];
			const struct att_cost *c = &r->cost;
			double v[] = { 1, r->rate, c->ns / 1e9, c->lo / 1e9, c->hi / 1e9,
				       r->c.kind == ATT_BPF ? r->prog_ns / 1e9 : NAN, c->share / 100,
				       c->bpftop_share / 100 };

			if (k == 0) {
				fprintf(f, "%s", m[k].name);
				row_labels(f, r, env);
				fputs(",state=", f);
				output_prom_label(f, r->state);
				fprintf(f, ",floor=\"%d\"} 1\n", c->floor);
				continue;
			}
			gauge(f, m[k].name, r, env, v[k]);
		}
	}
	help(f, "tracetax_attached_total_cpu_share_ratio", "every costed consumer's share of the box's CPU");
	if (isfinite(a->share)) {
		fprintf(f, "tracetax_attached_total_cpu_share_ratio{");
		host_labels(f, env);
		fprintf(f, ",floors=\"%d\"} %.9g\n", a->nfloor, a->share / 100);
	}
	owners_prom(a, env, f);
	help(f, "tracetax_attached_total_bpftop_cpu_share_ratio", "bpftop's method over the same programs");
	fprintf(f, "tracetax_attached_total_bpftop_cpu_share_ratio{");
	host_labels(f, env);
	fprintf(f, "} %.9g\n", a->bpftop_share / 100);
	return ferror(f) ? -1 : 0;
}
