/* `tracetax budget`'s table, verdicts and checks (budget.c). */
#ifndef TRACETAX_OUTPUT_BUDGET_H
#define TRACETAX_OUTPUT_BUDGET_H

#include <stdio.h>

#include "results/budget.h"

void output_budget(const struct budget *b, FILE *f);
/* "bpftrace would cost this box 0.4% of its CPU [0.3, 0.5] at ..." into @buf. */
void output_budget_verdict(const struct budget *b, const struct budget_tracer *t, char *buf,
			   size_t len);

#endif
