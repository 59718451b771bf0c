/*
 * The VM's share (src/vm/share.c) is written by the guest as root: what a
 * root process there can plant, the host refuses, at once and in one line:
 * a FIFO (the host would hang), a symlink to /dev/zero (it would read
 * forever), a link to a host file (it would print it), a device node, a
 * file larger than it expects. A plain file is read whole.
 */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <cmocka.h>

#include "vm/console.h"
#include "vm/share.h"

static char dir[] = "/tmp/tt-vmshare.XXXXXX";
static char host_file[] = "/tmp/tt-vmhost.XXXXXX";
static char err[512];

static int setup(void **state)
{
	int fd;

	(void)state;
	if (!mkdtemp(dir) || (fd = mkstemp(host_file)) < 0)
		return -1;
	if (write(fd, "SECRET\n", 7) != 7)
		return -1;
	close(fd);
	/* a read that blocks fails the test instead of hanging it */
	alarm(20);
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	unlink(host_file);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd);
}

static void plant(const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	unlink(path);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* @dir/@name, as it is */
static const char *at_keep(const char *name)
{
	static char path[256];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return path;
}

static const char *at(const char *name)
{
	static char path[256];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	unlink(path);
	return path;
}

/* share_read of @name: its return; *out NULL unless 0 */
static int rd(const char *name, size_t max, char **out)
{
	err[0] = '\0';
	return share_read(dir, name, max, out, err, sizeof(err));
}

static void test_plain(void **state)
{
	char *out;

	(void)state;
	plant("rc", "0\n");
	assert_int_equal(rd("rc", SHARE_RC_MAX, &out), 0);
	assert_string_equal(out, "0\n");
	free(out);
	assert_int_equal(rd("result.json", SHARE_DOC_MAX, &out), 1);
	assert_null(out);
}

static void test_fifo(void **state)
{
	char *out;

	(void)state;
	assert_int_equal(mkfifo(at("rc"), 0600), 0);
	assert_int_equal(rd("rc", SHARE_RC_MAX, &out), -1);
	assert_null(out);
	assert_string_equal(err, "the guest's share: 'rc' is not a regular file");
}

static void test_symlinks(void **state)
{
	char *out;

	(void)state;
	assert_int_equal(symlink("/dev/zero", at("rc")), 0);
	assert_int_equal(rd("rc", SHARE_RC_MAX, &out), -1);
	assert_string_equal(err, "the guest's share: 'rc' is a symbolic link");
	assert_int_equal(symlink(host_file, at("left")), 0);
	assert_int_equal(rd("left", SHARE_LEFT_MAX, &out), -1);
	assert_null(out);
	assert_string_equal(err, "the guest's share: 'left' is a symbolic link");
}

static void test_hard_link(void **state)
{
	char *out;

	(void)state;
	if (link(host_file, at("left")))
		skip();	/* /tmp across file systems */
	assert_int_equal(rd("left", SHARE_LEFT_MAX, &out), -1);
	assert_null(out);
	assert_string_equal(err, "the guest's share: 'left' has another name (a hard link)");
}

static void test_device(void **state)
{
	char *out;

	(void)state;
	if (mknod(at("result.json"), S_IFCHR | 0600, makedev(1, 5)))
		skip();	/* not root */
	assert_int_equal(rd("result.json", SHARE_DOC_MAX, &out), -1);
	assert_string_equal(err, "the guest's share: 'result.json' is not a regular file");
}

static void test_too_large(void **state)
{
	char *out;

	(void)state;
	plant("rc", "0000000000000000000000000000000000000000000000000000000000000000000\n");
	assert_int_equal(rd("rc", SHARE_RC_MAX, &out), -1);
	assert_null(out);
	assert_string_equal(err, "the guest's share: 'rc' is larger than 64 bytes");
}

static void test_tails(void **state)
{
	struct share_tail t = { "stdout", -1, -1, 0, false };
	int fd;

	(void)state;
	t.out = open("/dev/null", O_WRONLY);
	/* a link to /dev/zero: never opened, let alone copied forever */
	assert_int_equal(symlink("/dev/zero", at("stdout")), 0);
	assert_int_equal(share_tail_pump(dir, &t, err, sizeof(err)), -1);
	assert_string_equal(err, "the guest's share: 'stdout' is a symbolic link");
	/* not there yet: nothing to copy, no error */
	at("stdout");
	t.fd = -1;
	assert_int_equal(share_tail_pump(dir, &t, err, sizeof(err)), 0);
	/* a file that grows past its cap (sparse: nothing written) */
	fd = open(at("stdout"), O_WRONLY | O_CREAT, 0600);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)SHARE_TAIL_MAX + 1), 0);
	close(fd);
	assert_int_equal(share_tail_pump(dir, &t, err, sizeof(err)), -1);
	assert_string_equal(err, "the guest's share: 'stdout' is larger than 64 MiB");
	share_tail_close(&t);
	close(t.out);
}

/*
 * What the guest prints reaches the host's terminal with no control
 * character of it: an OSC that retitles the window, a CSI (ESC [ and
 * UTF-8's C1 one) that clears the screen, a CR that overwrites the line, a
 * C2 split across two reads; text, UTF-8, newlines and tabs as they were.
 */
static void test_tail_sanitized(void **state)
{
	static const char guest[] = "ok\x1b]0;pwned\x07\tline\r\x1b[2J\xc2\x9b" "31m\x7f caf\xc3\xa9 \xc2";
	static const char want[] = "ok^[]0;pwned^G\tline^M^[[2J^[[31m^? caf\xc3\xa9 ^[[\n";
	struct share_tail t = { "stdout", -1, -1, 0, false };
	char got[256];
	int p[2], fd;
	ssize_t n;

	(void)state;
	assert_int_equal(pipe(p), 0);
	t.out = p[1];
	unlink(at("stdout"));
	fd = open(at("stdout"), O_WRONLY | O_CREAT | O_APPEND, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, guest, sizeof(guest) - 1), (ssize_t)sizeof(guest) - 1);
	assert_int_equal(share_tail_pump(dir, &t, err, sizeof(err)), 0);
	/* the C2 the last read ended with: a C1 once the next read brings its second byte */
	assert_int_equal(write(fd, "\x9b\n", 2), 2);
	assert_int_equal(share_tail_pump(dir, &t, err, sizeof(err)), 0);
	close(fd);
	share_tail_close(&t);
	close(p[1]);
	n = read(p[0], got, sizeof(got) - 1);
	close(p[0]);
	assert_true(n >= 0);
	got[n] = '\0';
	assert_string_equal(got, want);
}

/* The line of a guest's console that says why it died: quoted without its escapes. */
static void test_console_cause(void **state)
{
	char line[256];
	int fd;

	(void)state;
	fd = open(at("console.log"), O_WRONLY | O_CREAT, 0600);
	assert_true(fd >= 0);
	dprintf(fd, "booting\nKernel panic - \x1b]0;pwned\x07not \xc2\x9b" "2Jsyncing\r\nmore\n");
	close(fd);
	console_cause(at_keep("console.log"), line, sizeof(line));
	assert_string_equal(line, "Kernel panic -  ]0;pwned not   2Jsyncing");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain),
		cmocka_unit_test(test_tail_sanitized),
		cmocka_unit_test(test_console_cause),
		cmocka_unit_test(test_fifo),
		cmocka_unit_test(test_symlinks),
		cmocka_unit_test(test_hard_link),
		cmocka_unit_test(test_device),
		cmocka_unit_test(test_too_large),
		cmocka_unit_test(test_tails),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
