#include <jansson.h>
#include <string.h>

#include "base/signals.h"
#include "load/workloads.h"
#include "output/list.h"
#include "measure/plan.h"
#include "load/syscalls.h"
#include "tracers/tracer.h"

static const char *list_load_path;

/* The status of one tracer name, probed on a workload that offers what it hooks. */
static int probe(const char *name, char *reason, size_t len)
{
	struct tracer t;
	char err[256];

	/* interrupted: probe no more, create nothing more (the caller dies of the signal) */
	if (signals_interrupted()) {
		snprintf(reason, len, "not probed: interrupted");
		return TT_SKIP;
	}
	if (tracer_init(&t, name, tt_syscall_find("getpid"), err, sizeof(err))) {
		snprintf(reason, len, "%s", err);
		return TT_FAIL;
	}
	plan_bind(&t, t.ops->hooks & TT_HOOK_UST ? "func-ust" :
			t.ops->hooks & TT_HOOK_USDT ? "func-usdt" :
			t.ops->hooks & TT_HOOK_FUNC ? "func" : "getpid", list_load_path);
	return tracer_supported(&t, reason, len);
}

/* TT_SKIP: the kernel or system refuses it; TT_FAIL: ours is broken (tracer.h). */
static const char *status_name(int st)
{
	return st == TT_OK ? "available" : st == TT_SKIP ? "skipped" : "failed";
}

static void each_name(const struct tracer_ops *ops, int v, char *buf, size_t len)
{
	if (ops->variants)
		snprintf(buf, len, "%s/%s", ops->name, ops->variants[v]);
	else
		snprintf(buf, len, "%s", ops->name);
}

static int list_json(FILE *f)
{
	json_t *doc = json_object(), *tr = json_array(), *wl = json_array(), *sc = json_array();
	char name[128], reason[256];

	for (int i = 0; tracer_table[i]; i++) {
		const struct tracer_ops *ops = tracer_table[i];

		for (int v = 0; v == 0 || (ops->variants && ops->variants[v]); v++) {
			int st;

			each_name(ops, v, name, sizeof(name));
			st = probe(name, reason, sizeof(reason));
			json_t *hooks = json_array();

			if (ops->hooks & TT_HOOK_SYSCALL)
				json_array_append_new(hooks, json_string("syscall"));
			if (ops->hooks & TT_HOOK_TRACEPOINT)
				json_array_append_new(hooks, json_string("tracepoint"));
			if (ops->hooks & TT_HOOK_FUNC)
				json_array_append_new(hooks, json_string("function"));
			if (ops->hooks & TT_HOOK_USDT)
				json_array_append_new(hooks, json_string("usdt"));
			if (ops->hooks & TT_HOOK_UST)
				json_array_append_new(hooks, json_string("ust"));
			json_array_append_new(tr, json_pack("{s:s, s:s, s:s, s:o, s:s, s:s?, s:s, s:s?}",
				"name", name, "family", ops->name,
				"group", ops->flags & TT_F_TOOL ? "tools" :
					 ops->flags & TT_F_OPTIN ? "opt-in" : "mechanisms", "hooks", hooks,
				"status", status_name(st),
				"reason", st == TT_OK ? NULL : reason,
				"summary", ops->summary ? ops->summary : "",
				"caveat", ops->caveat));
		}
	}
	for (const struct workload *w = workloads; w->name; w++)
		json_array_append_new(wl, json_pack("{s:s, s:s?, s:s?, s:s?, s:s}", "name", w->name,
						    "syscall", w->syscall, "function", w->func,
						    "usdt", w->usdt, "summary", w->summary));
	for (const struct tt_syscall *s = tt_syscalls; s->name; s++)
		json_array_append_new(sc, json_pack("{s:s, s:I, s:s}", "name", s->name,
						    "nr", (json_int_t)s->nr, "event", s->event));
	json_object_set_new(doc, "tracers", tr);
	json_object_set_new(doc, "workloads", wl);
	json_object_set_new(doc, "targets", sc);
	json_dumpf(doc, f, JSON_INDENT(2));
	fputc('\n', f);
	json_decref(doc);
	return 0;
}

int output_list(FILE *f, int json, const char *load_path)
{
	char name[128], reason[256];

	list_load_path = load_path;
	if (json)
		return list_json(f);
	fprintf(f, "tracers:\n");
	for (int i = 0; tracer_table[i]; i++) {
		const struct tracer_ops *ops = tracer_table[i];

		for (int v = 0; v == 0 || (ops->variants && ops->variants[v]); v++) {
			each_name(ops, v, name, sizeof(name));
			int st = probe(name, reason, sizeof(reason));

			if (st == TT_OK)
				fprintf(f, "  %-24s available  %s\n", name, v ? "" : ops->summary ? ops->summary : "");
			else
				fprintf(f, "  %-24s %s: %s\n", name, status_name(st), reason);
		}
	}
	/* what a family leaves on the box, once under the list: the same for its tracers */
	for (int i = 0; tracer_table[i]; i++) {
		const struct tracer_ops *ops = tracer_table[i];

		if (ops->caveat && (!tracer_table[i + 1] || tracer_table[i + 1]->caveat != ops->caveat))
			fprintf(f, "\n%.*s:* %s\n", (int)strcspn(ops->name, ":"), ops->name, ops->caveat);
	}
	fprintf(f, "\nworkloads:\n");
	for (const struct workload *w = workloads; w->name; w++)
		fprintf(f, "  %-24s %s\n", w->name, w->summary);
	fprintf(f, "  %-24s %s\n", "cmd:'COMMAND'", workload_find("cmd")->summary);
	fprintf(f, "\ntargets (--target):");
	for (const struct tt_syscall *s = tt_syscalls; s->name; s++)
		fprintf(f, " %s", s->name);
	fputc('\n', f);
	return 0;
}

int output_list_names(FILE *f, const char *what)
{
	char name[128];

	if (!strcmp(what, "tracers")) {
		for (int i = 0; tracer_table[i]; i++)
			for (int v = 0; v == 0 || (tracer_table[i]->variants && tracer_table[i]->variants[v]);
			     v++) {
				each_name(tracer_table[i], v, name, sizeof(name));
				fprintf(f, "%s\n", name);
			}
	} else if (!strcmp(what, "workloads")) {
		for (const struct workload *w = workloads; w->name; w++)
			if (!w->cmd)
				fprintf(f, "%s\n", w->name);
	} else {
		return -1;
	}
	return 0;
}
