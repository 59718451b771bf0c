/*
 * --explain TRACER: for each cell of that tracer, the steps one event goes
 * through -- the syscall, the hook, the dispatch, the program, its map
 * update, a reader -- with the figure tracetax has for each and how it got
 * it: measured (the reps, the kernel's BPF stats, our reader's CPU clock)
 * or derived (a difference of measured figures, some from another cell of
 * the run). Then the same handler on the run's other hooks: the answer to
 * "why does tp cost more than rawtp". What each step is comes from the
 * tracer (tracer_explain()); the figures come from the results alone.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "output/table.h"
#include "results/results.h"
#include "load/syscalls.h"
#include "tracers/tracer.h"
#include "base/util.h"

#define WIDTH 100
#define TEXT_COL 34	/* "  map update  12345 ns  measured  " */

static const char *const step_names[TT_NSTEPS] = {
	"syscall", "hook", "dispatch", "program", "map update", "reader",
};

/* @text from column TEXT_COL on, wrapped at WIDTH, continuation lines indented. */
static void put_wrapped(FILE *f, const char *text)
{
	int room = WIDTH - TEXT_COL;

	do {
		int n = (int)strlen(text);

		if (n > room) {
			int cut = room;

			while (cut > 0 && text[cut] != ' ')
				cut--;
			n = cut > 0 ? cut : (int)strcspn(text, " ");
		}
		fprintf(f, "%.*s\n", n, text);
		text += n;
		while (*text == ' ')
			text++;
		if (*text)
			fprintf(f, "%*s", TEXT_COL, "");
	} while (*text);
}

/* One step: its name, a figure ("}": counted in the next figure shown), how known, what. */
static void step(FILE *f, const char *name, const char *fig, const char *kind, const char *fmt,
		 ...) __attribute__((format(printf, 5, 6)));

static void step(FILE *f, const char *name, const char *fig, const char *kind, const char *fmt, ...)
{
	char text[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	fprintf(f, "  %-10s  %8s  %-8s  ", name, fig, kind);
	put_wrapped(f, text);
}

static const char *ns(char *buf, double v)
{
	char n[24];

	format_ns(n, sizeof(n), v);
	snprintf(buf, 32, "%s ns", n);
	return buf;
}

/* The cell of tracer @name with @c's workload, threads and target, if measured. */
static const struct cell *sibling(const struct results *r, const struct cell *c, const char *name)
{
	for (int i = 0; i < r->ncells; i++) {
		const struct cell *o = &r->cells[i];

		if (o->status == CELL_OK && o->threads == c->threads && !strcmp(o->tracer, name) &&
		    !strcmp(o->workload, c->workload) && !strcmp(o->target, c->target))
			return o;
	}
	return NULL;
}

static void map_step(FILE *f, const struct results *r, const struct cell *c,
		     const struct tracer *t)
{
	const char *ref;
	const struct cell *o;
	char text[256], name[80], a[32], b[32], d[32];

	if (tracer_explain(t, TT_STEP_MAP, text, sizeof(text), &ref) != TT_OK) {
		step(f, step_names[TT_STEP_MAP], "-", "", "none: this handler touches no map");
		return;
	}
	snprintf(name, sizeof(name), "%s/%s", t->ops->name, ref ? ref : "");
	o = ref && c->prog.measured ? sibling(r, c, name) : NULL;
	if (!o || !o->prog.measured) {
		step(f, step_names[TT_STEP_MAP], "-", "", "%s (part of the program's time; "
		     "add -t %s to the run for its share)", text, name);
		return;
	}
	step(f, step_names[TT_STEP_MAP], ns(d, c->prog.ns_per_run - o->prog.ns_per_run), "derived",
	     "%s: the program's %s less %s, the program time of %s", text,
	     ns(a, c->prog.ns_per_run), ns(b, o->prog.ns_per_run), name);
}

/* The tracer's texts say "<name>" for the hooked syscall. */
static void fill_name(char *buf, size_t len, const char *target)
{
	char *at = strstr(buf, "<name>");
	char rest[256];

	if (!at || !target[0])
		return;
	snprintf(rest, sizeof(rest), "%s", at + 6);
	snprintf(at, len - (size_t)(at - buf), "%s%s", target, rest);
}

/* The hook, dispatch and program steps: with the program's own time, or all in one figure. */
static void middle_steps(FILE *f, const struct cell *c, const struct tracer *t)
{
	const struct prog_time *p = &c->prog;
	char hook[256], disp[256], prog[256], a[32], b[32], d[32];
	bool has_prog = tracer_explain(t, TT_STEP_PROGRAM, prog, sizeof(prog), NULL) == TT_OK;

	if (tracer_explain(t, TT_STEP_HOOK, hook, sizeof(hook), NULL) != TT_OK)
		snprintf(hook, sizeof(hook), "what '%s' hooks", c->tracer);
	fill_name(hook, sizeof(hook), c->target);
	if (tracer_explain(t, TT_STEP_DISPATCH, disp, sizeof(disp), NULL) != TT_OK)
		snprintf(disp, sizeof(disp), "what '%s' does per event", c->tracer);
	step(f, step_names[TT_STEP_HOOK], "}", "", "%s", hook);
	if (p->measured) {
		step(f, step_names[TT_STEP_DISPATCH], ns(a, p->dispatch_ns), "derived",
		     "%s; with the hook: +ns/event %s less the program's %s", disp,
		     ns(b, c->overhead.mean), ns(d, p->ns_per_run));
		step(f, step_names[TT_STEP_PROGRAM], ns(a, p->ns_per_run), "measured",
		     "%s, the map update below included; the kernel's BPF stats, median of %d traced "
		     "runs after the reps (%.1f to %.1f): %lld program runs for %lld hits", prog,
		     p->runs, p->range[0], p->range[1], (long long)p->run_cnt, (long long)p->hits);
		return;
	}
	if (!has_prog) {
		step(f, step_names[TT_STEP_DISPATCH], ns(a, c->overhead.mean), "measured",
		     "%s; with the hook: all of +ns/event", disp);
		step(f, step_names[TT_STEP_PROGRAM], "-", "", "none: no program runs");
		return;
	}
	step(f, step_names[TT_STEP_DISPATCH], "}", "", "%s", disp);
	step(f, step_names[TT_STEP_PROGRAM], ns(a, c->overhead.mean), "measured",
	     "%s; with the hook and the dispatch: all of +ns/event (no program time of its own: %s)",
	     prog, p->reason[0] ? p->reason : "not measured");
}

/* The same handler on the run's other hooks: where the difference goes. */
static void compare(FILE *f, const struct results *r, const struct cell *c)
{
	const char *var = strchr(c->tracer, '/');
	char a[32], b[32], d[32];
	bool head = false;

	if (!var || !c->prog.measured)
		return;
	for (int i = 0; i < r->ncells; i++) {
		const struct cell *o = &r->cells[i];
		const char *ov = strchr(o->tracer, '/');

		if (o == c || o->status != CELL_OK || !o->prog.measured || !ov || strcmp(ov, var) ||
		    o->threads != c->threads || strcmp(o->workload, c->workload))
			continue;
		if (!head)
			fprintf(f, "\n  the same handler on the run's other hooks (+ns/event = dispatch + "
				"program):\n");
		head = true;
		fprintf(f, "  %-22s %s = %s + %s\n%27s%s costs %+.1f ns more: dispatch %+.1f, "
			"program %+.1f\n", o->tracer, ns(a, o->overhead.mean), ns(b, o->prog.dispatch_ns),
			ns(d, o->prog.ns_per_run), "", c->tracer, c->overhead.mean - o->overhead.mean,
			c->prog.dispatch_ns - o->prog.dispatch_ns, c->prog.ns_per_run - o->prog.ns_per_run);
	}
}

static void explain_cell(FILE *f, const struct results *r, const struct cell *c)
{
	struct tracer t;
	char err[256], text[256], a[32], lo[24], hi[24];
	const char *target = c->target[0] ? c->target : NULL;

	fprintf(f, "\n%s on %s, %d thread%s: what one event goes through\n", c->tracer, c->workload,
		c->threads, c->threads == 1 ? "" : "s");
	if (c->status != CELL_OK) {
		fprintf(f, "  not measured: %s\n", c->reason);
		return;
	}
	if (tracer_init(&t, c->tracer, target ? tt_syscall_find(target) : NULL, err, sizeof(err))) {
		fprintf(f, "  %s\n", err);
		return;
	}
	step(f, step_names[TT_STEP_SYSCALL], ns(a, c->base.mean), "measured",
	     "%s%s with nothing attached: the baseline's ns/op", target ? target : "the op",
	     target ? "()" : "");
	middle_steps(f, c, &t);
	if (tracer_explain(&t, TT_STEP_PROGRAM, text, sizeof(text), NULL) == TT_OK)
		map_step(f, r, c, &t);
	if (tracer_explain(&t, TT_STEP_READER, text, sizeof(text), NULL) != TT_OK)
		step(f, step_names[TT_STEP_READER], "-", "", "none: the counts are read after the run");
	else
		step(f, step_names[TT_STEP_READER], ns(a, c->consumer_ns_per_event), "measured",
		     "%s; its own CPU per event, not in +ns/event", text);
	format_ns(lo, sizeof(lo), c->overhead.ci95[0]);
	format_ns(hi, sizeof(hi), c->overhead.ci95[1]);
	step(f, "total", ns(a, c->overhead.mean), "measured",
	     "+ns/event [%s, %s]: traced - baseline over %d paired reps", lo, hi, c->nreps);
	compare(f, r, c);
	if (c->prog.measured)
		fprintf(f, "\n  program time is the kernel's: a clock read before and after each run of "
			"the program,\n  so it holds part of those reads' cost; 'bpf stats' in the header "
			"says what they add.\n");
}

void output_explain(const struct results *r, const char *tracer, FILE *f)
{
	for (int i = 0; i < r->ncells; i++)
		if (!strcmp(r->cells[i].tracer, tracer))
			explain_cell(f, r, &r->cells[i]);
}
