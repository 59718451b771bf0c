/* The budget document (docs/schema.md, "budget"): `tracetax budget --json`. */
#ifndef TRACETAX_DOC_BUDGET_H
#define TRACETAX_DOC_BUDGET_H

#include "results/budget.h"

#define BUDGET_SCHEMA_VERSION 1

/* malloc'd JSON text of @b. */
char *output_budget_json_string(const struct budget *b);
/* To @path ('-': stdout). 0, or -1 with one line said. */
int output_budget_json(const struct budget *b, const char *path);

#endif
