/*
 * The one atomic file writer (base/atomic_file.c): the file is whole or
 * untouched, the temporary never stays behind, a failing writer leaves the
 * old file as it was, a directory or an unwritable place is refused before
 * the run.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "base/atomic_file.h"

static char dir[] = "/tmp/tt-atomictest.XXXXXX";
static char path[128], tmp[140];

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/out.json", dir);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	return 0;
}

static char victim[] = "/tmp/tt-atomicvictim.XXXXXX";

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	unlink(tmp);
	unlink(victim);
	return rmdir(dir);
}

/* The directory holds @want entries: no temporary stayed behind. */
static void assert_entries(int want)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	assert_int_equal(n, want);
}

static void slurp(const char *p, char *buf, size_t len)
{
	FILE *f = fopen(p, "r");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	fclose(f);
}

static int half_then_fail(FILE *f, void *arg)
{
	(void)arg;
	fputs("{\"half\":", f);
	errno = ENOSPC;
	return -1;
}

static void test_whole_or_old(void **state)
{
	char buf[64];

	(void)state;
	assert_int_equal(atomic_file_text(path, "old\n"), 0);
	slurp(path, buf, sizeof(buf));
	assert_string_equal(buf, "old\n");
	assert_int_equal(access(tmp, F_OK), -1);
	assert_int_equal(atomic_file_text(path, "new\n"), 0);
	slurp(path, buf, sizeof(buf));
	assert_string_equal(buf, "new\n");
	/* a writer that fails half way: the old file stays, the temporary goes */
	assert_int_equal(atomic_file_write(path, half_then_fail, NULL), -1);
	slurp(path, buf, sizeof(buf));
	assert_string_equal(buf, "new\n");
	assert_int_equal(access(tmp, F_OK), -1);
	assert_entries(1);
}

/*
 * A symlink planted at the old fixed temporary name (path.tmp) pointing at
 * another file: the write neither follows it nor truncates the file, and
 * the result is a regular file of its own.
 */
static void test_planted_symlink(void **state)
{
	struct stat st;
	char buf[64];
	int fd = mkstemp(victim);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "precious\n", 9), 9);
	close(fd);
	unlink(path);
	assert_int_equal(symlink(victim, tmp), 0);
	assert_int_equal(atomic_file_text(path, "new\n"), 0);
	slurp(victim, buf, sizeof(buf));
	assert_string_equal(buf, "precious\n");
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	slurp(path, buf, sizeof(buf));
	assert_string_equal(buf, "new\n");
	/* the check before a run does not touch it either */
	assert_int_equal(atomic_file_check(path, buf, sizeof(buf)), 0);
	slurp(victim, buf, sizeof(buf));
	assert_string_equal(buf, "precious\n");
	assert_int_equal(lstat(tmp, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	unlink(tmp);
	assert_entries(1);
}

static void test_check(void **state)
{
	char err[256] = "", missing[160];

	(void)state;
	assert_int_equal(atomic_file_check(path, err, sizeof(err)), 0);
	assert_int_equal(access(tmp, F_OK), -1);	/* the probe leaves nothing */
	assert_entries(access(path, F_OK) ? 0 : 1);
	assert_int_equal(atomic_file_check("-", err, sizeof(err)), 0);
	assert_int_equal(atomic_file_check(dir, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "Is a directory"));
	snprintf(missing, sizeof(missing), "%s/no/such/dir/x.json", dir);
	assert_int_equal(atomic_file_check(missing, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "x.json"));
	assert_int_equal(atomic_file_text(missing, "x"), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_whole_or_old),
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_planted_symlink),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
