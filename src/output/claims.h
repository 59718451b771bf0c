/* The claims table (claims.c): one row a claim, its cell and reason below. */
#ifndef TRACETAX_OUTPUT_CLAIMS_H
#define TRACETAX_OUTPUT_CLAIMS_H

#include <stdio.h>

#include "cli/claims.h"

void claims_print(const struct claim_row *rows, int n, FILE *f);

#endif
