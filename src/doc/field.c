/*
 * One checked field at a time (doc/field.h). Every reader returns 0, or -1
 * with the document's one line in x->err; they chain with ||.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doc/field.h"

int rd_fail(struct rd *x, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(x->err, x->errlen, "invalid results document '%s': %s: %s", x->name,
		 x->plen ? x->path : "/", msg);
	return -1;
}

static size_t push(struct rd *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static size_t push(struct rd *x, const char *fmt, ...)
{
	size_t at = x->plen;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(x->path + at, sizeof(x->path) - at, fmt, ap);
	va_end(ap);
	if (n > 0)
		x->plen = at + (size_t)n < sizeof(x->path) ? at + (size_t)n : sizeof(x->path) - 1;
	return at;
}

size_t rd_push(struct rd *x, const char *key) { return push(x, "/%s", key); }
size_t rd_push_index(struct rd *x, size_t i) { return push(x, "/%zu", i); }

void rd_pop(struct rd *x, size_t at)
{
	x->plen = at;
	x->path[at] = '\0';
}

const char *rd_type(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT:  return "an object";
	case JSON_ARRAY:   return "an array";
	case JSON_STRING:  return "a string";
	case JSON_INTEGER: return "an integer";
	case JSON_REAL:    return "a number";
	case JSON_TRUE:
	case JSON_FALSE:   return "a boolean";
	case JSON_NULL:    return "null";
	}
	return "something else";
}

/* The field @key of @o, its name pushed on the path; NULL (and the line) if missing. */
static json_t *field(struct rd *x, json_t *o, const char *key, size_t *at)
{
	json_t *v = json_object_get(o, key);

	*at = rd_push(x, key);
	if (!v)
		rd_fail(x, "missing");
	return v;
}

#define DONE(at, ret) do { int r_ = (ret); rd_pop(x, at); return r_; } while (0)

/*
 * Strings reach terminals (show, compare) and files: a control character
 * (an escape sequence that clears the screen, a newline that forges a
 * line) becomes '?'. jansson has already refused invalid UTF-8 and NUL.
 */
int rd_str(struct rd *x, json_t *o, const char *key, char *dst, size_t len, int flags)
{
	size_t at, n;
	json_t *v = field(x, o, key, &at);

	if (!v)
		DONE(at, -1);
	if (json_is_null(v) && (flags & F_NULL)) {
		dst[0] = '\0';
		DONE(at, 0);
	}
	if (!json_is_string(v))
		DONE(at, rd_fail(x, "want a string%s, not %s", flags & F_NULL ? " or null" : "",
				 rd_type(v)));
	n = json_string_length(v);
	if (n >= len)
		DONE(at, rd_fail(x, "longer than %zu bytes", len - 1));
	if (n == 0 && (flags & (F_NONEMPTY | F_NULL)))
		DONE(at, rd_fail(x, "empty"));
	memcpy(dst, json_string_value(v), n + 1);
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)dst[i] < 0x20 || dst[i] == 0x7f)
			dst[i] = '?';
	DONE(at, 0);
}

int rd_int(struct rd *x, json_t *o, const char *key, int64_t min, int64_t max, int flags,
	   int64_t *out)
{
	size_t at;
	json_t *v = field(x, o, key, &at);
	json_int_t i;

	if (!v)
		DONE(at, -1);
	if (json_is_null(v) && (flags & F_NULL)) {
		*out = -1;
		DONE(at, 0);
	}
	if (!json_is_integer(v))
		DONE(at, rd_fail(x, "want an integer%s, not %s", flags & F_NULL ? " or null" : "",
				 rd_type(v)));
	i = json_integer_value(v);
	if (i < min || i > max)
		DONE(at, rd_fail(x, "%lld is out of range (%lld to %lld)", (long long)i,
				 (long long)min, (long long)max));
	*out = i;
	DONE(at, 0);
}

int rd_intv(struct rd *x, json_t *o, const char *key, int min, int max, int *out)
{
	int64_t v;

	if (rd_int(x, o, key, min, max, 0, &v))
		return -1;
	*out = (int)v;
	return 0;
}

/* jansson refuses NaN, Infinity and overflowing literals: a number here is finite. */
int rd_num(struct rd *x, json_t *o, const char *key, double min, int flags, double *out)
{
	size_t at;
	json_t *v = field(x, o, key, &at);

	if (!v)
		DONE(at, -1);
	if (json_is_null(v) && (flags & F_NULL)) {
		*out = NAN;
		DONE(at, 0);
	}
	if (!json_is_number(v))
		DONE(at, rd_fail(x, "want a number%s, not %s", flags & F_NULL ? " or null" : "",
				 rd_type(v)));
	*out = json_number_value(v);
	if (*out < min)
		DONE(at, rd_fail(x, "%g is below %g", *out, min));
	DONE(at, 0);
}

int rd_bool(struct rd *x, json_t *o, const char *key, bool *out)
{
	size_t at;
	json_t *v = field(x, o, key, &at);

	if (!v)
		DONE(at, -1);
	if (!json_is_boolean(v))
		DONE(at, rd_fail(x, "want a boolean, not %s", rd_type(v)));
	*out = json_is_true(v);
	DONE(at, 0);
}

int rd_pair(struct rd *x, json_t *o, const char *key, int flags, double out[2])
{
	size_t at;
	json_t *v = field(x, o, key, &at);

	out[0] = out[1] = NAN;
	if (!v)
		DONE(at, -1);
	if (json_is_null(v) && (flags & F_NULL))
		DONE(at, 0);
	if (!json_is_array(v) || json_array_size(v) != 2)
		DONE(at, rd_fail(x, "want [lo, hi], not %s", json_is_array(v) ? "another array" :
				 rd_type(v)));
	for (size_t i = 0; i < 2; i++) {
		json_t *e = json_array_get(v, i);

		if (json_is_number(e))
			out[i] = json_number_value(e);
		else if (!json_is_null(e))
			DONE(at, rd_fail(x, "want numbers or nulls, not %s", rd_type(e)));
	}
	DONE(at, 0);
}

int rd_seed(struct rd *x, json_t *o, const char *key, uint64_t *out)
{
	size_t at;
	json_t *v = field(x, o, key, &at);
	const char *s;
	char *end;

	if (!v)
		DONE(at, -1);
	if (json_is_integer(v) && json_integer_value(v) >= 0) {
		*out = (uint64_t)json_integer_value(v);
		DONE(at, 0);
	}
	if (!json_is_string(v))
		DONE(at, rd_fail(x, "want a non-negative integer or a string of digits, not %s",
				 rd_type(v)));
	s = json_string_value(v);
	errno = 0;
	*out = strtoull(s, &end, 10);
	if (!*s || *end || errno || s[strspn(s, "0123456789")])
		DONE(at, rd_fail(x, "want a string of digits below 2^64"));
	DONE(at, 0);
}

int rd_enum(struct rd *x, json_t *o, const char *key, const char *const *names, int *out)
{
	size_t at, len = 0;
	json_t *v = field(x, o, key, &at);
	char list[128] = "";

	if (!v)
		DONE(at, -1);
	for (int i = 0; names[i]; i++) {
		if (json_is_string(v) && !strcmp(json_string_value(v), names[i])) {
			*out = i;
			DONE(at, 0);
		}
		if (len < sizeof(list))
			len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s", i ? ", " : "",
						names[i]);
	}
	DONE(at, rd_fail(x, "want one of %s, not %s", list,
			 json_is_string(v) ? "another string" : rd_type(v)));
}

int rd_array(struct rd *x, json_t *o, const char *key, size_t max, json_t **out)
{
	size_t at;
	json_t *v = field(x, o, key, &at);

	if (!v)
		DONE(at, -1);
	if (!json_is_array(v))
		DONE(at, rd_fail(x, "want an array, not %s", rd_type(v)));
	if (json_array_size(v) > max)
		DONE(at, rd_fail(x, "%zu elements, more than %zu", json_array_size(v), max));
	*out = v;
	DONE(at, 0);
}

static void summary_nan(struct summary *s)
{
	memset(s, 0, sizeof(*s));
	s->mean = s->median = s->stddev = s->min = s->max = NAN;
	s->ci95[0] = s->ci95[1] = s->median_ci95[0] = s->median_ci95[1] = NAN;
}

int rd_summary(struct rd *x, json_t *o, const char *key, size_t n, int flags, struct summary *s,
	       bool *present)
{
	size_t at;
	json_t *v = field(x, o, key, &at);
	int64_t got;
	int ret;

	summary_nan(s);
	*present = false;
	if (!v)
		DONE(at, -1);
	if (json_is_null(v) && (flags & F_NULL))
		DONE(at, 0);
	if (!json_is_object(v))
		DONE(at, rd_fail(x, "want a summary object%s, not %s",
				 flags & F_NULL ? " or null" : "", rd_type(v)));
	ret = rd_int(x, v, "n", 1, INT64_MAX, 0, &got) ||
	      rd_num(x, v, "mean", -INFINITY, 0, &s->mean) ||
	      rd_num(x, v, "median", -INFINITY, 0, &s->median) ||
	      rd_num(x, v, "stddev", 0, F_NULL, &s->stddev) ||
	      rd_num(x, v, "min", -INFINITY, 0, &s->min) ||
	      rd_num(x, v, "max", -INFINITY, 0, &s->max) ||
	      rd_pair(x, v, "ci95", 0, s->ci95) ||
	      rd_pair(x, v, "median_ci95", 0, s->median_ci95) ? -1 : 0;
	if (!ret && (size_t)got != n)
		ret = rd_fail(x, "n %lld, but the cell has %zu reps", (long long)got, n);
	s->n = n;
	*present = !ret;
	DONE(at, ret);
}

bool rd_absent(struct rd *x, json_t *o, const char *key)
{
	return x->version < 3 && !json_object_get(o, key);
}

int rd_object(struct rd *x, json_t *o, const char *key, json_t **out)
{
	size_t at;
	json_t *v;

	*out = NULL;
	if (rd_absent(x, o, key))
		return 0;
	v = field(x, o, key, &at);
	if (!v)
		DONE(at, -1);
	if (json_is_null(v))
		DONE(at, 0);
	if (!json_is_object(v))
		DONE(at, rd_fail(x, "want an object or null, not %s", rd_type(v)));
	*out = v;
	DONE(at, 0);
}

int rd_sides(struct rd *x, json_t *o, const char *key, double min, double out[2])
{
	json_t *v;
	size_t at;
	int ret;

	out[0] = out[1] = NAN;
	if (rd_object(x, o, key, &v))
		return -1;
	if (!v)
		return 0;
	at = rd_push(x, key);
	ret = rd_num(x, v, "baseline", min, F_NULL, &out[0]) ||
	      rd_num(x, v, "traced", min, F_NULL, &out[1]) ? -1 : 0;
	DONE(at, ret);
}
