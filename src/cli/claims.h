/*
 * The claims of a plan file beside today's figures: each claim's cell
 * found in a run's (or a pair's) results, its figure read, the ratio to
 * the original taken. Printed by output/claims.c, written into the document by doc/claims.c.
 */
#ifndef TRACETAX_CLAIMS_H
#define TRACETAX_CLAIMS_H

#include <stdbool.h>
#include <stdio.h>

#include "cli/planfile.h"

struct results;
struct pair_results;

struct claim_row {
	const struct planfile *pf;
	const struct pf_claim *c;
	bool have;                /* today's figure was measured */
	double value;
	double ci95[2];           /* NaN: no interval for this figure */
	double ratio;             /* value / the original; NaN without both */
	char cell[160];           /* the cell it comes from: "bpf:tp/count, close, 1 thr" */
	char why[256];            /* no figure: the cell's skip or failure reason */
};

/* Each claim of section @sec from a run's results, into rows[claim index]. */
void claims_from_run(const struct planfile *pf, int sec, const struct results *r,
		     struct claim_row *rows);
void claims_from_pair(const struct planfile *pf, int sec, const struct pair_results *r,
		      struct claim_row *rows);
/* A claim whose section did not run (interrupted, or left out): why. */
void claims_missing(const struct planfile *pf, int i, const char *why, struct claim_row *row);


#endif
