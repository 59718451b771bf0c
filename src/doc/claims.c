/* The document's "claims" array (docs/schema.md), from cli/claims.h's rows. */
#include <math.h>
#include <stdbool.h>

#include <stdlib.h>

#include <jansson.h>

#include "base/utf8.h"

#include "base/json_num.h"
#include "cli/claims.h"
#include "doc/write.h"

/* JSON holds UTF-8 only: a plan file's words or a cell's reason may not be */
static json_t *str(const char *s)
{
	char *v = utf8_scrubbed(s);
	json_t *o = json_string(v);

	free(v);
	return o;
}

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

		json_array_append_new(a, json_pack("{s:o, s:o, s:o, s:f, s:o, s:o, s:o, s:o, s:s, s:o, s:o}",
			"experiment", str(r->pf->name), "claim", str(c->text), "source", str(c->source),
			"original", c->was, "unit", str(c->unit),
			"today", r->have ? json_real(r->value) : json_null(),
			"today_ci95", ci ? json_pack("[f, f]", r->ci95[0], r->ci95[1]) : json_null(),
			"ratio", json_num(r->ratio), "field", pf_field_names[c->field],
			"cell", r->have ? str(r->cell) : json_null(),
			"reason", r->have ? json_null() : str(r->why)));
	}
	return a;
}
