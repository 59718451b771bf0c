/* Option values more than one command takes, parsed in one place (values.c). */
#ifndef TRACETAX_CLI_VALUES_H
#define TRACETAX_CLI_VALUES_H

#include <stddef.h>

/* --color: "auto" -1, "never" 0, "always" 1; -1 and @err if none of those. */
int cli_parse_colour(const char *word, int *out, char *err, size_t errlen);
/*
 * -T: "1,2,4", thread counts 1 to 256, appended to the @n in @out (at most
 * @max in all); -1 and @err on a bad count, an empty list or more than @max.
 */
int cli_parse_threads(const char *list, int *out, int max, int *n, char *err, size_t errlen);
/* "3", "0.5", "2.5%": a percentage in [@min, @max]; -1 if not one. */
int cli_parse_pct(const char *s, double min, double max, double *out);
/* The lock's wait before any --wait: TRACETAX_WAIT's, or the default; -1 and @err if invalid. */
int cli_wait_default(int *wait_s, char *err, size_t errlen);
/* --wait SECONDS, 0 to LOCK_WAIT_MAX_S; -1 and @err if not. */
int cli_parse_wait(const char *s, int *wait_s, char *err, size_t errlen);
/* A value naming a file or directory (@what: "path", "directory"): not empty. */
int cli_path(const char *opt, const char *what, const char *arg, const char **dst, char *err,
	     size_t errlen);

#endif
