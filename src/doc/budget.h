/* The budget document (docs/schema.md, "budget"): `tracetax budget --json`. */
#ifndef TRACETAX_DOC_BUDGET_H
#define TRACETAX_DOC_BUDGET_H

#include <jansson.h>

#include "results/budget.h"

#define BUDGET_SCHEMA_VERSION 1

/*
 * A cost's rule set, for the budget and attached documents: rules_file and
 * rules_digest (the walk's, audit:rules: the set it was measured with; null
 * when not known), rules_match (null for a cost that is not a walk).
 */
json_t *doc_walk_rules_json(const struct budget_audit_cost *c);

/* The counter's price and pace (measure/pace.h) into @o: price_ns, price_base_ns, price_reason, pace, paced_events. */
void budget_json_pace(json_t *o, const struct budget_rates *r);

/* malloc'd JSON text of @b, the document the store keeps. */
char *doc_budget_json(const struct budget *b);
/* To @path ('-': stdout), whole or not at all (atomic_file). 0, or -1 with one line said. */
int doc_budget_write(const struct budget *b, const char *path);

/* What `report` shows of a stored budget document, read back (untrusted). */
struct budget_brief {
	int64_t id;
	char started[32], host[64], scope[320];
	double seconds, per_s;
	int ntracers;
	struct budget_brief_tracer {
		char tracer[TT_NAME_MAX];
		char verdict[768];
	} *t;                     /* every tracer of the document */
	int nchecks;
	struct budget_brief_check {
		char tracer[TT_NAME_MAX], command[TT_NAME_MAX], status[16];
		double pred_pct, meas_pct, error_pct;   /* NaN: null */
		bool overlap;
	} *k;                     /* every check */
};

/*
 * 0, and @b to release; or -1 with one line in @err naming what is wrong,
 * and nothing in @b to release (what was read before the fault is freed).
 */
int doc_read_budget(const char *text, size_t len, struct budget_brief *b, char *err,
		    size_t errlen);
void doc_budget_brief_release(struct budget_brief *b);

#endif
