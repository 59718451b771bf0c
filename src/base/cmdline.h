/*
 * A command line as the user typed it, split into words as a shell splits
 * them (quotes, backslashes) and run without a shell: the cmd: tracer's
 * template and the cmd: workload's command share this.
 */
#ifndef TRACETAX_CMDLINE_H
#define TRACETAX_CMDLINE_H

#include <stddef.h>

/*
 * A command of 4000 characters, as many words as fit: a fixed size, but one
 * no command typed on a line meets (a longer one belongs in a script). A
 * tracer's or workload's name, "cmd:'...'" or "cmd:'strace -f {cmd}'",
 * holds one whole.
 */
#define CMDLINE_MAX 4000
#define CMDLINE_WORDS (CMDLINE_MAX / 2 + 2)	/* a word and its space take two */
#define TT_NAME_MAX (CMDLINE_MAX + 96)

struct cmdline {
	char buf[CMDLINE_MAX + 1];     /* the words, NUL-separated */
	char *w[CMDLINE_WORDS + 1];    /* NULL-terminated */
	int n;
};

/*
 * 'CMD' or "CMD" (the outer quotes are the name's, as in cmd:'CMD') or a
 * bare CMD, split into @c. A shell's operators (| & ; < > ( ) $ `) outside
 * quotes are refused, not run. 0, or -1 with why (no subject) in @err.
 */
int cmdline_split(const char *arg, struct cmdline *c, char *err, size_t elen);
/* The command without the name's outer quotes: *@start, and its length. */
size_t cmdline_unquote(const char *arg, const char **start);

#endif
