/* An output of a run written whole or not at all (output/export.h). */
#include <stdio.h>

#include "output/export.h"
#include "base/atomic_file.h"

struct emit {
	const char *text;
	const struct results *r;
	int (*fn)(const struct results *r, FILE *f);
};

static int emit(FILE *f, void *arg)
{
	const struct emit *e = arg;

	if (e->text)
		return fputs(e->text, f) < 0 ? -1 : 0;
	return e->fn(e->r, f);
}

int output_file(const char *path, const char *text, const struct results *r,
		int (*fn)(const struct results *r, FILE *f))
{
	struct emit e = { text, r, fn };

	return atomic_file_write(path, emit, &e);
}
