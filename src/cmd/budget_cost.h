/*
 * `tracetax budget -t`'s costs (budget_cost.c): each tracer's cost per
 * event and, with --target, its collateral, from the results store or
 * measured now through the runner; audit:rules' walk and record costs.
 */
#ifndef TRACETAX_CMD_BUDGET_COST_H
#define TRACETAX_CMD_BUDGET_COST_H

#include "cmd/budget_args.h"
#include "results/budget.h"

/* audit:rules' tracer of @b; NULL: none asked */
const struct budget_audit *budget_audit_of(const struct budget *b);
/* Each tracer's cost from the store, on @workload, where not had yet */
void budget_stored_costs(const struct budget_args *a, struct budget *b, const char *workload);
/*
 * Each tracer's cost measured now, on @workload (with the commands' checks
 * of -w, audit:rules' mixes counted first), then its collateral with
 * --target. 0, the run's exit code, or 128+signal.
 */
int budget_measure_now(struct budget_args *a, struct budget *b, const char *workload);

#endif
