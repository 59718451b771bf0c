/* Option values more than one command takes (cli/values.h). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/lock.h"
#include "cli/values.h"
#include "base/util.h"

#define FAIL(...) do { snprintf(err, errlen, __VA_ARGS__); return -1; } while (0)

int cli_parse_colour(const char *word, int *out, char *err, size_t errlen)
{
	if (!strcmp(word, "auto"))
		*out = -1;
	else if (!strcmp(word, "always"))
		*out = 1;
	else if (!strcmp(word, "never"))
		*out = 0;
	else
		FAIL("invalid --color '%s' (auto, always, never)", word);
	return 0;
}

int cli_parse_threads(const char *list, int *out, int max, int *n, char *err, size_t errlen)
{
	char *copy = strdup(list), *save = NULL;
	int ret = 0, before = *n;

	if (!copy)
		die("out of memory");
	/* a repeated -T adds to the list, as -t and -w do */
	for (char *t = strtok_r(copy, ",", &save); t && !ret; t = strtok_r(NULL, ",", &save)) {
		int64_t v;

		if (parse_i64(t, 1, 256, &v)) {
			snprintf(err, errlen, "invalid thread count '%s' (1 to 256)", t);
			ret = -1;
		} else if (*n == max) {
			snprintf(err, errlen, "too many thread counts (at most %d)", max);
			ret = -1;
		} else {
			out[(*n)++] = (int)v;
		}
	}
	free(copy);
	if (!ret && *n == before)
		FAIL("empty thread list");
	return ret;
}

int cli_parse_pct(const char *s, double min, double max, double *out)
{
	char *end;
	double v;

	if (!*s)
		return -1;
	v = strtod(s, &end);
	if (*end == '%')
		end++;
	if (*end || !(v >= min && v <= max))
		return -1;
	*out = v;
	return 0;
}

int cli_wait_default(int *wait_s, char *err, size_t errlen)
{
	if ((*wait_s = lock_wait_default()) < 0)
		FAIL("invalid " TT_WAIT_ENV " '%s' (0 to %d seconds)", getenv(TT_WAIT_ENV),
		     LOCK_WAIT_MAX_S);
	return 0;
}

int cli_parse_wait(const char *s, int *wait_s, char *err, size_t errlen)
{
	int64_t v;

	if (parse_i64(s, 0, LOCK_WAIT_MAX_S, &v))
		FAIL("invalid --wait '%s' (0 to %d seconds)", s, LOCK_WAIT_MAX_S);
	*wait_s = (int)v;
	return 0;
}

int cli_path(const char *opt, const char *what, const char *arg, const char **dst, char *err,
	     size_t errlen)
{
	if (!*arg)
		FAIL("empty %s %s", opt, what);
	*dst = arg;
	return 0;
}
