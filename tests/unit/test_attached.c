/*
 * The attached consumers: owners grouped from hand-made rows (a holder, a
 * seccomp filter's own process, nobody: "unknown owner", a floor where a
 * row was not counted), and a real scan that finds a ptrace supervisor and
 * a seccomp filter we set up on our own children, and not our own tracee.
 */
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "attach/scan.h"
#include "results/attached.h"

static struct att_row row(enum att_kind kind, pid_t holder, pid_t target, double rate)
{
	struct att_row r;

	memset(&r, 0, sizeof(r));
	r.c.kind = kind;
	if (holder) {
		r.c.holders[0].pid = holder;
		snprintf(r.c.holders[0].comm, sizeof(r.c.holders[0].comm), "h%d", (int)holder);
		r.c.nholders = 1;
	}
	r.c.target = target;
	snprintf(r.c.target_comm, sizeof(r.c.target_comm), "t%d", (int)target);
	r.rate = rate;
	r.run_cnt = -1;
	r.cost.share = r.cost.share_lo = r.cost.share_hi = r.cost.bpftop_share = NAN;
	r.coll.share = r.coll.share_lo = r.coll.share_hi = NAN;
	return r;
}

static void test_owners(void **state)
{
	struct att_row rows[] = {
		row(ATT_BPF, 10, 0, 100), row(ATT_PERF, 10, 0, NAN), row(ATT_PTRACE, 20, 30, 5),
		row(ATT_SECCOMP, 0, 40, 7), row(ATT_FTRACE, 0, 0, 50), row(ATT_BPF, 0, 0, 1),
	};
	struct attached a = { .rows = rows, .nrows = 6 };

	(void)state;
	rows[0].run_cnt = 10;
	rows[0].run_ns = 2000;
	rows[0].seconds = 2;
	rows[0].cost.share = 1.5;
	rows[0].cost.share_lo = 1;
	rows[0].cost.share_hi = 2;
	attached_owners(&a);
	assert_int_equal(a.nowners, 4);
	assert_int_equal(a.owners[0].p.pid, 10);
	assert_int_equal(a.owners[0].nrows, 2);
	assert_int_equal(a.owners[0].nuncounted, 1);	/* its rate is a floor */
	assert_true(a.owners[0].rate == 100);
	assert_true(a.owners[0].prog_ns_total == 1000);
	assert_true(a.owners[0].share == 1.5 && a.owners[0].share_hi == 2);
	assert_int_equal(a.owners[1].p.pid, 20);
	/* nothing of its costed: no share, not a share of 0 */
	assert_true(isnan(a.owners[1].share));
	/* a filter with no supervisor is its own process's */
	assert_int_equal(a.owners[2].p.pid, 40);
	assert_string_equal(a.owners[2].p.comm, "t40");
	/* nobody holds the buffer or the pinned program: one unknown owner for both */
	assert_int_equal(a.owners[3].p.pid, 0);
	assert_string_equal(a.owners[3].p.comm, "unknown owner");
	assert_int_equal(a.owners[3].nrows, 2);
	assert_true(a.owners[3].rate == 51);
	free(a.owners);
}

/*
 * The owners' own CPU: a reader's is added to the total; a ptrace
 * supervisor's is in its tracee's cost already, not added; a filter's own
 * process, nobody and a holder that exited have none, with why, never 0.
 */
static void test_owners_own_cpu(void **state)
{
	struct att_row rows[] = {
		row(ATT_FTRACE, 10, 0, 100), row(ATT_PTRACE, 20, 30, 5), row(ATT_SECCOMP, 0, 40, 7),
		row(ATT_BPF, 0, 0, 1), row(ATT_PERF, 50, 0, 9), row(ATT_BPF, 60, 0, 3),
	};
	struct att_own own[] = {
		{ .pid = 10, .ns = 1e9 }, { .pid = 20, .ns = 5e8 },
		{ .pid = 50, .ns = NAN, .why = "it exited during the window" }, { .pid = 60, .ns = 0 },
	};
	struct attached a = { .rows = rows, .nrows = 6, .own = own, .nown = 4, .seconds = 2,
			      .cpus = 2 };

	(void)state;
	attached_owners(&a);
	assert_int_equal(a.nowners, 6);
	/* 1e9 ns in 2 s on 2 CPUs: 25% of the box, added */
	assert_true(fabs(a.owners[0].own_share - 25) < 1e-12 && a.owners[0].own_added);
	assert_string_equal(a.owners[0].own_why, "");
	assert_true(fabs(a.owners[1].own_share - 12.5) < 1e-12 && !a.owners[1].own_added);
	assert_non_null(strstr(a.owners[1].own_why, "not added"));
	assert_true(isnan(a.owners[2].own_share) && !a.owners[2].own_added);
	assert_non_null(strstr(a.owners[2].own_why, "filtered process itself"));
	assert_true(isnan(a.owners[3].own_share));
	assert_string_equal(a.owners[3].own_why, "no process holds it");
	assert_true(isnan(a.owners[4].own_share));
	assert_string_equal(a.owners[4].own_why, "it exited during the window");
	/* a process that slept: 0 read, not unread */
	assert_true(a.owners[5].own_share == 0 && a.owners[5].own_added);
	assert_true(fabs(a.own_share - 25) < 1e-12);
	assert_true(fabs(a.own_in_cost - 12.5) < 1e-12);
	assert_int_equal(a.own_unread, 1);
	free(a.owners);
}

/* An ftrace buffer's tracer is its reader's: the file it holds says which. */
static void test_ftrace_reader_tracer(void **state)
{
	static const struct { const char *reads, *tracer; } want[] = {
		{ "pipe", "ftrace:syscall/pipe" }, { "read", "ftrace:syscall/read" },
		{ "splice", "ftrace:syscall/splice" }, { "mmap", "ftrace:syscall/mmap" },
		{ "", "ftrace:syscall/noread" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct att_row r = row(ATT_FTRACE, 10, 0, 1);

		snprintf(r.c.what, sizeof(r.c.what), "events syscalls:sys_enter_getuid");
		snprintf(r.c.reads, sizeof(r.c.reads), "%s", want[i].reads);
		assert_string_equal(attached_tracer_of(&r), want[i].tracer);
	}
}

/* The syscall a consumer hooks, from its attach point; none for a kprobe */
static void test_syscall_of(void **state)
{
	static const struct { enum att_kind kind; const char *mech, *what, *want; } cases[] = {
		{ ATT_BPF, "tracepoint", "sys_enter_getuid", "getuid" },
		{ ATT_BPF, "tracepoint", "sys_exit_close, sys_enter_close", "close" },
		{ ATT_BPF, "tracepoint", "sys_enter_getuid, sys_enter_close", "" },
		{ ATT_BPF, "raw_tracepoint", "sys_enter", "" },
		{ ATT_FTRACE, "ftrace", "events syscalls:sys_enter_newstat; read through trace_pipe",
		  "newstat" },
		{ ATT_FTRACE, "ftrace", "events raw_syscalls:sys_enter", "" },
		{ ATT_PTRACE, "ptrace", "pid 7 (x)", "" },
		{ ATT_BPF, "kprobe", "__x64_sys_exit_group+0", NULL },
		{ ATT_BPF, "tracepoint", "sched_switch", NULL },
		{ ATT_FTRACE, "ftrace", "events sched:sched_switch", NULL },
		{ ATT_PERF, "perf_event", "2 perf events without a BPF program", NULL },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct att_row r = row(cases[i].kind, 10, 0, 1);
		char got[64];
		bool one;

		snprintf(r.c.mech, sizeof(r.c.mech), "%s", cases[i].mech);
		snprintf(r.c.what, sizeof(r.c.what), "%s", cases[i].what);
		one = attached_syscall_of(&r, got, sizeof(got));
		assert_int_equal(one, cases[i].want != NULL);
		if (cases[i].want)
			assert_string_equal(got, cases[i].want);
		assert_int_equal(attached_box_slow_path(&r),
				 cases[i].want && cases[i].kind != ATT_PTRACE);
	}
}

/*
 * The collateral: 4000 syscalls on the box in 1 s on 2 CPUs; a BPF program
 * on getuid sees 1000 of them, an ftrace instance on getuid 500 (one slow
 * path for both: the program, dearer, carries it), a counting perf event
 * is not a hook. The 2500 others at 40 ns [35, 45]. With the audit
 * residue the collateral is 0, and says why.
 */
static void test_collateral(void **state)
{
	struct att_row rows[] = {
		row(ATT_BPF, 10, 0, 1000), row(ATT_FTRACE, 11, 0, 500), row(ATT_PERF, 12, 0, 1e9),
		row(ATT_BPF, 13, 0, 100),
	};
	struct attached a = { .rows = rows, .nrows = 4, .cpus = 2 };

	(void)state;
	a.rates.events = 4000;
	a.rates.seconds = 1;
	snprintf(rows[0].c.mech, sizeof(rows[0].c.mech), "tracepoint");
	snprintf(rows[0].c.what, sizeof(rows[0].c.what), "sys_enter_getuid");
	snprintf(rows[1].c.mech, sizeof(rows[1].c.mech), "ftrace");
	snprintf(rows[1].c.what, sizeof(rows[1].c.what), "events syscalls:sys_enter_getuid");
	snprintf(rows[3].c.mech, sizeof(rows[3].c.mech), "kprobe");
	snprintf(rows[3].c.what, sizeof(rows[3].c.what), "do_sys_open+0");
	rows[0].events = 1000;
	rows[1].events = 500;
	rows[2].events = 1000000000;
	rows[3].events = 100;
	for (int i = 0; i < 4; i++) {
		rows[i].cost.cell_ns = rows[i].coll.cell_ns = NAN;
		rows[i].cost.cell_lo = rows[i].coll.cell_lo = NAN;
		rows[i].cost.cell_hi = rows[i].coll.cell_hi = NAN;
	}
	rows[0].coll.cell_ns = 40;
	rows[0].coll.cell_lo = 35;
	rows[0].coll.cell_hi = 45;
	snprintf(rows[0].coll.source, sizeof(rows[0].coll.source), "store");
	rows[1].coll.cell_ns = 20;	/* cheaper: shares the program's */
	rows[1].coll.cell_lo = 10;
	rows[1].coll.cell_hi = 30;
	assert_null(attached_tracer_of(&rows[2]));
	attached_costs(&a);
	assert_true(rows[0].coll.box && rows[1].coll.box && !rows[2].coll.box && !rows[3].coll.box);
	assert_int_equal(rows[0].coll.events, 2500);
	assert_false(rows[0].coll.shared);
	assert_true(fabs((rows[0].coll.share) - (2500 * 40 / 2e9 * 100)) <= 1e-12);
	assert_true(fabs((rows[0].coll.share_lo) - (2500 * 35 / 2e9 * 100)) <= 1e-12);
	assert_true(fabs((rows[0].coll.share_hi) - (2500 * 45 / 2e9 * 100)) <= 1e-12);
	assert_true(rows[1].coll.shared);
	assert_int_equal(rows[1].coll.carrier, 0);
	assert_true(fabs((rows[1].coll.share) - (0)) <= 0);
	assert_true(isnan(rows[2].coll.share) && isnan(rows[3].coll.share));
	assert_true(fabs((a.coll_share) - (rows[0].coll.share)) <= 1e-12);
	assert_true(fabs((a.share) - (a.seen_share + a.coll_share)) <= 1e-12);
	/* the residue: every task on the slow path already */
	a.residue = 1;
	attached_costs(&a);
	assert_true(fabs((rows[0].coll.share) - (0)) <= 0);
	assert_non_null(strstr(rows[0].coll.why, "audit residue"));
	assert_true(fabs((a.coll_share) - (0)) <= 0);
	/* no collateral cost stored: none, said, and the share a floor */
	a.residue = 0;
	for (int i = 0; i < 2; i++) {
		rows[i].coll.cell_ns = NAN;
		rows[i].coll.why[0] = '\0';
		rows[i].coll.shared = false;
	}
	attached_costs(&a);
	assert_true(isnan(rows[0].coll.share));
	assert_true(a.nfloor >= 2);
}

static const struct att_consumer *find_kind(const struct att_list *l, enum att_kind k, pid_t target)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].kind == k && l->v[i].target == target)
			return &l->v[i];
	return NULL;
}

/*
 * The live rule set is one consumer, priced as budget -t audit:rules prices
 * a file: a rule on getuid, 1000 getuid and 3000 getpid calls in 2 s on 2
 * CPUs, a record 1000 ns [900, 1100], the walk 100 ns [50, 150]. Audit on
 * with no rule is audit:enabled's.
 */
static void test_audit_rules_cost(void **state)
{
	struct audit_rule_sum rule = { .line = 1, .exit = true, .native = true };
	struct budget_auid_nr calls[] = {
		{ .auid = AUDIT_AUID_UNSET, .known = true, .nr = 102, .events = 1000 },	/* getuid */
		{ .auid = AUDIT_AUID_UNSET, .known = true, .nr = 39, .events = 3000 },	/* getpid */
	};
	struct att_row r = row(ATT_AUDIT, 0, 0, 2000);
	struct attached a = { .rows = &r, .nrows = 1, .cpus = 2 };
	const struct att_cost *c = &r.cost;

	(void)state;
	rule.mask[102 / 32] |= 1u << (102 % 32);
	snprintf(r.c.key, sizeof(r.c.key), "audit enabled");
	assert_string_equal(attached_tracer_of(&r), "audit:enabled");
	snprintf(r.c.key, sizeof(r.c.key), "audit rules");
	assert_string_equal(attached_tracer_of(&r), "audit:rules");
	snprintf(r.cost.tracer, sizeof(r.cost.tracer), "audit:rules");
	a.audit_set = budget_audit_new(&rule, 1);
	a.rates = (struct budget_rates){ .seconds = 2, .events = 4000, .auid_nr = calls, .nauid_nr = 2 };
	/* no walk's cost: no cost, and why, never 0 */
	snprintf(a.audit_set->walk.reason, sizeof(a.audit_set->walk.reason), "none stored");
	attached_costs(&a);
	assert_true(isnan(c->ns) && isnan(c->share));
	assert_string_equal(c->why, "none stored");
	r.cost.why[0] = '\0';
	a.audit_set->walk = (struct budget_audit_cost){ .source = "store", .ns = 100, .lo = 50, .hi = 150 };
	a.audit_set->record = (struct budget_audit_cost){ .source = "store", .ns = 1000, .lo = 900,
							   .hi = 1100 };
	attached_costs(&a);
	assert_int_equal(a.audit_set->box.records[AUDIT_LOWER], 1000);
	assert_int_equal(a.audit_set->box.records[AUDIT_UPPER], 1000);
	/* (3000 x 100 + 1000 x 1000) / 4000 calls; bounds (3000 x 50 + 1000 x 900), (... 150, 1100) */
	assert_true(fabs(c->ns - 325) < 1e-9 && fabs(c->lo - 262.5) < 1e-9 && fabs(c->hi - 387.5) < 1e-9);
	/* 1.3e6 ns in 2 s on 2 CPUs */
	assert_true(fabs(c->share - 1.3e6 / 2 / 2e9 * 100) < 1e-12);
	assert_true(fabs(a.share - c->share) < 1e-12);
	assert_false(c->floor);
	/*
	 * No auditd (the rule set's holder is kauditd): the records take the
	 * kernel log's path, which no tracer measures; never an auditd's record
	 * cost: every call's walk plus kauditd's CPU over the window, a floor.
	 */
	r.c.nholders = 1;
	snprintf(r.c.holders[0].comm, sizeof(r.c.holders[0].comm), "kauditd");
	a.audit_owner_cpu_ns = 200000;
	attached_costs(&a);
	assert_true(attached_audit_no_auditd(&a));
	assert_true(c->floor);
	assert_non_null(strstr(c->why, "no auditd"));
	/* (4000 x 100 + 2e5) / 4000; bounds (4000 x 50 + 2e5), (4000 x 150 + 2e5) */
	assert_true(fabs(c->ns - 150) < 1e-9 && fabs(c->lo - 100) < 1e-9 && fabs(c->hi - 200) < 1e-9);
	assert_true(fabs(c->share - 6e5 / 2 / 2e9 * 100) < 1e-12);
	budget_audit_release(a.audit_set);
}

/*
 * The box's `-a never,task` in the live set: the tasks forked since it was
 * loaded have no audit context, and the counter says which calls were
 * theirs. The getuid rule of test_audit_rules_cost, its 1000 getuid and
 * 3000 getpid calls, and 6000 getpid calls of tasks with no context: those
 * cost nothing, and the row's note says why.
 */
static void test_audit_task_never_cost(void **state)
{
	struct audit_rule_sum rules[2] = {
		{ .line = 1, .never = true, .task_never = true, .native = true },
		{ .line = 2, .exit = true, .native = true },
	};
	struct budget_auid_nr calls[] = {
		{ .auid = AUDIT_AUID_UNSET, .known = true, .nr = 102, .events = 1000 },	/* getuid */
		{ .auid = AUDIT_AUID_UNSET, .known = true, .nr = 39, .events = 3000 },	/* getpid */
		{ .auid = AUDIT_AUID_UNSET, .known = true, .no_ctx = true, .nr = 39, .events = 6000 },
	};
	struct att_row r = row(ATT_AUDIT, 0, 0, 5000);
	struct attached a = { .rows = &r, .nrows = 1, .cpus = 2 };
	const struct att_cost *c = &r.cost;

	(void)state;
	rules[1].mask[102 / 32] |= 1u << (102 % 32);
	snprintf(r.c.key, sizeof(r.c.key), "audit rules");
	snprintf(r.cost.tracer, sizeof(r.cost.tracer), "audit:rules");
	snprintf(r.state, sizeof(r.state), "counted");
	a.audit_set = budget_audit_new(rules, 2);
	a.audit_set->live = true;
	assert_true(a.audit_set->task_never);
	a.audit_set->walk = (struct budget_audit_cost){ .source = "store", .ns = 100, .lo = 50,
							 .hi = 150 };
	a.audit_set->record = (struct budget_audit_cost){ .source = "store", .ns = 1000, .lo = 900,
							   .hi = 1100 };
	a.rates = (struct budget_rates){ .seconds = 2, .events = 10000, .auid_nr = calls,
					 .nauid_nr = 3, .audit_ctx = 0 };
	attached_costs(&a);
	assert_int_equal(a.audit_set->box.no_ctx, 6000);
	/* (3000 x 100 + 1000 x 1000) / 10000 calls: the 6000 walk nothing */
	assert_true(fabs(c->ns - 130) < 1e-9 && fabs(c->lo - 105) < 1e-9 && fabs(c->hi - 155) < 1e-9);
	assert_true(fabs(c->share - 1.3e6 / 2 / 2e9 * 100) < 1e-12);
	assert_non_null(strstr(r.why, "-a never,task: tasks forked since it was loaded have no "
				     "audit context"));
	assert_non_null(strstr(r.why, "60.0% of the calls"));
	/* the contexts not read (no such field): every call priced, and the note says so */
	calls[2].no_ctx = false;
	a.rates.audit_ctx = -1;
	attached_costs(&a);
	assert_true(fabs(c->ns - (9000 * 100.0 + 1000 * 1000.0) / 10000) < 1e-9);
	assert_non_null(strstr(r.why, "could not be read"));
	budget_audit_release(a.audit_set);
}

/*
 * A strace'd process's events from the counter's table of processes
 * (4096 rows, as the BPF map's): in it, its count; not in it with room
 * left, 0 (it made no call); not in it and the table full (a process that
 * overflowed it: its calls went to "unnamed"), not counted, never
 * "counted, 0 events"; gone, when it exited.
 */
static void test_proc_events_table_full(void **state)
{
	enum { MAX = 4096 };
	struct budget_proc *all = calloc(MAX, sizeof(*all));
	struct att_row r = row(ATT_PTRACE, 10, 77777, NAN);

	(void)state;
	assert_non_null(all);
	for (int i = 0; i < MAX; i++)
		all[i] = (struct budget_proc){ .pid = 1000 + i, .events = 5 };
	all[7].pid = 77777;
	all[7].events = 1234;
	attached_proc_events(&r, all, 100, MAX, 0, true);
	assert_string_equal(r.state, "counted");
	assert_int_equal(r.events, 1234);
	/* not seen, room left: it made no syscall in the window */
	r.c.target = 99999;
	attached_proc_events(&r, all, 100, MAX, 0, true);
	assert_string_equal(r.state, "counted");
	assert_int_equal(r.events, 0);
	/* the BPF table overflowed (calls of processes it had no room for) */
	r.why[0] = '\0';
	attached_proc_events(&r, all, MAX, MAX, 52000, true);
	assert_string_equal(r.state, "not counted");
	assert_int_equal(r.events, -1);
	assert_non_null(strstr(r.why, "the counter's table of processes was full (4096; 52000 calls"));
	/* a full table read back, with no call counted unnamed: still not 0 */
	attached_proc_events(&r, all, MAX, MAX, 0, true);
	assert_string_equal(r.state, "not counted");
	assert_int_equal(r.events, -1);
	/* only the calls unnamed say it: the table read back short of full */
	attached_proc_events(&r, all, 3000, MAX, 1, true);
	assert_string_equal(r.state, "not counted");
	/* in the full table: its count */
	r.c.target = 77777;
	attached_proc_events(&r, all, MAX, MAX, 52000, true);
	assert_string_equal(r.state, "counted");
	assert_int_equal(r.events, 1234);
	/* exited, with room in the table: gone, not 0 */
	r.c.target = 99999;
	attached_proc_events(&r, all, 100, MAX, 0, false);
	assert_string_equal(r.state, "gone");
	assert_int_equal(r.events, -1);
	free(all);
}

static void test_scan_ptrace_seccomp(void **state)
{
	struct sock_filter allow = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	struct sock_fprog prog = { .len = 1, .filter = &allow };
	int go[2], status;
	pid_t tracee, tracer, filtered, ours;
	const struct att_consumer *c;
	struct att_list l;
	char b;

	(void)state;
	if (geteuid())
		skip();
	assert_int_equal(pipe(go), 0);
	tracee = fork();
	if (!tracee) {
		pause();
		_exit(0);
	}
	tracer = fork();
	if (!tracer) {
		if (ptrace(PTRACE_SEIZE, tracee, 0, 0))
			_exit(1);
		b = 1;
		if (write(go[1], &b, 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	filtered = fork();
	if (!filtered) {
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
		    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog))
			_exit(1);
		pause();
		_exit(0);
	}
	/* our own tracee is not another tracer's */
	ours = fork();
	if (!ours) {
		pause();
		_exit(0);
	}
	assert_int_equal(ptrace(PTRACE_SEIZE, ours, 0, 0), 0);
	assert_int_equal(read(go[0], &b, 1), 1);
	usleep(100000);	/* the filter is set */
	assert_int_equal(att_scan(&l), 0);
	c = find_kind(&l, ATT_PTRACE, tracee);
	assert_non_null(c);
	assert_int_equal(c->nholders, 1);
	assert_int_equal(c->holders[0].pid, tracer);
	c = find_kind(&l, ATT_SECCOMP, filtered);
	assert_non_null(c);
	assert_int_equal(c->nholders, 0);
	assert_non_null(strstr(c->what, "1 filter"));
	assert_null(find_kind(&l, ATT_PTRACE, ours));
	att_release(&l);
	for (pid_t *p = (pid_t[]){ tracer, tracee, filtered, ours, 0 }; *p; p++) {
		kill(*p, SIGKILL);
		waitpid(*p, &status, 0);
	}
	close(go[0]);
	close(go[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_owners),
		cmocka_unit_test(test_owners_own_cpu),
		cmocka_unit_test(test_ftrace_reader_tracer),
		cmocka_unit_test(test_syscall_of),
		cmocka_unit_test(test_collateral),
		cmocka_unit_test(test_audit_rules_cost),
		cmocka_unit_test(test_audit_task_never_cost),
		cmocka_unit_test(test_proc_events_table_full),
		cmocka_unit_test(test_scan_ptrace_seccomp),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
