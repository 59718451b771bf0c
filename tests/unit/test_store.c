/*
 * The results store on a database in a temporary directory: recording,
 * finding runs again, history's filters, two writers at once, migration
 * from version 1, and the databases it must refuse.
 */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include <sqlite3.h>

#include "doc/read.h"
#include "doc/write.h"
#include "fake_results.h"
#include "load/tcp.h"
#include "store/store.h"

static char dir[64], db[128];

#define assert_near(a, b, eps) do {						\
	double a_ = (a), b_ = (b);						\
	if (!(fabs(a_ - b_) <= (eps)))						\
		fail_msg("%s = %.17g, want %.17g +- %g", #a, a_, b_, (double)(eps));	\
} while (0)

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/tt-store-test.XXXXXX");
	assert_non_null(mkdtemp(dir));
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd);
}

static void fresh(const char *name)
{
	snprintf(db, sizeof(db), "%s/%s", dir, name);
}

static int64_t record(struct store *s, double shift)
{
	struct results r;
	char err[512], *doc;
	int64_t id = 0;

	fake_results(&r, 5, shift);
	doc = output_json_string(&r);
	if (store_record(s, &r, doc, "0123456789abcdef", &id, err, sizeof(err)))
		fail_msg("%s", err);
	free(doc);
	results_release(&r);
	return id;
}

/* A run of bpf:tp/count at 25 + @shift ns, on @kernel, started at @started. */
/* A run of another plan: its cell 1 is @tracer's, not bpf:tp/count's. */
static const char *plan_tracer;
/* A run in a VM of --kernel ("tcg", "kvm"), or of another tracetax version. */
static const char *plan_vm = "", *plan_version = "test";

/* An audit:rules run's rule set, given to its cell 1 (with plan_tracer "audit:rules"). */
static const struct cell_rules *plan_rules;

static void record_at(struct store *s, double shift, const char *kernel, const char *started)
{
	struct results r;
	char err[512], *doc;
	int64_t id = 0;

	fake_results(&r, 5, shift);
	if (plan_tracer)
		fake_set(r.cells[1].tracer, sizeof(r.cells[1].tracer), plan_tracer);
	if (plan_rules)
		r.cells[1].audit_rules = *plan_rules;
	fake_set(r.env.kernel, sizeof(r.env.kernel), kernel);
	fake_set(r.env.started, sizeof(r.env.started), started);
	fake_set(r.env.vm, sizeof(r.env.vm), plan_vm);
	fake_set(r.env.tracetax_version, sizeof(r.env.tracetax_version), plan_version);
	doc = output_json_string(&r);
	if (store_record(s, &r, doc, "0123456789abcdef", &id, err, sizeof(err)))
		fail_msg("%s", err);
	free(doc);
	results_release(&r);
}

struct seen { int runs, cells; int64_t ids[64]; };

static int count(const struct store_run *run, const struct store_cell *c, void *arg)
{
	struct seen *s = arg;

	if (c) {
		s->cells++;
		return 0;
	}
	s->ids[s->runs++ % 64] = run->id;
	assert_string_equal(run->kernel, "6.1.0-28-amd64");
	assert_string_equal(run->host, "box");
	assert_int_equal(run->ok, 2);
	assert_int_equal(run->skipped, 1);
	assert_int_equal(run->ntracers, 3);
	assert_string_equal(run->tracers, "none,bpf:tp/count,bpf:kprobe/count");
	return 0;
}

static struct seen history(struct store *s, struct store_filter f)
{
	struct seen seen = { 0 };
	char err[512];

	if (store_history(s, &f, count, &seen, err, sizeof(err)))
		fail_msg("%s", err);
	return seen;
}

static void test_record_and_find(void **state)
{
	char err[512], *text;
	struct store *s;
	int64_t id, a, b;
	struct doc d = { 0 };
	size_t len;

	(void)state;
	fresh("a.db");
	assert_null(store_open(db, false, err, sizeof(err)));
	assert_non_null(strstr(err, "no results store at"));
	s = store_open(db, true, err, sizeof(err));
	assert_non_null(s);
	a = record(s, 0);
	b = record(s, 5);
	assert_true(b > a);
	assert_int_equal(store_resolve(s, "last", &id, err, sizeof(err)), 0);
	assert_int_equal(id, b);
	assert_int_equal(store_resolve(s, "last~1", &id, err, sizeof(err)), 0);
	assert_int_equal(id, a);
	assert_int_equal(store_resolve(s, "last~2", &id, err, sizeof(err)), 1);
	assert_int_equal(store_resolve(s, "99", &id, err, sizeof(err)), 1);
	assert_non_null(strstr(err, "no run '99'"));
	assert_int_equal(store_resolve(s, "last~x", &id, err, sizeof(err)), 1);
	/* the document comes back whole, and reads */
	assert_int_equal(store_document(s, a, &text, &len, err, sizeof(err)), 0);
	snprintf(d.name, sizeof(d.name), "run a");
	assert_int_equal(doc_parse(&d, text, len, err, sizeof(err)), 0);
	assert_int_equal(d.r.ncells, 3);
	doc_release(&d);
	/* history, oldest first, and its filters */
	struct seen all = history(s, (struct store_filter){ .limit = 20 });
	assert_int_equal(all.runs, 2);
	assert_int_equal(all.ids[0], a);
	assert_int_equal(all.ids[1], b);
	assert_int_equal(history(s, (struct store_filter){ .limit = 1 }).ids[0], b);
	assert_int_equal(history(s, (struct store_filter){ .workload = "close" }).runs, 0);
	assert_int_equal(history(s, (struct store_filter){ .kernel = "6.1.*" }).runs, 2);
	assert_int_equal(history(s, (struct store_filter){ .kernel = "5.*" }).runs, 0);
	struct seen bpf = history(s, (struct store_filter){ .tracer = "bpf:*" });
	assert_int_equal(bpf.runs, 2);
	assert_int_equal(bpf.cells, 4);
	assert_int_equal(history(s, (struct store_filter){ .tracer = "strace" }).runs, 0);
	store_close(s);
}

/*
 * The repeat interval's drift: the earlier runs of this host, kernel and
 * version in the 14 days before, their ok cells (not the A/A cell), and
 * the run's own: bpf:tp/count at 25 now and 25, 35, 45 ns
 * before, each with the fake cell's se (reps 25 + 0, 1.5, -1, -0.5, 0:
 * sd sqrt(0.875), se^2 0.175).
 */
static void test_repeat_drift(void **state)
{
	const char *k = "6.1.0-28-amd64";
	struct results now;
	struct store *s;
	char err[512];
	double tau, want;
	int runs, cells;

	(void)state;
	fresh("drift.db");
	s = store_open(db, true, err, sizeof(err));
	assert_non_null(s);
	fake_results(&now, 5, 0);
	fake_set(now.env.started, sizeof(now.env.started), "2025-01-20T00:00:00Z");
	/* no earlier run: this one alone shows no drift */
	assert_int_equal(store_repeat_drift(s, &now, "0123456789abcdef", false, &tau, &runs, &cells,
					    err, sizeof(err)), 0);
	assert_int_equal(runs, 0);
	assert_near(tau, 0, 0);
	/* one earlier run 4 ns above this one: the second run has a drift to learn from */
	record_at(s, 4, k, "2025-01-10T00:00:00Z");
	assert_int_equal(store_repeat_drift(s, &now, "0123456789abcdef", false, &tau, &runs, &cells,
					    err, sizeof(err)), 0);
	assert_int_equal(runs, 2);
	assert_int_equal(cells, 1);
	/* means 25, 29 over 27: var 8/27^2, less se^2/27^2 */
	assert_near(tau, sqrt(8.0 / 729 - 0.175 / 729), 1e-9);
	store_close(s);
	fresh("drift2.db");
	s = store_open(db, true, err, sizeof(err));
	assert_non_null(s);
	record_at(s, 0, k, "2025-01-10T00:00:00Z");
	record_at(s, 10, k, "2025-01-12T00:00:00Z");
	record_at(s, 20, k, "2025-01-19T23:59:59Z");
	/* not comparable: another kernel, 15 days before, after it, another machine */
	record_at(s, 500, "6.12.0", "2025-01-15T00:00:00Z");
	record_at(s, 500, k, "2025-01-05T00:00:00Z");
	record_at(s, 500, k, "2025-01-21T00:00:00Z");
	/* a guest of run --kernel on this host's own kernel release: its ns are emulation's */
	plan_vm = "tcg";
	record_at(s, 500, k, "2025-01-18T00:00:00Z");
	plan_vm = "";
	assert_int_equal(store_repeat_drift(s, &now, "fedcba9876543210", false, &tau, &runs, &cells,
					    err, sizeof(err)), 0);
	assert_int_equal(runs, 0);
	assert_int_equal(store_repeat_drift(s, &now, "0123456789abcdef", false, &tau, &runs, &cells,
					    err, sizeof(err)), 0);
	assert_int_equal(runs, 4);
	assert_int_equal(cells, 1);
	/* means 25 (now), 25, 35, 45 over 32.5: var 275/3 / 32.5^2; less se^2/32.5^2 */
	want = sqrt((275.0 / 3 - 0.175) / (32.5 * 32.5));
	assert_near(tau, want, 1e-9);
	store_close(s);
	/*
	 * The host's runs of another plan show its drift too: 25, 35, 45 ns
	 * of bpf:raw_tp/count; this run's bpf:tp/count, seen once, adds no
	 * cell, and so no run: tau's df are those of the 3 runs it came from.
	 */
	fresh("drift3.db");
	s = store_open(db, true, err, sizeof(err));
	assert_non_null(s);
	plan_tracer = "bpf:raw_tp/count";
	record_at(s, 0, k, "2025-01-10T00:00:00Z");
	record_at(s, 10, k, "2025-01-12T00:00:00Z");
	record_at(s, 20, k, "2025-01-19T23:59:59Z");
	plan_tracer = NULL;
	assert_int_equal(store_repeat_drift(s, &now, "0123456789abcdef", false, &tau, &runs, &cells,
					    err, sizeof(err)), 0);
	assert_int_equal(runs, 3);
	assert_int_equal(cells, 1);
	assert_near(tau, sqrt(100.0 / 1225 - 0.175 / 1225), 1e-9);
	store_close(s);
	/*
	 * Runs of another tracetax version only: none of this version's, and
	 * the host's runs of the others when asked for (the session's second
	 * choice, marked as such).
	 */
	fresh("drift4.db");
	s = store_open(db, true, err, sizeof(err));
	assert_non_null(s);
	plan_version = "older";
	record_at(s, 0, k, "2025-01-10T00:00:00Z");
	record_at(s, 10, k, "2025-01-12T00:00:00Z");
	plan_version = "test";
	assert_int_equal(store_repeat_drift(s, &now, "0123456789abcdef", false, &tau, &runs, &cells,
					    err, sizeof(err)), 0);
	assert_int_equal(cells, 0);
	assert_int_equal(runs, 0);
	assert_int_equal(store_repeat_drift(s, &now, "0123456789abcdef", true, &tau, &runs, &cells,
					    err, sizeof(err)), 0);
	assert_int_equal(cells, 1);
	assert_int_equal(runs, 3);
	store_close(s);
	results_release(&now);
}

/*
 * Which stored cells stand for this host's cost (store/stand.c): a run in a
 * VM of --kernel has the host's hostname, and with the host's own kernel
 * release (make debian-kernel on an up-to-date Debian) its kernel too; a
 * collateral run (--target close) measured another event. Neither is
 * budget's cost of bpf:tp/count on getpid, though both are newer.
 */
/* The settings of the runs record_as() makes: the defaults unless set. */
static struct run_options as_opts;

static void record_as(struct store *s, double shift, const char *vm, const char *target,
		      const char *host)
{
	struct results r;
	char err[512], *doc;
	int64_t id = 0;

	fake_results(&r, 5, shift);
	fake_set(r.opts.tracer_cpu, sizeof(r.opts.tracer_cpu), as_opts.tracer_cpu);
	r.opts.msg_size = as_opts.msg_size;
	r.opts.latency = as_opts.latency;
	fake_set(r.env.started, sizeof(r.env.started), "2025-01-19T00:00:00Z");
	fake_set(r.env.vm, sizeof(r.env.vm), vm);
	if (*target) {
		fake_set(r.opts.target, sizeof(r.opts.target), target);
		for (int i = 1; i < r.ncells; i++)
			fake_set(r.cells[i].target, sizeof(r.cells[i].target), target);
	}
	doc = output_json_string(&r);
	if (store_record(s, &r, doc, host, &id, err, sizeof(err)))
		fail_msg("%s", err);
	free(doc);
	results_release(&r);
}

static void test_cost_stands(void **state)
{
	struct store_cost_query q = {
		.tracer = "bpf:tp/count", .workload = "getpid", .hostname = "box",
		.kernel = "6.1.0-28-amd64", .version = "test", .since = "2025-01-01T00:00:00Z",
	};
	struct store_cost c;
	struct store *s;
	char err[512];

	(void)state;
	fresh("cost.db");
	s = store_open(db, true, err, sizeof(err));
	assert_non_null(s);
	record_as(s, 0, "", "", "0123456789abcdef");         /* the host's: 25 ns, run 1 */
	record_as(s, 225, "tcg", "", NULL);                   /* imported, emulated: 250 ns */
	record_as(s, 475, "", "close", "0123456789abcdef");   /* collateral: 500 ns */
	/* made with other settings: the tracer on another CPU, --msg-size, --latency */
	snprintf(as_opts.tracer_cpu, sizeof(as_opts.tracer_cpu), "other");
	record_as(s, 475, "", "", "0123456789abcdef");        /* run 4 */
	as_opts = (struct run_options){ .msg_size = 65536 };
	record_as(s, 475, "", "", "0123456789abcdef");        /* run 5 */
	as_opts = (struct run_options){ .latency = true };
	record_as(s, 475, "", "", "0123456789abcdef");        /* run 6 */
	as_opts = (struct run_options){ 0 };
	assert_int_equal(store_find_cost(s, &q, &c, err, sizeof(err)), 0);
	assert_int_equal(c.run_id, 1);
	/* the default message size, as a run records it, is the default: that run stands */
	as_opts = (struct run_options){ .msg_size = TCP_MSG_DEFAULT };
	record_as(s, 0, "", "", "0123456789abcdef");          /* run 7 */
	as_opts = (struct run_options){ 0 };
	assert_int_equal(store_find_cost(s, &q, &c, err, sizeof(err)), 0);
	assert_int_equal(c.run_id, 7);
	assert_true(c.ns > 20 && c.ns < 30);
	/* a store of version 4 has its runs' settings filled from their documents */
	store_close(s);
	{
		sqlite3 *h;

		assert_int_equal(sqlite3_open(db, &h), SQLITE_OK);
		assert_int_equal(sqlite3_exec(h, "DELETE FROM environment WHERE name IN "
					      "('tracer_cpu', 'msg_size', 'latency'); "
					      "PRAGMA user_version = 4", NULL, NULL, NULL), SQLITE_OK);
		sqlite3_close(h);
	}
	s = store_open(db, false, err, sizeof(err));
	assert_non_null(s);
	assert_int_equal(store_find_cost(s, &q, &c, err, sizeof(err)), 0);
	assert_int_equal(c.run_id, 7);
	/* asked for that target, the collateral run is the one */
	q.target = "close";
	assert_int_equal(store_find_cost(s, &q, &c, err, sizeof(err)), 0);
	assert_int_equal(c.run_id, 3);
	/* another machine of the same hostname: none */
	q.target = NULL;
	q.host_id = "fedcba9876543210";
	assert_int_equal(store_find_cost(s, &q, &c, err, sizeof(err)), 1);
	store_close(s);
}

/* Two processes recording at once: both succeed, nothing is lost. */
static void test_two_writers(void **state)
{
	char err[512];
	struct store *s;
	pid_t pid[2];

	(void)state;
	fresh("w.db");
	s = store_open(db, true, err, sizeof(err));
	assert_non_null(s);
	store_close(s);
	for (int k = 0; k < 2; k++) {
		pid[k] = fork();
		assert_true(pid[k] >= 0);
		if (pid[k] == 0) {
			struct store *mine = store_open(db, true, err, sizeof(err));
			int bad = !mine;

			for (int i = 0; i < 15 && !bad; i++) {
				struct results r;
				char *doc;
				int64_t id;

				fake_results(&r, 5, i);
				doc = output_json_string(&r);
				bad = store_record(mine, &r, doc, NULL, &id, err, sizeof(err));
				if (bad)
					fprintf(stderr, "writer %d: %s\n", k, err);
				free(doc);
				results_release(&r);
			}
			store_close(mine);
			_exit(bad);
		}
	}
	for (int k = 0; k < 2; k++) {
		int st;

		assert_int_equal(waitpid(pid[k], &st, 0), pid[k]);
		assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	s = store_open(db, true, err, sizeof(err));
	assert_int_equal(history(s, (struct store_filter){ .limit = 100 }).runs, 30);
	store_close(s);
}

static void sql(const char *path, const char *text)
{
	sqlite3 *h;

	assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);
	if (sqlite3_exec(h, text, NULL, NULL, NULL) != SQLITE_OK)
		fail_msg("%s", sqlite3_errmsg(h));
	sqlite3_close(h);
}

static const struct cell_rules rules_a = { "a.rules", "00000000000000aa", 2 },
	rules_b = { "b.rules", "00000000000000bb", 50 };

/* store_find_cost's pick for audit:rules with @digest: the run, and whether its set matched. */
static void pick(struct store *s, const char *digest, int64_t run, bool match, const char *file)
{
	struct store_cost_query q = {
		.tracer = "audit:rules", .workload = "getpid", .hostname = "box",
		.kernel = "6.1.0-28-amd64", .version = "test", .since = "2025-01-01T00:00:00Z",
		.rules_digest = digest,
	};
	struct store_cost c;
	char err[512];

	assert_int_equal(store_find_cost(s, &q, &c, err, sizeof(err)), 0);
	assert_int_equal(c.run_id, run);
	assert_int_equal(c.rules_match, match);
	assert_string_equal(c.rules.file, file);
}

/*
 * The walk of audit:rules depends on the rule set: the store keeps each
 * cell's, and a cost asked for one set is that set's newest, else the
 * newest of another set, said (rules_match false).
 */
static void test_rules_pick(void **state)
{
	struct store *s;
	char err[512], *text;
	size_t len;
	struct doc d = { 0 };

	(void)state;
	fresh("rules.db");
	s = store_open(db, true, err, sizeof(err));
	assert_non_null(s);
	plan_tracer = "audit:rules";
	plan_rules = &rules_a;
	record_at(s, 0, "6.1.0-28-amd64", "2025-01-10T00:00:00Z");      /* run 1: a's walk */
	plan_rules = &rules_b;
	record_at(s, 500, "6.1.0-28-amd64", "2025-01-11T00:00:00Z");    /* run 2: b's, newer */
	plan_rules = NULL;
	record_at(s, 900, "6.1.0-28-amd64", "2025-01-12T00:00:00Z");    /* run 3: not recorded */
	plan_tracer = NULL;
	pick(s, rules_a.digest, 1, true, "a.rules");
	pick(s, rules_b.digest, 2, true, "b.rules");
	/* none of this set: the newest of any, and not a match */
	pick(s, "00000000000000cc", 3, false, "");
	pick(s, NULL, 3, false, "");
	/* the document keeps it: read back, the same */
	assert_int_equal(store_document(s, 1, &text, &len, err, sizeof(err)), 0);
	assert_int_equal(doc_parse(&d, text, len, err, sizeof(err)), 0);
	assert_string_equal(d.r.cells[1].audit_rules.file, "a.rules");
	assert_string_equal(d.r.cells[1].audit_rules.digest, rules_a.digest);
	assert_int_equal(d.r.cells[1].audit_rules.rules, 2);
	assert_string_equal(d.r.cells[0].audit_rules.file, "");
	doc_release(&d);
	store_close(s);
	/* a version 3 store (no such columns) gets them, filled from its documents */
	sql(db, "ALTER TABLE cells DROP COLUMN audit_rules_file; "
		"ALTER TABLE cells DROP COLUMN audit_rules_digest; "
		"ALTER TABLE cells DROP COLUMN audit_rules_n; PRAGMA user_version = 3;");
	s = store_open(db, false, err, sizeof(err));
	if (!s)
		fail_msg("%s", err);
	pick(s, rules_a.digest, 1, true, "a.rules");
	pick(s, rules_b.digest, 2, true, "b.rules");
	store_close(s);
}

/*
 * The repeat interval's drift learns from reruns of a cell: an audit:rules
 * cell of another rule set is not one (its walk is another cost, 20x here).
 */
static void test_rules_drift(void **state)
{
	const char *k = "6.1.0-28-amd64";
	struct results now;
	struct store *s;
	char err[512];
	double tau;
	int runs, cells;

	(void)state;
	fresh("rules-drift.db");
	s = store_open(db, true, err, sizeof(err));
	assert_non_null(s);
	plan_tracer = "audit:rules";
	plan_rules = &rules_a;
	record_at(s, 4, k, "2025-01-10T00:00:00Z");
	plan_rules = &rules_b;
	record_at(s, 500, k, "2025-01-12T00:00:00Z");
	plan_rules = NULL;
	plan_tracer = NULL;
	fake_results(&now, 5, 0);
	fake_set(now.env.started, sizeof(now.env.started), "2025-01-20T00:00:00Z");
	fake_set(now.cells[1].tracer, sizeof(now.cells[1].tracer), "audit:rules");
	now.cells[1].audit_rules = rules_a;
	assert_int_equal(store_repeat_drift(s, &now, "0123456789abcdef", false, &tau, &runs, &cells,
					    err, sizeof(err)), 0);
	/* set a's run and this one: means 25, 29 over 27, as test_repeat_drift's */
	assert_int_equal(runs, 2);
	assert_int_equal(cells, 1);
	assert_near(tau, sqrt(8.0 / 729 - 0.175 / 729), 1e-9);
	results_release(&now);
	store_close(s);
}

/* Version 1 held the documents alone: opening it builds the tables from them. */
static void test_migrate_1_2(void **state)
{
	struct results r;
	char err[512], *doc, *ins;
	struct store *s;
	sqlite3 *h;
	sqlite3_stmt *st;

	(void)state;
	fresh("v1.db");
	fake_results(&r, 5, 0);
	doc = output_json_string(&r);
	sql(db, "CREATE TABLE runs (id INTEGER PRIMARY KEY, recorded TEXT NOT NULL, document TEXT NOT NULL);"
		"PRAGMA user_version = 1;");
	assert_int_equal(sqlite3_open(db, &h), SQLITE_OK);
	ins = "INSERT INTO runs (recorded, document) VALUES ('2025-01-02T03:04:05Z', ?)";
	assert_int_equal(sqlite3_prepare_v2(h, ins, -1, &st, NULL), SQLITE_OK);
	sqlite3_bind_text(st, 1, doc, -1, SQLITE_STATIC);
	assert_int_equal(sqlite3_step(st), SQLITE_DONE);
	sqlite3_reset(st);
	assert_int_equal(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);
	sqlite3_close(h);
	s = store_open(db, false, err, sizeof(err));
	if (!s)
		fail_msg("%s", err);
	struct seen seen = history(s, (struct store_filter){ .tracer = "*" });
	assert_int_equal(seen.runs, 2);
	assert_int_equal(seen.cells, 6);
	store_close(s);
	assert_int_equal(sqlite3_open(db, &h), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(h, "PRAGMA user_version", -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int(st, 0), STORE_SCHEMA);
	sqlite3_finalize(st);
	sqlite3_close(h);
	free(doc);
	results_release(&r);
}

static void test_refused(void **state)
{
	char err[512];
	int fd;

	(void)state;
	/* a newer tracetax's store */
	fresh("new.db");
	sql(db, "CREATE TABLE runs (id INTEGER PRIMARY KEY); PRAGMA user_version = 6;");
	assert_null(store_open(db, true, err, sizeof(err)));
	assert_non_null(strstr(err, "has schema version 6, newer than this tracetax's 5"));
	/* somebody else's database */
	fresh("other.db");
	sql(db, "CREATE TABLE songs (title TEXT);");
	assert_null(store_open(db, true, err, sizeof(err)));
	assert_non_null(strstr(err, "is not a tracetax results store"));
	/* not a database at all: one line, and the file as it was */
	fresh("junk.db");
	fd = open(db, O_WRONLY | O_CREAT, 0644);
	assert_int_equal(write(fd, "this is no database, just some text of 64 bytes or so......\n", 61), 61);
	close(fd);
	assert_null(store_open(db, true, err, sizeof(err)));
	assert_non_null(strstr(err, "file is not a database"));
	assert_null(strchr(err, '\n'));
	fd = open(db, O_RDONLY);
	assert_int_equal(read(fd, err, sizeof(err)), 61);
	close(fd);
	assert_memory_equal(err, "this is no database", 19);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_record_and_find),
		cmocka_unit_test(test_two_writers),
		cmocka_unit_test(test_repeat_drift),
		cmocka_unit_test(test_cost_stands),
		cmocka_unit_test(test_rules_pick),
		cmocka_unit_test(test_rules_drift),
		cmocka_unit_test(test_migrate_1_2),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
