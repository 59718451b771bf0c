/* The guest's command line and environment, as a shell script the guest's init runs. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/util.h"
#include "vm/accel.h"
#include "vm/guest_cmd.h"
#include "vm/say.h"

static void put_quoted(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++)
		if (*s == '\'')
			fputs("'\\''", f);
		else
			fputc(*s, f);
	fputc('\'', f);
}

/* What of our environment the guest's tracetax keeps. */
static const char *const kept_env[] = {
	"PATH", "HOME", "LANG", "LC_ALL", "TERM", "NO_COLOR", "TZ", "XDG_DATA_HOME",
	"TRACETAX_VERBOSE", "TRACETAX_LOAD",
	/* a sanitized build (make asan) keeps its options, suppressions and all */
	"ASAN_OPTIONS", "LSAN_OPTIONS", "UBSAN_OPTIONS",
};

/*
 * @v, a sanitizer's colon-separated options, quoted into @f without its
 * log_path: that is a file of the host's /tmp, which the guest replaces.
 * Its reports go to the guest's stderr instead, which the host shows.
 */
static void put_san_options(FILE *f, const char *v)
{
	char *copy = strdup(v), *save = NULL, *out = calloc(strlen(v) + 1, 1);

	if (!copy || !out)
		die("out of memory");
	for (char *o = strtok_r(copy, ":", &save); o; o = strtok_r(NULL, ":", &save)) {
		if (!strncmp(o, "log_path=", 9))
			continue;
		if (*out)
			strcat(out, ":");
		strcat(out, o);
	}
	put_quoted(f, out);
	free(out);
	free(copy);
}

int guest_cmd_write(const char *path, const char *accel, const struct vm_spec *spec, char *err,
		    size_t errlen)
{
	char exe[PATH_MAX], cwd[PATH_MAX];
	ssize_t n = spec->exe ? 0 : readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	FILE *f;

	if (n < 0)
		return ERR("cannot find own executable: readlink /proc/self/exe failed");
	if (spec->exe)
		snprintf(exe, sizeof(exe), "%s", spec->exe);
	else
		exe[n] = '\0';
	/* rebuilt or removed since we started: the guest would run another program, or none */
	if (n > 10 && !strcmp(exe + n - 10, " (deleted)"))
		return ERR("own executable '%.*s' was replaced or removed since tracetax started: "
			   "the guest cannot run it", (int)n - 10, exe);
	/* the guest has tmpfs there: a program of the host's is not seen */
	if (!strncmp(exe, "/tmp/", 5) || !strncmp(exe, "/run/", 5) || !strncmp(exe, "/dev/shm/", 9))
		return BAD("'%s' is under /tmp, /run or /dev/shm, which the guest does not "
			   "share: run a tracetax installed or built elsewhere", exe);
	f = fopen(path, "we");
	if (!f)
		return ERR("cannot write '%s': %s", path, strerror(errno));
	fputs("# the guest's command, run by its init in the chroot of the host's root\ncd ", f);
	put_quoted(f, getcwd(cwd, sizeof(cwd)) ? cwd : "/");
	fputs(" 2>/dev/null || cd /\n", f);
	for (size_t i = 0; i < sizeof(kept_env) / sizeof(kept_env[0]); i++) {
		const char *v = getenv(kept_env[i]);

		if (v) {
			fprintf(f, "export %s=", kept_env[i]);
			if (strstr(kept_env[i], "SAN_OPTIONS"))
				put_san_options(f, v);
			else
				put_quoted(f, v);
			fputc('\n', f);
		}
	}
	fprintf(f, "export " VM_ENV "=%s\n", accel);
	/* its clock counts instructions: its figures are instructions, not ns */
	if (accel_icount(accel, spec))
		fputs("export " VM_UNIT_ENV "=instructions\n", f);
	fputs("exec ", f);
	put_quoted(f, exe);
	for (const char *const *a = spec->argv; *a; a++) {
		fputc(' ', f);
		put_quoted(f, *a);
	}
	fputc('\n', f);
	return fclose(f) ? ERR("cannot write '%s'", path) : 0;
}
