/* Shell-like splitting without a shell: see cmdline.h. */
#include <stdio.h>
#include <string.h>

#include "base/cmdline.h"
#include "base/util.h"

size_t cmdline_unquote(const char *arg, const char **start)
{
	size_t len = strlen(arg);

	*start = arg;
	if (len >= 2 && (arg[0] == '\'' || arg[0] == '"') && arg[len - 1] == arg[0]) {
		(*start)++;
		len -= 2;
	}
	return len;
}

/*
 * '...' literal, "..." with \" \\ \$ \` escaped, a backslash outside
 * quotes escapes the next character.
 */
static int split(const char *s, size_t len, struct cmdline *c, char *err, size_t elen)
{
	const char *end = s + len;
	size_t o = 0;

	c->n = 0;
	while (s < end) {
		while (s < end && (*s == ' ' || *s == '\t' || *s == '\n'))
			s++;
		if (s == end)
			break;
		if (c->n == CMDLINE_WORDS - 1)
			BUG("more words than CMDLINE_MAX characters can make");
		c->w[c->n++] = c->buf + o;
		while (s < end && !strchr(" \t\n", *s)) {
			char q = *s;

			if (strchr("|&;<>()$`", q)) {
				snprintf(err, elen, "an unquoted '%c': it runs without a shell (quote it)", q);
				return -1;
			}
			if (q == '\\' && s + 1 < end) {
				c->buf[o++] = s[1];
				s += 2;
			} else if (q == '\'' || q == '"') {
				for (s++; s < end && *s != q; s++) {
					if (q == '"' && *s == '\\' && s + 1 < end && strchr("\"\\$`", s[1]))
						s++;
					c->buf[o++] = *s;
				}
				if (s++ == end) {
					snprintf(err, elen, "an unbalanced %c", q);
					return -1;
				}
			} else {
				c->buf[o++] = *s++;
			}
		}
		c->buf[o++] = '\0';
	}
	c->w[c->n] = NULL;
	return 0;
}

int cmdline_split(const char *arg, struct cmdline *c, char *err, size_t elen)
{
	const char *s;
	size_t len = cmdline_unquote(arg, &s);

	memset(c, 0, sizeof(*c));
	if (len > CMDLINE_MAX) {
		snprintf(err, elen, "too long (%zu characters, at most %d)", len, CMDLINE_MAX);
		return -1;
	}
	return split(s, len, c, err, elen);
}
