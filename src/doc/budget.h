/* The budget document (docs/schema.md, "budget"): `tracetax budget --json`. */
#ifndef TRACETAX_DOC_BUDGET_H
#define TRACETAX_DOC_BUDGET_H

#include "results/budget.h"

#define BUDGET_SCHEMA_VERSION 1

/* malloc'd JSON text of @b. */
char *output_budget_json_string(const struct budget *b);
/* To @path ('-': stdout). 0, or -1 with one line said. */
int output_budget_json(const struct budget *b, const char *path);

/* What `report` shows of a stored budget document, read back (untrusted). */
struct budget_brief {
	int64_t id;
	char started[32], host[64], scope[320];
	double seconds, per_s;
	int ntracers;
	struct {
		char tracer[TT_NAME_MAX];
		char verdict[768];
	} t[BUDGET_MAX_TRACERS];
	int nchecks;
	struct {
		char tracer[TT_NAME_MAX], command[TT_NAME_MAX], status[16];
		double pred_pct, meas_pct, error_pct;   /* NaN: null */
		bool overlap;
	} k[BUDGET_MAX_CHECKS];
};

/* 0, or -1 with one line in @err naming what is wrong. */
int doc_read_budget(const char *text, size_t len, struct budget_brief *b, char *err,
		    size_t errlen);

#endif
