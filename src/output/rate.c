/*
 * tracetax rate's text: a block of steps per tracer, then one line each:
 * the highest rate kept, the first not kept and how, and the highest kept
 * against the fastest tracer's (ratios carry across machines; rates do not).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/util.h"
#include "measure/rate.h"
#include "output/rate.h"

static void fmt_ns(char *buf, size_t len, double v)
{
	if (isfinite(v))
		format_ns(buf, len, v);
	else
		snprintf(buf, len, "-");
}

static void print_steps(const struct rate_tracer *t, FILE *f)
{
	fprintf(f, "%s\n  %9s  %9s  %15s  %7s  %5s  %6s  %11s  %9s  %5s  %s\n", t->name, "rate/s",
		"reached/s", "hits/events", "backlog", "lost", "wait", "consumer ns", "kernel ns",
		"secs", "verdict");
	for (int i = 0; i < t->nsteps; i++) {
		const struct rate_step *s = &t->steps[i];
		char h[48], c[24], k[24], w[24];

		if (s->verdict == RATE_FAILED) {
			fprintf(f, "  %9lld  failed: %s\n", (long long)s->rate, t->reason);
			continue;
		}
		if (s->hits < 0)
			snprintf(h, sizeof(h), "n/a");
		else
			snprintf(h, sizeof(h), "%lld/%lld", (long long)s->hits, (long long)s->events);
		if (s->waited < 0)
			snprintf(w, sizeof(w), "n/a");
		else
			snprintf(w, sizeof(w), "%lld", (long long)s->waited);
		fmt_ns(c, sizeof(c), s->consumer_ns);
		fmt_ns(k, sizeof(k), s->kernel_consumer_ns);
		fprintf(f, "  %9lld  %9.0f  %15s  %7lld  %5lld  %6s  %11s  %9s  %5.1f  %s\n",
			(long long)s->rate, s->reached, h, (long long)s->backlog, (long long)s->lost, w, c,
			k, s->seconds, rate_verdict_names[s->verdict]);
	}
	if (t->note[0])
		fprintf(f, "  note: %s\n", t->note);
}

static const char *how(const struct rate_step *s)
{
	switch (s->verdict) {
	case RATE_LOST: return "the kernel lost events";
	case RATE_WAIT: return "the load waited on the full buffer";
	case RATE_SLOW: return "the load could not make the rate";
	case RATE_MISSED: return "fewer hits than events";
	case RATE_FAILED: return "the run failed";
	case RATE_KEPT: break;
	}
	return "";
}

void output_rate_table(const struct rate_results *r, FILE *f)
{
	const struct rate_args *a = &r->args;
	double fastest = 0;
	int w = 6;

	fprintf(f, "workload %s, paced in bursts every millisecond; a step is %d buffers' worth of "
		"events\n(backlog); it is kept with hits == events, lost 0 and no wait on a full "
		"buffer\n(audit: backlog_wait_time_actual, jiffies); consumer ns: auditd's CPU per "
		"event,\nkernel ns: kauditd's\n\n", a->workload, RATE_BACKLOGS);
	for (int i = 0; i < r->ntr; i++) {
		const struct rate_tracer *t = &r->tr[i];

		if (t->status == TT_OK || t->nsteps)
			print_steps(t, f);
		if (t->kept >= 0 && (double)t->steps[t->kept].rate > fastest)
			fastest = (double)t->steps[t->kept].rate;
		if ((int)strlen(t->name) > w)
			w = (int)strlen(t->name);
	}
	fprintf(f, "\n%-*s  %13s  %9s  %s\n", w, "tracer", "highest kept/s", "vs fastest",
		"first not kept");
	for (int i = 0; i < r->ntr; i++) {
		const struct rate_tracer *t = &r->tr[i];
		char kept[32] = "none", vs[32] = "-";

		if (t->status != TT_OK && !t->nsteps) {
			fprintf(f, "%-*s  %s: %s\n", w, t->name, t->status == TT_SKIP ? "skipped" : "failed",
				t->reason);
			continue;
		}
		if (t->kept >= 0) {
			snprintf(kept, sizeof(kept), "%lld", (long long)t->steps[t->kept].rate);
			snprintf(vs, sizeof(vs), "x%.3g", (double)t->steps[t->kept].rate / fastest);
		} else if (t->nsteps) {
			snprintf(kept, sizeof(kept), "< %lld", (long long)t->steps[0].rate);
		}
		fprintf(f, "%-*s  %13s  %9s  ", w, t->name, kept, vs);
		if (t->first_bad >= 0) {
			const struct rate_step *s = &t->steps[t->first_bad];

			fprintf(f, "%lld/s: %s", (long long)s->rate, how(s));
			if (s->verdict == RATE_LOST)
				fprintf(f, " (%lld)", (long long)s->lost);
			else if (s->verdict == RATE_WAIT)
				fprintf(f, " (+%lld jiffies)", (long long)s->waited);
			else if (s->verdict == RATE_SLOW || s->verdict == RATE_MISSED)
				fprintf(f, " (reached %.0f/s, hits %lld of %lld)", s->reached,
					(long long)s->hits, (long long)s->events);
			fputc('\n', f);
		} else {
			fprintf(f, "none up to %lld/s\n", (long long)a->rates[a->nrates - 1]);
		}
	}
}
