/* The document's "claims" array (docs/schema.md), from cli/claims.h's rows. */
#include <math.h>
#include <stdbool.h>

#include <jansson.h>

#include "base/json_num.h"
#include "cli/claims.h"
#include "doc/write.h"

json_t *claims_json(const struct claim_row *rows, int n)
{
	json_t *a;

	if (!rows || n <= 0)
		return json_null();
	a = json_array();
	for (int i = 0; i < n; i++) {
		const struct claim_row *r = &rows[i];
		const struct pf_claim *c = r->c;
		bool ci = r->have && isfinite(r->ci95[0]) && isfinite(r->ci95[1]);

		json_array_append_new(a, json_pack("{s:s, s:s, s:s, s:f, s:s, s:o, s:o, s:o, s:s, s:o, s:o}",
			"experiment", r->pf->name, "claim", c->text, "source", c->source,
			"original", c->was, "unit", c->unit,
			"today", r->have ? json_real(r->value) : json_null(),
			"today_ci95", ci ? json_pack("[f, f]", r->ci95[0], r->ci95[1]) : json_null(),
			"ratio", json_num(r->ratio), "field", pf_field_names[c->field],
			"cell", r->have ? json_string(r->cell) : json_null(),
			"reason", r->have ? json_null() : json_string(r->why)));
	}
	return a;
}
