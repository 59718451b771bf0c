/* A double in a JSON document: NaN and infinities (a figure not known) are
 * null, which JSON can say, not a number JSON cannot hold. The one place
 * the rule is written: the results document, pair's, clocks' and the claims. */
#ifndef TRACETAX_JSON_NUM_H
#define TRACETAX_JSON_NUM_H

#include <math.h>

#include <jansson.h>

static inline json_t *json_num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

#endif
