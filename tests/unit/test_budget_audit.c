/*
 * budget -t audit:rules' arithmetic (results/budget.c) and the rule
 * summaries it stands on (audit/audit_sum.c): which calls a rule set
 * records at each bound, and what the calls cost, against figures worked
 * out by hand. Rule files are parsed by libaudit: nothing is loaded.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <libaudit.h>

#include "audit/audit_nl.h"
#include "audit/audit_sum.h"
#include "results/budget.h"

#define EPS 1e-6
/* x86-64's numbers */
#define NR_CLOSE 3
#define NR_GETPID 39
#define NR_GETUID 102
#define NR_UNLINK 87
#define NR_OPENAT 257

static struct audit_rule_sum rule(int nr, bool never)
{
	struct audit_rule_sum s = { .exit = true, .native = true, .never = never };

	s.mask[nr / 32] |= 1u << (nr % 32);
	return s;
}

static void add_auid_filters(struct audit_rule_sum *s)	/* auid>=1000 auid!=unset (STIG's) */
{
	s->auid[s->nauid++] = (struct audit_sum_auid){ .op = AUDIT_GREATER_THAN_OR_EQUAL, .val = 1000 };
	s->auid[s->nauid++] = (struct audit_sum_auid){ .op = AUDIT_NOT_EQUAL, .val = AUDIT_AUID_UNSET };
}

/* The odds of one rule: no filter is certain; an auid filter decided; the rest undecided. */
static void test_odds(void **state)
{
	struct audit_rule_sum r = rule(NR_UNLINK, false);

	(void)state;
	assert_int_equal(audit_sum_odds(&r, NR_GETPID, 0, true), ODDS_NA);
	assert_int_equal(audit_sum_odds(&r, NR_UNLINK, 0, true), ODDS_CERTAIN);
	add_auid_filters(&r);
	/* unset is 4294967295: >= 1000, so STIG's auid!=unset is what excludes it */
	assert_int_equal(audit_sum_odds(&r, NR_UNLINK, AUDIT_AUID_UNSET, true), ODDS_NO);
	assert_int_equal(audit_sum_odds(&r, NR_UNLINK, 999, true), ODDS_NO);
	assert_int_equal(audit_sum_odds(&r, NR_UNLINK, 1000, true), ODDS_CERTAIN);
	assert_int_equal(audit_sum_odds(&r, NR_UNLINK, 0, false), ODDS_POSSIBLE);
	r.likely = 1;
	assert_int_equal(audit_sum_odds(&r, NR_UNLINK, 1000, true), ODDS_LIKELY);
	r.unlikely = 1;
	assert_int_equal(audit_sum_odds(&r, NR_UNLINK, 1000, true), ODDS_POSSIBLE);
	r.native = false;	/* a b32 rule on the same number records none of ours */
	assert_int_equal(audit_sum_odds(&r, NR_UNLINK, 1000, true), ODDS_NA);
}

/* The walk in order: the first rule that fires decides; a never rule stops it with no record. */
static void test_records_order(void **state)
{
	struct audit_rule_sum rs[3];
	bool rec[AUDIT_LEVELS];

	(void)state;
	rs[0] = rule(NR_OPENAT, true);	/* -a never,exit -S openat -F exit=-ENOENT */
	rs[0].unlikely = 1;
	rs[1] = rule(NR_OPENAT, false);	/* -a always,exit -S openat -F success=1 */
	rs[1].likely = 1;
	rs[2] = rule(NR_OPENAT, false);	/* -a always,exit -S openat -F exit=-EACCES */
	rs[2].unlikely = 1;
	audit_sum_records(rs, 3, NR_OPENAT, 0, true, rec);
	/* lower: the never rule may fire, so no record; point: it does not, success=1 does;
	 * upper: the never rule only when certain, so the always rule records */
	assert_false(rec[AUDIT_LOWER]);
	assert_true(rec[AUDIT_POINT]);
	assert_true(rec[AUDIT_UPPER]);
	audit_sum_records(rs + 2, 1, NR_OPENAT, 0, true, rec);
	assert_false(rec[AUDIT_LOWER]);
	assert_false(rec[AUDIT_POINT]);
	assert_true(rec[AUDIT_UPPER]);
	rs[0].unlikely = 0;	/* a never rule with no filter: nothing after it records */
	audit_sum_records(rs, 3, NR_OPENAT, 0, true, rec);
	assert_false(rec[AUDIT_LOWER] || rec[AUDIT_POINT] || rec[AUDIT_UPPER]);
}

/*
 * Calls by auid and syscall, costs 100 ns [90, 110] a walk, 10000 ns
 * [8000, 12000] a record. Rules: getuid always (no filter), unlink with
 * STIG's auid filters, openat with exit=-EACCES.
 */
static void test_estimate(void **state)
{
	struct budget_audit a = { 0 };
	struct audit_rule_sum rs[3];
	struct budget_auid_nr c[] = {
		{ .auid = AUDIT_AUID_UNSET, .known = true, .nr = NR_GETPID, .events = 1000 },
		{ .auid = AUDIT_AUID_UNSET, .known = true, .nr = NR_GETUID, .events = 10 },
		{ .auid = AUDIT_AUID_UNSET, .known = true, .nr = NR_UNLINK, .events = 20 },
		{ .auid = 1000, .known = true, .nr = NR_UNLINK, .events = 5 },
		{ .auid = 1000, .known = true, .nr = NR_OPENAT, .events = 40 },
		{ .auid = 1000, .known = true, .nr = NR_CLOSE, .events = 25 },
	};
	struct budget_audit_est e;

	(void)state;
	rs[0] = rule(NR_GETUID, false);
	rs[1] = rule(NR_UNLINK, false);
	add_auid_filters(&rs[1]);
	rs[2] = rule(NR_OPENAT, false);
	rs[2].unlikely = 1;
	a.rules = rs;
	a.nrules = 3;
	a.walk = (struct budget_audit_cost){ .source = "measured", .ns = 100, .lo = 90, .hi = 110 };
	a.record = (struct budget_audit_cost){ .source = "measured", .ns = 10000, .lo = 8000,
					       .hi = 12000 };
	budget_audit_estimate(&a, c, 6, 0, NULL, &e, true);
	assert_int_equal(e.events, 1100);
	assert_int_equal(e.named, 10 + 20 + 5 + 40);
	assert_int_equal(e.excluded, 20);	/* root's unlinks: auid unset */
	assert_int_equal(e.records[AUDIT_LOWER], 10 + 5);
	assert_int_equal(e.records[AUDIT_POINT], 10 + 5);
	assert_int_equal(e.records[AUDIT_UPPER], 10 + 5 + 40);
	assert_true(fabs(e.ns[AUDIT_LOWER] - (1085 * 100.0 + 15 * 10000.0)) < EPS);
	assert_true(fabs(e.lo[AUDIT_LOWER] - (1085 * 90.0 + 15 * 8000.0)) < EPS);
	assert_true(fabs(e.hi[AUDIT_UPPER] - (1045 * 110.0 + 55 * 12000.0)) < EPS);
	assert_true(e.ns[AUDIT_LOWER] <= e.ns[AUDIT_POINT] && e.ns[AUDIT_POINT] <= e.ns[AUDIT_UPPER]);
	assert_int_equal(a.nauids, 2);
	assert_int_equal(a.auids[0].auid, AUDIT_AUID_UNSET);
	assert_int_equal(a.auids[0].records[AUDIT_UPPER], 10);
	assert_int_equal(a.auids[1].records[AUDIT_UPPER], 45);
	/* records at another cost (budget --attached with no auditd: the walk's), a's own untouched */
	budget_audit_estimate(&a, c, 6, 0, &a.walk, &e, false);
	assert_int_equal(e.records[AUDIT_UPPER], 10 + 5 + 40);
	assert_true(fabs(e.ns[AUDIT_LOWER] - 1100 * 100.0) < EPS);
	assert_true(fabs(e.lo[AUDIT_POINT] - 1100 * 90.0) < EPS);
	assert_true(fabs(e.hi[AUDIT_UPPER] - 1100 * 110.0) < EPS);
	assert_true(a.record.ns == 10000 && !strcmp(a.record.source, "measured"));
	/* no record's cost: the estimates that have records are unknown, not walk-priced */
	a.record.source[0] = '\0';
	budget_audit_estimate(&a, c, 6, 0, NULL, &e, false);
	assert_true(isnan(e.ns[AUDIT_POINT]));
	c[1].events = 0;
	c[3].events = 0;
	budget_audit_estimate(&a, c, 6, 0, NULL, &e, false);
	assert_true(fabs(e.ns[AUDIT_LOWER] - 1085 * 100.0) < EPS);
	/* a call that looks a path up (openat, unlink) walks at walk_path's cost when measured */
	audit_path_syscalls(a.path_mask);
	budget_audit_estimate(&a, c, 6, 0, NULL, &e, false);
	assert_int_equal(e.path, 40 + 20);
	assert_true(fabs(e.ns[AUDIT_LOWER] - 1085 * 100.0) < EPS);	/* not measured: the walk's */
	a.walk_path = (struct budget_audit_cost){ .source = "measured", .ns = 1000, .lo = 900,
						  .hi = 1100 };
	budget_audit_estimate(&a, c, 6, 0, NULL, &e, false);
	assert_true(fabs(e.ns[AUDIT_LOWER] - (1025 * 100.0 + 60 * 1000.0)) < EPS);
	assert_true(fabs(e.hi[AUDIT_LOWER] - (1025 * 110.0 + 60 * 1100.0)) < EPS);
	/* a record of a call that looks a path up (the unlinks and openats recorded) at
	 * record_path's cost when measured; the others at the record's */
	c[1].events = 10;
	c[3].events = 5;
	a.record = (struct budget_audit_cost){ .source = "measured", .ns = 10000, .lo = 8000,
					       .hi = 12000 };
	budget_audit_estimate(&a, c, 6, 0, NULL, &e, false);
	assert_true(fabs(e.ns[AUDIT_LOWER] - (1025 * 100.0 + 60 * 1000.0 + 15 * 10000.0)) < EPS);
	a.record_path = (struct budget_audit_cost){ .source = "measured", .ns = 30000, .lo = 25000,
						    .hi = 35000 };
	budget_audit_estimate(&a, c, 6, 0, NULL, &e, false);
	assert_int_equal(e.records_path[AUDIT_LOWER], 5);
	assert_int_equal(e.records_path[AUDIT_UPPER], 5 + 40);
	assert_true(fabs(e.ns[AUDIT_LOWER] - (1025 * 100.0 + 60 * 1000.0 + 10 * 10000.0 +
					      5 * 30000.0)) < EPS);
	assert_true(fabs(e.hi[AUDIT_UPPER] - (1025 * 110.0 + 20 * 1100.0 + 10 * 12000.0 +
					      45 * 35000.0)) < EPS);
	/* records priced at another cost (@record): every one of them, path or not */
	budget_audit_estimate(&a, c, 6, 0, &a.walk, &e, false);
	assert_true(fabs(e.ns[AUDIT_LOWER] - (1025 * 100.0 + 60 * 1000.0 + 15 * 100.0)) < EPS);
}

/* A rule file through libaudit's builders: each rule's summary and the named sets. */
static void test_parse_summaries(void **state)
{
	char path[] = "/tmp/tt-audit-sum-XXXXXX", err[512];
	const char *text =
		"-D\n"
		"-a always,exit -F arch=b64 -S getuid -k a\n"
		"-a always,exit -F arch=b32 -S getuid -k b\n"
		"-a always,exit -F arch=b64 -S unlink,rename -F auid>=1000 -F auid!=unset -k c\n"
		"-a always,exit -F arch=b64 -S openat -F exit=-EACCES -k d\n"
		"-a always,exit -F arch=b64 -S chmod -F success=1 -k e\n"
		"-w /etc/passwd -p wa -k f\n";
	struct audit_ruleset rs;
	struct budget_audit a = { 0 };
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (int)strlen(text));
	close(fd);
	assert_int_equal(audit_rules_parse(path, "tracetax-test", &rs, err, sizeof(err)), 0);
	unlink(path);
	assert_int_equal(rs.n, 6);
	assert_int_equal(rs.dropped, 1);
	assert_true(rs.sum[0].native && rs.sum[0].exit && !rs.sum[0].nauid && !rs.sum[0].unlikely);
	assert_false(rs.sum[1].native);
	assert_int_equal(rs.sum[2].nauid, 2);
	assert_int_equal(rs.sum[2].auid[1].val, AUDIT_AUID_UNSET);
	assert_int_equal(rs.sum[3].unlikely, 1);
	assert_int_equal(rs.sum[4].likely, 1);
	assert_true(rs.sum[5].fs && rs.sum[5].all);
	/* -p wa: the write and attribute classes and open's: not getpid, not read */
	assert_true(audit_sum_names(&rs.sum[5], NR_OPENAT));
	assert_true(audit_sum_names(&rs.sum[5], NR_UNLINK));
	assert_false(audit_sum_names(&rs.sum[5], NR_GETPID));
	assert_false(audit_sum_names(&rs.sum[5], 0 /* read */));
	a.rules = rs.sum;
	a.nrules = rs.n;
	budget_audit_sets(&a);
	assert_int_equal(a.nsyscalls, 5);	/* rename unlink chmod getuid openat, sorted */
	assert_int_equal(a.syscalls[0], 82 /* rename */);
	assert_int_equal(a.syscalls[1], NR_UNLINK);
	assert_int_equal(a.syscalls[2], 90 /* chmod */);
	assert_int_equal(a.syscalls[3], NR_GETUID);
	assert_int_equal(a.syscalls[4], NR_OPENAT);
	assert_int_equal(a.exit_rules, 6);
	assert_int_equal(a.fs_rules, 1);
	assert_int_equal(a.other_arch, 1);
	assert_false(a.all_syscalls);
	free(a.syscalls);
	free(a.fs_syscalls);
	audit_rules_free(&rs);
}

/* @text's rule set's digest, parsed as audit:rules parses its file, into @out. */
static void digest_of(const char *text, const char *key, char out[AUDIT_DIGEST_LEN])
{
	char path[] = "/tmp/tt-audit-digest-XXXXXX", err[512];
	struct audit_ruleset rs;
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (int)strlen(text));
	close(fd);
	if (audit_rules_parse(path, key, &rs, err, sizeof(err)))
		fail_msg("%s", err);
	unlink(path);
	assert_int_equal(strlen(rs.digest), AUDIT_DIGEST_LEN - 1);
	snprintf(out, AUDIT_DIGEST_LEN, "%s", rs.digest);
	audit_rules_free(&rs);
}

/*
 * A rule set's digest is of its rules as the kernel walks them: comments,
 * blank lines, spacing, control lines and keys do not change it; another
 * rule, another field value, another order within a list do.
 */
static void test_digest(void **state)
{
	const char *base = "-a always,exit -F arch=b64 -S getuid -k a\n"
			   "-a always,exit -F arch=b64 -S unlink -F auid>=1000 -k b\n"
			   "-w /etc/passwd -p wa -k c\n";
	char d0[AUDIT_DIGEST_LEN], d[AUDIT_DIGEST_LEN];

	(void)state;
	digest_of(base, "tracetax-1", d0);
	digest_of("# audit.rules\n-D\n-b 8192\n\n"
		  "-a   always,exit   -F arch=b64 -S getuid   -k other  # a comment\n"
		  "-a always,exit -F arch=b64 -S unlink -F auid>=1000 -F key=x\n"
		  "\t-w /etc/passwd -p wa\n", "tracetax-2", d);
	assert_string_equal(d, d0);
	/* a field's value, the order within the exit list: another set */
	digest_of("-a always,exit -F arch=b64 -S getuid -k a\n"
		  "-a always,exit -F arch=b64 -S unlink -F auid>=1001 -k b\n"
		  "-w /etc/passwd -p wa -k c\n", "tracetax-1", d);
	assert_string_not_equal(d, d0);
	digest_of("-a always,exit -F arch=b64 -S unlink -F auid>=1000 -k b\n"
		  "-a always,exit -F arch=b64 -S getuid -k a\n"
		  "-w /etc/passwd -p wa -k c\n", "tracetax-1", d);
	assert_string_not_equal(d, d0);
	/*
	 * -A puts a rule first in its list, as the kernel walks it: a file that
	 * prepends getuid's rule is the set whose list has it first
	 */
	digest_of("-a always,exit -F arch=b64 -S unlink -F auid>=1000 -k b\n"
		  "-w /etc/passwd -p wa -k c\n"
		  "-A always,exit -F arch=b64 -S getuid -k a\n", "tracetax-1", d);
	assert_string_equal(d, d0);
}

/* The budget walks the rules as the kernel does: -A ones first, the last of them first. */
static void test_prepend_order(void **state)
{
	char path[] = "/tmp/tt-audit-prepend-XXXXXX", err[512];
	struct audit_ruleset rs;
	int fd = mkstemp(path);
	static const char text[] = "-a always,exit -F arch=b64 -S unlink\n"
				   "-A never,exit -F arch=b64 -S getuid\n"
				   "-A always,exit -F arch=b64 -S close\n";

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, sizeof(text) - 1), (ssize_t)sizeof(text) - 1);
	close(fd);
	if (audit_rules_parse(path, "tracetax-1", &rs, err, sizeof(err)))
		fail_msg("%s", err);
	unlink(path);
	assert_int_equal(rs.n, 3);
	assert_int_equal(rs.sum[0].line, 3);
	assert_int_equal(rs.sum[1].line, 2);
	assert_true(rs.sum[1].never);
	assert_int_equal(rs.sum[2].line, 1);
	/* loaded in the file's order, each -A with its flag: the kernel puts it first */
	assert_int_equal(rs.line[0], 1);
	assert_true(rs.rules[1]->flags & AUDIT_FILTER_PREPEND);
	assert_false(rs.rules[0]->flags & AUDIT_FILTER_PREPEND);
	audit_rules_free(&rs);
}

/*
 * The box's `-a never,task` (tracetax's advice): a task forked since it was
 * loaded has no audit context, and its calls walk nothing. Only the
 * unkeyed rule with no field is it. Loaded now (budget --attached), the
 * calls the counter saw from tasks with no context cost nothing; a file
 * to be loaded (budget -t audit:rules) is priced on every call, as before.
 */
static void test_task_never(void **state)
{
	struct audit_rule_data *r = calloc(1, sizeof(*r) + 16);
	struct audit_rule_sum rs[2];
	struct budget_audit a = { 0 };
	struct budget_auid_nr c[] = {
		{ .auid = 1000, .known = true, .nr = NR_GETUID, .events = 10 },
		{ .auid = 1000, .known = true, .nr = NR_GETPID, .events = 90 },
		/* the same calls of tasks forked since the rule: no context */
		{ .auid = 1000, .known = true, .no_ctx = true, .nr = NR_GETUID, .events = 1000 },
		{ .auid = 1000, .known = true, .no_ctx = true, .nr = NR_GETPID, .events = 9000 },
	};
	struct budget_audit_est e;

	(void)state;
	assert_non_null(r);
	r->flags = AUDIT_FILTER_TASK | AUDIT_FILTER_PREPEND;
	r->action = AUDIT_NEVER;
	assert_true(audit_rule_task_never(r));
	assert_int_equal(audit_rule_summarise(r, 1, audit_detect_machine(), &rs[0]), 0);
	assert_true(rs[0].task_never && rs[0].never && !rs[0].exit);
	/* an always task rule, or a never one with a field (-F pid=0, -k KEY), is another */
	r->action = AUDIT_ALWAYS;
	assert_false(audit_rule_task_never(r));
	r->action = AUDIT_NEVER;
	r->field_count = 1;
	r->fields[0] = AUDIT_PID;
	assert_false(audit_rule_task_never(r));
	r->field_count = 0;
	r->flags = AUDIT_FILTER_EXIT;
	assert_false(audit_rule_task_never(r));
	free(r);
	rs[1] = rule(NR_GETUID, false);
	a.rules = rs;
	a.nrules = 2;
	budget_audit_sets(&a);
	assert_true(a.task_never);
	a.walk = (struct budget_audit_cost){ .source = "store", .ns = 100, .lo = 90, .hi = 110 };
	a.record = (struct budget_audit_cost){ .source = "store", .ns = 10000, .lo = 8000,
					       .hi = 12000 };
	/* a file to be loaded: every call walks, every getuid records */
	budget_audit_estimate(&a, c, 4, 0, NULL, &e, false);
	assert_int_equal(e.no_ctx, 0);
	assert_int_equal(e.records[AUDIT_POINT], 1010);
	assert_true(fabs(e.ns[AUDIT_POINT] - (9090 * 100.0 + 1010 * 10000.0)) < EPS);
	/* loaded now: the 10000 calls of tasks with no context cost nothing */
	a.live = true;
	budget_audit_estimate(&a, c, 4, 0, NULL, &e, true);
	assert_int_equal(e.events, 10100);
	assert_int_equal(e.no_ctx, 10000);
	assert_int_equal(e.named, 10);
	assert_int_equal(e.records[AUDIT_LOWER], 10);
	assert_int_equal(e.records[AUDIT_UPPER], 10);
	assert_true(fabs(e.ns[AUDIT_POINT] - (90 * 100.0 + 10 * 10000.0)) < EPS);
	assert_true(fabs(e.lo[AUDIT_LOWER] - (90 * 90.0 + 10 * 8000.0)) < EPS);
	assert_true(fabs(e.hi[AUDIT_UPPER] - (90 * 110.0 + 10 * 12000.0)) < EPS);
	assert_int_equal(a.nauids, 1);
	assert_int_equal(a.auids[0].events, 10100);
	/* every call of a task with no context: 0, with no cost stored at all */
	c[0].events = c[1].events = 0;
	a.walk = a.record = (struct budget_audit_cost){ .ns = NAN, .lo = NAN, .hi = NAN };
	budget_audit_estimate(&a, c, 4, 0, NULL, &e, false);
	for (int l = 0; l < AUDIT_LEVELS; l++)
		assert_true(e.ns[l] == 0 && e.lo[l] == 0 && e.hi[l] == 0);
	/* calls of no known context (the table was full) still walk: no cost, none known */
	budget_audit_estimate(&a, c, 4, 5, NULL, &e, false);
	assert_true(isnan(e.ns[AUDIT_POINT]));
	free(a.syscalls);
	free(a.fs_syscalls);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_odds),
		cmocka_unit_test(test_records_order),
		cmocka_unit_test(test_estimate),
		cmocka_unit_test(test_parse_summaries),
		cmocka_unit_test(test_digest),
		cmocka_unit_test(test_prepend_order),
		cmocka_unit_test(test_task_never),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
