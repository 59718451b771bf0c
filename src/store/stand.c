/*
 * Which stored cells stand for a host's cost (stand.h): the rule, once.
 * The tables say what the SQL can (status, disturbed, the environment's
 * host, kernel, vm, version and start); whether a cell's target is its
 * workload's own event takes the workload registry, so that part is C.
 */
#include <stdio.h>
#include <string.h>

#include "load/tcp.h"
#include "load/workloads.h"
#include "measure/plan.h"
#include "store/rows.h"
#include "store/stand.h"
#include "store/store.h"


/* Both engines (db.h): CAST(?N AS TEXT) IS NULL for an optional filter, GLOB. */
static const char stand_sql[] =
	"SELECT r.id, c.idx, " STORE_ENV("started") ", " STORE_ENV("hostname") ", r.host_id, " STORE_ENV("kernel") ", "
	/* a guest under qemu's -icount counts instructions: keyed apart, "tcg icount" */
	"COALESCE(" STORE_ENV("vm") ", '') || CASE WHEN COALESCE(" STORE_ENV("unit") ", '') = "
	"'instructions' THEN ' icount' ELSE '' END, " STORE_ENV("tracetax_version") ", c.tracer, c.workload, c.threads, c.target, c.reps, "
	"c.events, c.overhead_ns, c.overhead_lo, c.overhead_hi, c.consumer_ns, "
	"c.audit_rules_file, c.audit_rules_digest, c.audit_rules_n "
	"FROM cells c JOIN runs r ON r.id = c.run_id WHERE "
	/* measured, undisturbed, with an interval */
	"c.status = 'ok' AND c.disturbed = 0 AND c.overhead_lo IS NOT NULL AND "
	/* not in a VM of --kernel, unless the caller keys guests apart */
	"(CAST(?1 AS TEXT) IS NOT NULL OR COALESCE(" STORE_ENV("vm") ", '') = '') AND "
	/* and never in instructions (qemu's -icount), unless keyed apart as above */
	"(CAST(?1 AS TEXT) IS NOT NULL OR COALESCE(" STORE_ENV("unit") ", '') IN ('', 'ns')) AND "
	/* whose: this hostname (and machine, where both know it) and kernel */
	"(CAST(?2 AS TEXT) IS NULL OR " STORE_ENV("hostname") " = ?2) AND "
	"(CAST(?3 AS TEXT) IS NULL OR " STORE_ENV("kernel") " = ?3) AND "
	"(CAST(?4 AS TEXT) IS NULL OR r.host_id IS NULL OR r.host_id = ?4) AND "
	"(CAST(?5 AS TEXT) IS NULL OR " STORE_ENV("tracetax_version") " = ?5) AND "
	"(CAST(?6 AS TEXT) IS NULL OR " STORE_ENV("started") " >= ?6) AND "
	"(CAST(?7 AS TEXT) IS NULL OR " STORE_ENV("started") " < ?7) AND "
	"(CAST(?8 AS TEXT) IS NULL OR c.tracer = ?8) AND "
	"(CAST(?9 AS TEXT) IS NULL OR c.tracer GLOB ?9) AND "
	"(CAST(?10 AS TEXT) IS NULL OR c.workload = ?10) AND "
	"c.threads = COALESCE(?11, c.threads) AND "
	"(CAST(?12 AS TEXT) IS NULL OR " STORE_ENV("kernel") " GLOB ?12) AND "
	/* made with the settings asked (the defaults: this host's cost); before 5, the defaults */
	"COALESCE(" STORE_ENV("tracer_cpu") ", 'same') = ?13 AND "
	"COALESCE(" STORE_ENV("msg_size") ", '') = ?14 AND "
	"COALESCE(" STORE_ENV("latency") ", '0') = ?15 "
	"ORDER BY r.id DESC, c.idx";

/*
 * Whether a cell that hooked @target measured what @q asks: its workload's
 * own event (plan_target with no --target; "" in older documents), or the
 * target asked for. A workload this tracetax does not know: only when its
 * target is asked for by name.
 */
static bool target_stands(const struct stand_query *q, const char *workload, const char *target)
{
	static const struct measure_opts own = { 0 };

	if (q->any_target)
		return true;
	if (q->target)
		return !strcmp(target, q->target);
	return workload_find(workload) && (!*target || !strcmp(target, plan_target(&own, workload)));
}

static void col(struct db_stmt *st, int i, char *dst, size_t len)
{
	const char *t = db_col_text(st, i);

	snprintf(dst, len, "%s", t ? t : "");
}

static void read_row(struct db_stmt *st, struct stand_cell *c)
{
	c->run_id = db_col_int64(st, 0);
	c->idx = (int)db_col_int64(st, 1);
	col(st, 2, c->started, sizeof(c->started));
	col(st, 3, c->hostname, sizeof(c->hostname));
	col(st, 4, c->host_id, sizeof(c->host_id));
	col(st, 5, c->kernel, sizeof(c->kernel));
	col(st, 6, c->vm, sizeof(c->vm));
	col(st, 7, c->version, sizeof(c->version));
	col(st, 8, c->tracer, sizeof(c->tracer));
	col(st, 9, c->workload, sizeof(c->workload));
	c->threads = (int)db_col_int64(st, 10);
	col(st, 11, c->target, sizeof(c->target));
	c->reps = (int)db_col_int64(st, 12);
	c->events = db_col_int64(st, 13);
	c->ns = db_col_double(st, 14);
	c->lo = db_col_double(st, 15);
	c->hi = db_col_double(st, 16);
	c->consumer_ns = db_col_double(st, 17);
	col(st, 18, c->rules.file, sizeof(c->rules.file));
	col(st, 19, c->rules.digest, sizeof(c->rules.digest));
	c->rules.rules = (int)db_col_int64(st, 20);
}

int store_stand_walk(struct store *s, const struct stand_query *q,
		     int (*fn)(const struct stand_cell *c, void *arg), void *arg, char *err,
		     size_t errlen)
{
	struct db_stmt *st = db_prepare(s, stand_sql);
	int64_t last = -1;
	int rc, ret = 0, runs = 0;
	char msg[16];

	if (!st)
		return store_fail(s, "cannot read results store", err, errlen);
	db_bind_text(st, 1, q->guests ? "guests" : NULL);
	db_bind_text(st, 2, q->hostname);
	db_bind_text(st, 3, q->kernel);
	db_bind_text(st, 4, q->host_id);
	db_bind_text(st, 5, q->version);
	db_bind_text(st, 6, q->since);
	db_bind_text(st, 7, q->until);
	db_bind_text(st, 8, q->tracer);
	db_bind_glob(st, 9, q->tracer_glob);
	db_bind_text(st, 10, q->workload);
	if (q->threads > 0)
		db_bind_int64(st, 11, q->threads);
	else
		db_bind_null(st, 11);
	db_bind_glob(st, 12, q->kernel_glob);
	snprintf(msg, sizeof(msg), "%d", q->msg_size);
	db_bind_string(st, 13, q->tracer_cpu && *q->tracer_cpu ? q->tracer_cpu : "same");
	db_bind_string(st, 14, q->msg_size > 0 && q->msg_size != TCP_MSG_DEFAULT ? msg : "");
	db_bind_string(st, 15, q->latency ? "1" : "0");
	while (!ret && (rc = db_step(st)) == 1) {
		struct stand_cell c;

		read_row(st, &c);
		if (!target_stands(q, c.workload, c.target))
			continue;
		if (c.run_id != last && q->runs > 0 && ++runs > q->runs)
			break;
		last = c.run_id;
		ret = fn(&c, arg);
	}
	if (!ret && rc < 0)
		ret = store_fail(s, "cannot read results store", err, errlen);
	db_finalize(st);
	return ret;
}

bool stand_same_host(const struct environment *a, const struct environment *b, char *why,
		     size_t len)
{
	if (strcmp(a->vm, b->vm))
		snprintf(why, len, "A ran %s%s, B %s%s", *a->vm ? "in a VM of --kernel under " : "on the host",
			 a->vm, *b->vm ? "in a VM of --kernel under " : "on the host", b->vm);
	else if (strcmp(results_unit(a), results_unit(b)))
		snprintf(why, len, "A is in %s, B in %s (qemu -icount)", results_unit(a), results_unit(b));
	else if (strcmp(a->hostname, b->hostname) || strcmp(a->kernel, b->kernel))
		snprintf(why, len, "another %s", strcmp(a->hostname, b->hostname) ? "host" : "kernel");
	else
		return true;
	return false;
}
