/* The claims table of a plan (cli/claims.h's rows), after its results. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/util.h"
#include "cli/claims.h"
#include "output/claims.h"

/* A figure in its unit: ns as the tables give them, a ratio as x1.23. */
static void fmt_value(char *buf, size_t len, double v, const char *unit)
{
	if (!strcmp(unit, "x"))
		snprintf(buf, len, v < 10 ? "x%.2f" : "x%.1f", v);
	else if (!strcmp(unit, "%"))
		snprintf(buf, len, "%.1f%%", v);
	else if (!strcmp(unit, "events"))
		snprintf(buf, len, "%.0f", v);
	else
		format_ns(buf, len, v);
}

static void fmt_today(char *buf, size_t len, const struct claim_row *r)
{
	const char *u = pf_field_unit(r->c->field, r->c->vs[0]);
	char v[32], lo[32], hi[32];

	if (!r->have) {
		snprintf(buf, len, "-");
		return;
	}
	fmt_value(v, sizeof(v), r->value, u);
	if (isfinite(r->ci95[0]) && isfinite(r->ci95[1])) {
		fmt_value(lo, sizeof(lo), r->ci95[0], u);
		fmt_value(hi, sizeof(hi), r->ci95[1], u);
		snprintf(buf, len, "%s [%s, %s]", v, lo, hi);
	} else
		snprintf(buf, len, "%s", v);
}

void claims_print(const struct claim_row *rows, int n, FILE *f)
{
	int wc = 5, ws = 6, wo = 8, wt = 5;
	char orig[48], today[96], ratio[16];

	for (int i = 0; i < n; i++) {
		const struct pf_claim *c = rows[i].c;

		fmt_today(today, sizeof(today), &rows[i]);
		snprintf(orig, sizeof(orig), "%g %s", c->was, c->unit);
		wc = (int)strlen(c->text) > wc ? (int)strlen(c->text) : wc;
		ws = (int)strlen(c->source) > ws ? (int)strlen(c->source) : ws;
		wo = (int)strlen(orig) > wo ? (int)strlen(orig) : wo;
		wt = (int)strlen(today) > wt ? (int)strlen(today) : wt;
	}
	fprintf(f, "\nclaims\n%-*s  %-*s  %*s  %*s  %7s\n", wc, "claim", ws, "source", wo,
		"original", wt, "today", "ratio");
	for (int i = 0; i < n; i++) {
		const struct claim_row *r = &rows[i];

		fmt_today(today, sizeof(today), r);
		snprintf(orig, sizeof(orig), "%g %s", r->c->was, r->c->unit);
		if (isfinite(r->ratio))
			snprintf(ratio, sizeof(ratio), r->ratio < 10 ? "x%.2f" : "x%.1f", r->ratio);
		else
			snprintf(ratio, sizeof(ratio), "-");
		fprintf(f, "%-*s  %-*s  %*s  %*s  %7s\n", wc, r->c->text, ws, r->c->source, wo, orig,
			wt, today, ratio);
		if (r->have)
			fprintf(f, "    today: %s, %s (%s)\n", pf_field_names[r->c->field], r->cell,
				pf_field_unit(r->c->field, r->c->vs[0]));
		else
			fprintf(f, "    no figure: %s\n", r->why);
	}
}
