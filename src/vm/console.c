/*
 * A guest that dies says why on its console, then more: a panic ends with
 * "Kernel Offset: ..." and "---[ end Kernel panic ...". The cause is the
 * first line that names a failure, not the last line.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "vm/console.h"
#include "vm/state.h"

static const char *const causes[] = {
	"tracetax-vm: ", "Kernel panic", "BUG:", "kernel BUG at", "Oops", "general protection fault",
	"Unable to handle", "detected stall", "soft lockup", "hard LOCKUP", "blocked for more than",
	"Attempted to kill init",
};

/*
 * Control characters (the guest's) as spaces, C1 ones too (UTF-8's C2
 * 80..9F: CSI for a terminal that reads them); \r and leading blanks gone.
 */
static void printable(char *s)
{
	size_t lead;

	for (unsigned char *p = (unsigned char *)s; *p; p++)
		if (*p < ' ' || *p == 0x7f)
			*p = ' ';
		else if (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f)
			p[0] = p[1] = ' ';
	lead = strspn(s, " ");
	memmove(s, s + lead, strlen(s + lead) + 1);
	for (size_t n = strlen(s); n && s[n - 1] == ' '; n--)
		s[n - 1] = '\0';
}

void log_last_line(const char *path, char *line, size_t len)
{
	char buf[4096];
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	off_t size;
	ssize_t n;

	line[0] = '\0';
	if (fd < 0)
		return;
	size = lseek(fd, 0, SEEK_END);
	n = pread(fd, buf, sizeof(buf) - 1, size > (off_t)sizeof(buf) - 1 ?
		  size - (off_t)sizeof(buf) + 1 : 0);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = '\0';
	for (char *save = NULL, *t = strtok_r(buf, "\n", &save); t; t = strtok_r(NULL, "\n", &save)) {
		printable(t);
		if (*t)
			snprintf(line, len, "%s", t);
	}
}

void console_cause(const char *path, char *line, size_t len)
{
	char buf[1024];
	FILE *f = fopen(path, "re");

	line[0] = '\0';
	if (!f)
		return;
	while (!line[0] && fgets(buf, sizeof(buf), f))
		for (size_t i = 0; i < sizeof(causes) / sizeof(causes[0]); i++)
			if (strstr(buf, causes[i])) {
				printable(buf);
				snprintf(line, len, "%s", buf);
				break;
			}
	fclose(f);
}

int console_keep(const char *path, const char *release, char *kept, size_t len)
{
	char dir[PATH_MAX], buf[65536], name[128];
	int in, out, rc = 0;
	ssize_t n;

	if (vm_state_dir(dir, sizeof(dir))) {
		snprintf(kept, len, "%s", dir);
		return -1;
	}
	snprintf(name, sizeof(name), "%s", release);
	for (char *p = name; *p; p++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-+", *p))
			*p = '_';
	snprintf(kept, len, "%s/vm-console-%s.log", dir, name);
	in = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (in < 0) {
		snprintf(kept, len, "no console log: %s", strerror(errno));
		return -1;
	}
	unlink(kept);
	out = open(kept, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	while (out >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			rc = -1;
	if (out < 0 || close(out) || rc) {
		snprintf(kept, len, "cannot write '%s/vm-console-%s.log': %s", dir, name,
			 strerror(errno));
		rc = -1;
	}
	close(in);
	return rc;
}
