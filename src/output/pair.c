/* `tracetax pair`: the table, the log2 histograms, and the document of --json. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "doc/write.h"
#include "output/dist.h"
#include "measure/pair.h"
#include "vm/spec.h"
#include "output/pair.h"
#include "tracers/tracer.h"
#include "base/atomic_file.h"
#include "base/util.h"
#include "version.h"

static const char *const kind_says[PAIR_NKIND] = {
	"one tracepoint dispatch: nothing but the two probes and the start's storage between them",
	"the syscall itself, two probes and the start's storage",
	"a kernel function and the one it calls first: the probes and the start's storage",
};

static const char *status_name(int st)
{
	return st == TT_OK ? "ok" : st == TT_SKIP ? "skipped" : "failed";
}

static void print_row(FILE *f, const struct pair_cell *c)
{
	const struct hist *h = c->delay;
	char f_[5][24];

	format_ns(f_[0], sizeof(f_[0]), h->count ? (double)h->min : NAN);
	format_ns(f_[1], sizeof(f_[1]), hist_mean(h));
	format_ns(f_[2], sizeof(f_[2]), hist_quantile(h, 0.99));
	format_ns(f_[3], sizeof(f_[3]), h->count ? (double)h->max : NAN);
	format_ns(f_[4], sizeof(f_[4]), sqrt(hist_variance(h)));
	fprintf(f, "%-7s %3d %9lld %9lld %9lld %9lld %11lld %8lld %7s %7s %7s %8s %7s\n",
		pair_storage_names[c->storage], c->threads, (long long)c->events, (long long)c->starts,
		(long long)c->ends, (long long)c->paired, (long long)c->overwritten,
		(long long)c->unpaired, f_[0], f_[1], f_[2], f_[3], f_[4]);
}

/* Per storage, its thread counts side by side. */
static void print_hists(FILE *f, const struct pair_results *r)
{
	for (int s = 0; s < r->args.nstorages; s++) {
		const struct hist *h[4];
		const char *names[4];
		char label[4][24];
		int n = 0;

		for (int i = 0; i < r->ncells && n < 4; i++) {
			const struct pair_cell *c = &r->cells[i];

			if ((int)c->storage != r->args.storages[s] || c->status != TT_OK || !c->delay->count)
				continue;
			snprintf(label[n], sizeof(label[n]), "%d thread%s", c->threads,
				 c->threads == 1 ? "" : "s");
			names[n] = label[n];
			h[n++] = c->delay;
		}
		if (!n)
			continue;
		fprintf(f, "\n%s: ns between the probes\n", pair_storage_names[r->args.storages[s]]);
		output_hist_log2(f, h, names, n > 2 ? 2 : n);
	}
}

void output_pair_table(const struct pair_results *r, FILE *f)
{
	const struct pair_args *a = &r->args;
	int lock_told = 0;

	fprintf(f, "tracetax %s pair: %s -> %s (%s), %s, clock %s\n", TRACETAX_VERSION,
		r->start_probe[0] ? r->start_probe : "?", r->end_probe[0] ? r->end_probe : "?",
		r->hook ? r->hook : "not loaded", a->workload, pair_clock_helpers[a->clock]);
	fprintf(f, "  %s\n", kind_says[a->kind]);
	/* run by pair --kernel in its VM (measure/vm.c): say what the ns are */
	if (getenv(VM_ENV) && (!strcmp(getenv(VM_ENV), "tcg") || !strcmp(getenv(VM_ENV), "kvm")))
		fprintf(f, "  in a VM: accel %s%s\n", getenv(VM_ENV),
			strcmp(getenv(VM_ENV), "tcg") ? "" :
			getenv(VM_UNIT_ENV) && !strcmp(getenv(VM_UNIT_ENV), "instructions") ?
			" with -icount: every ns below is a guest instruction" :
			" (emulated CPU: the ns are not costs)");
	fputc('\n', f);
	fprintf(f, "%-7s %3s %9s %9s %9s %9s %11s %8s %7s %7s %7s %8s %7s\n", "storage", "thr",
		"events", "starts", "ends", "paired", "overwritten", "unpaired", "min", "mean", "p99",
		"max", "stddev");
	for (int i = 0; i < r->ncells; i++)
		if (r->cells[i].status == TT_OK)
			print_row(f, &r->cells[i]);
	for (int i = 0; i < r->ncells; i++) {
		const struct pair_cell *c = &r->cells[i];

		/* once: how the lock storage was locked, and why not by the kernel's lock */
		if (c->status == TT_OK && c->lock && !lock_told++)
			fprintf(f, "  lock: %s%s%s\n", !strcmp(c->lock, "cmpxchg") ?
				"a compare-and-swap spin lock of ours" : c->lock,
				c->note[0] ? "; the kernel refused its own: " : "", c->note);
		if (c->status != TT_OK)
			fprintf(f, "  %-8s %s (%d thread%s): %s\n", status_name(c->status),
				pair_storage_names[c->storage], c->threads, c->threads == 1 ? "" : "s",
				c->reason);
	}
	print_hists(f, r);
	fprintf(f, "\nstarts, ends: each probe's hits in the workload; paired: ends that found their\n"
		"thread's start (the delays, ns); overwritten: ends that found another thread's\n"
		"start, the data race of shared storage; unpaired: ends that found none\n");
}

static json_t *cell_json(const struct pair_cell *c)
{
	bool ok = c->status == TT_OK;

	return json_pack("{s:s, s:o, s:i, s:s, s:o, s:o, s:I, s:I, s:I, s:I, s:I, s:I, s:o}",
		"storage", pair_storage_names[c->storage],
		"lock", c->lock && ok ? json_string(c->lock) : json_null(), "threads", c->threads,
		"status", status_name(c->status), "reason", ok ? json_null() : json_string(c->reason),
		"note", ok && c->note[0] ? json_string(c->note) : json_null(),
		"events", (json_int_t)c->events, "start_hits", (json_int_t)c->starts,
		"end_hits", (json_int_t)c->ends, "paired", (json_int_t)c->paired,
		"overwritten", (json_int_t)c->overwritten, "unpaired", (json_int_t)c->unpaired,
		"delay", ok ? output_json_dist(c->delay) : json_null());
}

int output_pair_json(const struct pair_results *r, const char *path)
{
	json_t *cells = json_array(), *doc;
	char *s, *text;
	int ret;

	for (int i = 0; i < r->ncells; i++)
		json_array_append_new(cells, cell_json(&r->cells[i]));
	doc = json_pack("{s:s, s:s, s:o, s:o, s:o, s:s, s:s, s:I, s:o}",
		"tracetax_version", TRACETAX_VERSION, "pair", pair_kind_names[r->args.kind],
		"start_probe", r->start_probe[0] ? json_string(r->start_probe) : json_null(),
		"end_probe", r->end_probe[0] ? json_string(r->end_probe) : json_null(),
		"hook", r->hook ? json_string(r->hook) : json_null(),
		"clock", pair_clock_helpers[r->args.clock], "workload", r->args.workload,
		"iterations", (json_int_t)r->args.iterations, "cells", cells);
	s = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
	json_decref(doc);
	if (!s)
		die("out of memory");
	if (asprintf(&text, "%s\n", s) < 0)
		die("out of memory");
	ret = atomic_file_text(path, text);
	free(text);
	free(s);
	return ret;
}
