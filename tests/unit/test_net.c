/*
 * The tcp workloads' side of the core: tracepoint targets (--target
 * SYSTEM:EVENT), --msg-size, which tracers a tracepoint target skips, and
 * the figures per hit and per byte, against hand-computed values.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <jansson.h>

#include "cli/cli.h"
#include "doc/write.h"
#include "measure/plan.h"
#include "output/table.h"
#include "results/results.h"
#include "load/syscalls.h"
#include "tracers/tracer.h"
#include "load/workloads.h"

static void test_split(void **state)
{
	char sys[32], ev[64];

	(void)state;
	assert_int_equal(tt_tracepoint_split("tcp:tcp_probe", sys, sizeof(sys), ev, sizeof(ev)), 1);
	assert_string_equal(sys, "tcp");
	assert_string_equal(ev, "tcp_probe");
	assert_int_equal(tt_tracepoint_split("net:netif_receive_skb", NULL, 0, ev, sizeof(ev)), 1);
	assert_string_equal(ev, "netif_receive_skb");
	assert_int_equal(tt_tracepoint_split("getpid", sys, sizeof(sys), ev, sizeof(ev)), 0);
	assert_int_equal(tt_tracepoint_split("tcp:", NULL, 0, NULL, 0), 0);
	assert_int_equal(tt_tracepoint_split(":tcp_probe", NULL, 0, NULL, 0), 0);
	assert_int_equal(tt_tracepoint_split("tcp:tcp:probe", NULL, 0, NULL, 0), 0);
	assert_int_equal(tt_tracepoint_split("tcp:tcp probe", NULL, 0, NULL, 0), 0);
	assert_int_equal(tt_tracepoint_split("../x:y", NULL, 0, NULL, 0), 0);
	assert_int_equal(tt_tracepoint_split(NULL, NULL, 0, NULL, 0), 0);
}

static int parse(struct run_args *a, char *err, int argc, char **argv)
{
	return cli_parse_run(argc, argv, a, err, 256);
}

static void test_cli(void **state)
{
	char *ok[] = { "run", "-w", "tcp,tcp-rr", "--target", "tcp:tcp_probe", "--msg-size", "64", NULL };
	char *def[] = { "run", NULL };
	char *bad_tp[] = { "run", "--target", "tcp:", NULL };
	/* a real tracepoint's name of 31 characters is not refused (issue 15, defect 9) */
	char *long_ok[] = { "run", "--target", "syscalls:sys_enter_clock_gettime", NULL };
	char too_long_name[200] = "sock:";
	char *too_long[] = { "run", "--target", too_long_name, NULL };
	char *bad_size[] = { "run", "--msg-size", "0", NULL };
	struct run_args a;
	char err[256];

	(void)state;
	assert_int_equal(parse(&a, err, 1, def), 0);
	assert_int_equal(a.m.msg_size, 1448);
	cli_release(&a);
	assert_int_equal(parse(&a, err, 7, ok), 0);
	assert_string_equal(a.m.target, "tcp:tcp_probe");
	assert_int_equal(a.m.msg_size, 64);
	assert_int_equal(a.m.nworkloads, 2);
	cli_release(&a);
	assert_int_equal(parse(&a, err, 3, bad_tp), -1);
	assert_non_null(strstr(err, "unknown target syscall 'tcp:'"));
	cli_release(&a);
	assert_int_equal(parse(&a, err, 3, long_ok), 0);
	assert_string_equal(a.m.target, "syscalls:sys_enter_clock_gettime");
	cli_release(&a);
	memset(too_long_name + 5, 'x', 130);
	assert_int_equal(parse(&a, err, 3, too_long), -1);
	assert_non_null(strstr(err, "too long"));
	cli_release(&a);
	assert_int_equal(parse(&a, err, 3, bad_size), -1);
	assert_non_null(strstr(err, "invalid --msg-size '0'"));
	cli_release(&a);
}

/* Syscall-only tracers skip a tracepoint target; the others and hook-less ones take it. */
static void test_hooks(void **state)
{
	const struct workload *tcp = workload_find("tcp");
	char why[256];

	(void)state;
	assert_non_null(tcp);
	assert_string_equal(tcp->syscall, "sendto");
	assert_int_equal(plan_hooks_ok(TT_HOOK_SYSCALL, tcp, "tcp:tcp_probe", why, sizeof(why)), 0);
	assert_non_null(strstr(why, "hooks syscalls only, not tracepoint 'tcp:tcp_probe'"));
	assert_int_equal(plan_hooks_ok(TT_HOOK_SYSCALL | TT_HOOK_TRACEPOINT, tcp, "tcp:tcp_probe",
				       why, sizeof(why)), 1);
	assert_int_equal(plan_hooks_ok(0, tcp, "tcp:tcp_probe", why, sizeof(why)), 1);
	assert_int_equal(plan_hooks_ok(TT_HOOK_SYSCALL, tcp, "sendto", why, sizeof(why)), 1);
}

/* The default plan on a tracepoint keeps only the tracers that can hook one. */
static void test_default_plan(void **state)
{
	char *argv[] = { "run", "-w", "tcp", "--target", "net:net_dev_xmit", NULL };
	struct run_args a;
	struct plan p;
	char err[256];
	int has_bpf_tp = 0, has_ptrace = 0, has_rawtp = 0;

	(void)state;
	assert_int_equal(parse(&a, err, 5, argv), 0);
	assert_int_equal(plan_build(&a.m, &p), 0);
	for (int i = 0; i < p.n; i++) {
		assert_string_equal(p.cells[i].target, "net:net_dev_xmit");
		has_bpf_tp |= !strcmp(p.cells[i].tracer, "bpf:tp/count");
		has_ptrace |= !strcmp(p.cells[i].tracer, "ptrace:all");
		has_rawtp |= !strncmp(p.cells[i].tracer, "bpf:rawtp", 9);
	}
	assert_true(has_bpf_tp);
	assert_false(has_ptrace);
	assert_false(has_rawtp);
	plan_release(&p);
	cli_release(&a);
}

/*
 * 2 threads of 1448-byte messages; base 1000 ns and traced 1250 ns per
 * message; 2 hits per message: +250 ns a message, 125 ns a hit; each
 * thread 1.448 GB/s untraced, so 2896 MB/s, traced 2316.8; loss 20%.
 */
static struct cell net_cell(int64_t bytes, int64_t hits, struct rep *reps)
{
	struct cell c = { .threads = 2, .status = CELL_OK, .nreps = 3, .reps = reps,
			  .bytes_per_event = bytes };

	snprintf(c.workload, sizeof(c.workload), "tcp");
	snprintf(c.tracer, sizeof(c.tracer), "bpf:tp/count");
	snprintf(c.target, sizeof(c.target), "tcp:tcp_probe");
	for (int i = 0; i < 3; i++)
		reps[i] = (struct rep){ .base_ns_per_op = 1000 + i - 1, .traced_ns_per_op = 1250 + i - 1,
					.events = 1000, .hits = hits, .stops = -1 };
	results_finish_cell(&c, 1);
	return c;
}

static void test_per_hit_and_byte(void **state)
{
	struct rep reps[3];
	struct cell c = net_cell(1448, 2000, reps);

	(void)state;
	assert_true(fabs(c.hits_per_event - 2) < 1e-12);
	assert_true(fabs(c.overhead.mean - 250) < 1e-9);
	assert_true(fabs(c.ns_per_hit - 125) < 1e-9);
	assert_true(fabs(c.base_mbps - 2896) < 1e-9);
	assert_true(fabs(c.traced_mbps - 2316.8) < 1e-9);
	assert_true(fabs(c.loss_pct - 20) < 1e-9);
	assert_true(c.loss_ci95[0] <= 20 && c.loss_ci95[1] >= 20);
	/* a tracepoint's hits are not the events: no "hits != events" note */
	assert_null(strstr(c.note, "!= events"));
	c = net_cell(0, -1, reps);
	assert_true(isnan(c.hits_per_event) && isnan(c.ns_per_hit));
	assert_true(isnan(c.base_mbps) && isnan(c.loss_pct));
}

static void test_output(void **state)
{
	struct rep reps[3], reps2[3];
	struct cell cells[2];
	struct results r = { .opts = { .reps = 3, .run_ms = 100, .msg_size = 1448 } };
	json_t *doc, *c, *tp;
	json_error_t jerr;
	char *s, *text = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	cells[0] = net_cell(1448, 2000, reps);
	cells[1] = net_cell(0, 1000, reps2);
	snprintf(cells[1].target, sizeof(cells[1].target), "getpid");
	r.cells = cells;
	r.ncells = 2;
	s = output_json_string(&r);
	doc = json_loads(s, 0, &jerr);
	assert_non_null(doc);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(doc, "options"), "msg_size")), 1448);
	c = json_array_get(json_object_get(doc, "cells"), 0);
	assert_true(fabs(json_real_value(json_object_get(c, "overhead_ns_per_hit")) - 125) < 1e-9);
	tp = json_object_get(c, "throughput");
	assert_int_equal(json_integer_value(json_object_get(tp, "bytes_per_event")), 1448);
	assert_true(fabs(json_real_value(json_object_get(tp, "loss_pct")) - 20) < 1e-9);
	c = json_array_get(json_object_get(doc, "cells"), 1);
	assert_true(json_is_null(json_object_get(c, "throughput")));
	json_decref(doc);
	free(s);
	f = open_memstream(&text, &len);
	output_table(&r, f, false);
	fclose(f);
	/* the part per hit lists the tracepoint cell with its figures, not the getpid one */
	assert_non_null(strstr(text, "hits/ev"));
	assert_non_null(strstr(text, "2896.0"));
	assert_non_null(strstr(text, "20.0 ["));
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_cli),
		cmocka_unit_test(test_hooks),
		cmocka_unit_test(test_default_plan),
		cmocka_unit_test(test_per_hit_and_byte),
		cmocka_unit_test(test_output),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
