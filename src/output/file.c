/* One way to write an output file whole or not at all (output/export.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "output/export.h"
#include "base/util.h"

static int emit(FILE *f, const char *text, const struct results *r,
		int (*fn)(const struct results *r, FILE *f))
{
	if (text)
		return fputs(text, f) < 0 ? -1 : 0;
	return fn(r, f);
}

int output_file(const char *path, const char *text, const struct results *r,
		int (*fn)(const struct results *r, FILE *f))
{
	char *tmp;
	FILE *f;
	int ret;

	if (!path || !strcmp(path, "-")) {
		ret = emit(stdout, text, r, fn);
		if (fflush(stdout) || ret)
			return error("cannot write to stdout: %s", strerror(errno));
		return 0;
	}
	if (asprintf(&tmp, "%s.tmp", path) < 0)
		die("out of memory");
	f = fopen(tmp, "we");
	if (!f) {
		ret = error("cannot create '%s': %s", tmp, strerror(errno));
		free(tmp);
		return ret;
	}
	ret = emit(f, text, r, fn);
	if (fflush(f) || fsync(fileno(f)) || ret)
		ret = error("cannot write '%s': %s", tmp, strerror(errno));
	if (fclose(f) && !ret)
		ret = error("cannot write '%s': %s", tmp, strerror(errno));
	if (!ret && rename(tmp, path) < 0)
		ret = error("cannot rename '%s' to '%s': %s", tmp, path, strerror(errno));
	if (ret)
		unlink(tmp);
	free(tmp);
	return ret;
}
