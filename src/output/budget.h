/* `tracetax budget`'s table, verdicts and checks (budget.c). */
#ifndef TRACETAX_OUTPUT_BUDGET_H
#define TRACETAX_OUTPUT_BUDGET_H

#include <stddef.h>
#include <stdio.h>

#include "results/budget.h"

void output_budget(const struct budget *b, FILE *f);
/* The counter's price and the rates' pace (measure/pace.h), one indented line; none if neither is known. */
void output_pace(const struct budget_rates *r, FILE *f);
/* A share of the CPU, "12.3%", "1.23%", "0.0123%" by its size; "-" for NaN. */
void output_pct_str(char *buf, size_t len, double v);
/* "bpftrace would cost this box 0.4% of its CPU [0.3, 0.5] at ..." into @buf. */
void output_budget_verdict(const struct budget *b, const struct budget_tracer *t, char *buf,
			   size_t len);
/*
 * Which rule set a walk's cost (audit:rules) was measured with, in words,
 * into @buf: "" for another cost, or none.
 */
void output_walk_rules(const struct budget_audit_cost *c, char *buf, size_t len);

#endif
