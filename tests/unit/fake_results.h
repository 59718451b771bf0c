/*
 * A synthetic run for the tests of the store, the reader and compare:
 * none (the A/A cell), bpf:tp/count with @nreps reps of about 25 + @shift
 * ns per event, and bpf:kprobe/count skipped. Free with results_release().
 */
#ifndef TT_FAKE_RESULTS_H
#define TT_FAKE_RESULTS_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/results.h"

#define FAKE_SKIP_REASON "kernel built without CONFIG_KPROBES"

static void fake_set(char *dst, size_t len, const char *s)
{
	snprintf(dst, len, "%s", s);
}

static void fake_cell(struct cell *c, const char *tracer, int nreps, double over)
{
	/* a spread of +-1.5 ns that repeats every 4 reps: small against any shift tested */
	static const double wiggle[] = { 0.0, 1.5, -1.0, -0.5 };

	fake_set(c->workload, sizeof(c->workload), "getpid");
	fake_set(c->tracer, sizeof(c->tracer), tracer);
	fake_set(c->target, sizeof(c->target), strcmp(tracer, "none") ? "getpid" : "");
	snprintf(c->id, sizeof(c->id), "getpid|%s|1|%s", tracer, c->target);
	c->threads = 1;
	c->seed = 7;
	c->aa = !strcmp(tracer, "none");
	c->status = CELL_OK;
	c->iterations = 1000;
	c->warmup = 100;
	c->base_iterations = 1000;
	c->base_warmup = 100;
	c->nreps = c->cap_reps = nreps;
	c->reps = calloc((size_t)nreps + 1, sizeof(*c->reps));
	for (int i = 0; i < nreps; i++) {
		double base = 100 + wiggle[(i + 1) % 4];

		c->reps[i] = (struct rep){ .base_ns_per_op = base,
					   .traced_ns_per_op = base + over + wiggle[i % 4],
					   .events = 1100, .hits = c->aa ? -1 : 1100, .stops = -1,
					   .traced_first = i % 2, .wall_ms = 0.5, .steal_ms = NAN,
					   .mhz_min = NAN, .mhz_max = NAN };
	}
	results_finish_cell(c, c->seed);
}

static void fake_results(struct results *r, int nreps, double shift)
{
	struct environment *e = &r->env;

	memset(r, 0, sizeof(*r));
	fake_set(e->kernel, sizeof(e->kernel), "6.1.0-28-amd64");
	fake_set(e->kernel_version, sizeof(e->kernel_version), "#1 SMP");
	fake_set(e->arch, sizeof(e->arch), "x86_64");
	fake_set(e->cpu_model, sizeof(e->cpu_model), "Intel(R) Xeon(R) Processor");
	e->cpus = 2;
	fake_set(e->clocksource, sizeof(e->clocksource), "tsc");
	fake_set(e->virtualization, sizeof(e->virtualization), "kvm");
	fake_set(e->mitigations, sizeof(e->mitigations), "meltdown: Not affected; spectre_v2: Retpolines");
	fake_set(e->governor, sizeof(e->governor), "n/a");
	fake_set(e->tracetax_version, sizeof(e->tracetax_version), "test");
	fake_set(e->hostname, sizeof(e->hostname), "box");
	fake_set(e->started, sizeof(e->started), "2025-01-02T03:04:05Z");
	fake_set(e->other_tracers, sizeof(e->other_tracers), "none");
	fake_set(e->tools, sizeof(e->tools), "none");
	r->opts = (struct run_options){ .reps = nreps, .run_ms = 100, .seed = 1 };
	fake_set(r->opts.tracer_cpu, sizeof(r->opts.tracer_cpu), "same");
	r->elapsed_s = 3.5;
	r->ncells = 3;
	r->cells = calloc(4, sizeof(*r->cells));
	fake_cell(&r->cells[0], "none", nreps, 0);
	fake_cell(&r->cells[1], "bpf:tp/count", nreps, 25 + shift);
	fake_cell(&r->cells[2], "bpf:kprobe/count", 0, 0);
	r->cells[2].status = CELL_SKIPPED;
	fake_set(r->cells[2].reason, sizeof(r->cells[2].reason), FAKE_SKIP_REASON);
	results_finish_cell(&r->cells[2], 7);
	results_finish(r);
}

#endif
