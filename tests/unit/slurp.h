/* A fixture file's text, for the tests that read tests/fixtures (malloc'd). */
#ifndef TT_SLURP_H
#define TT_SLURP_H

#include <stdio.h>

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	int ch;

	if (!f)
		fail_msg("cannot open '%s' (run from the top of the tree)", path);
	while ((ch = getc(f)) != EOF)
		putc(ch, m);
	fclose(f);
	fclose(m);
	return buf;
}

#endif
