/* The share's I/O: the guest's files, read as untrusted input. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/util.h"
#include "base/write_full.h"
#include "vm/buf.h"
#include "vm/say.h"
#include "vm/share.h"

/* What is wrong with a file of the share, or NULL: a regular file of one name. */
static const char *not_plain(const struct stat *st)
{
	if (S_ISLNK(st->st_mode))
		return "is a symbolic link";
	if (!S_ISREG(st->st_mode))
		return "is not a regular file";
	if (st->st_nlink != 1)
		return "has another name (a hard link)";
	return NULL;
}

/*
 * @dir/@name opened for reading: the fd; -2 no such file; -1 refused, err
 * set. A device node must never be opened (an open can have effects of
 * its own), and a name checked then opened can be another file by the
 * open: the name is opened O_PATH|O_NOFOLLOW (which opens nothing: no
 * device's open, no FIFO's wait, a symlink itself), that inode checked
 * with fstat, and that same inode then opened for reading through
 * /proc/self/fd, O_NONBLOCK and O_NOCTTY.
 */
static int share_open(const char *dir, const char *name, char *err, size_t errlen)
{
	char path[PATH_MAX], self[64];
	struct stat st;
	const char *bad = NULL;
	int pfd, fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	pfd = open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (pfd < 0)
		return errno == ENOENT ? -2 : ERR("the guest's share: '%s': %s", name, strerror(errno));
	if (fstat(pfd, &st) || (bad = not_plain(&st))) {
		int e = errno;

		close(pfd);
		return ERR("the guest's share: '%s' %s", name, bad ? bad : strerror(e));
	}
	snprintf(self, sizeof(self), "/proc/self/fd/%d", pfd);
	fd = open(self, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	close(pfd);
	if (fd < 0)
		return ERR("the guest's share: '%s': %s", name, strerror(errno));
	return fd;
}

int share_read(const char *dir, const char *name, size_t max, char **out, char *err,
	       size_t errlen)
{
	struct vm_buf b = { 0 };
	char words[32];
	int fd = share_open(dir, name, err, errlen), rc;

	*out = NULL;
	if (fd == -2)
		return 1;
	if (fd < 0)
		return -1;
	rc = buf_read_fd(fd, &b, max);
	close(fd);
	if (!rc && buf_put(&b, "", 1))
		rc = -1;
	if (rc) {
		free(b.p);
		return rc == -2 ? ERR("the guest's share: '%s' is larger than %s", name,
				      size_words(max, words, sizeof(words))) :
				  ERR("the guest's share: cannot read '%s': %s", name, strerror(errno));
	}
	*out = b.p;
	return 0;
}

bool share_has(const char *dir, const char *name)
{
	char path[PATH_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return !lstat(path, &st);
}

void share_clear(const char *dir)
{
	static const char *const names[] = { "booted", "stdout", "stderr", "rc", "rc.tmp",
					     "result.json", "left" };
	char path[PATH_MAX];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		unlink(path);
	}
}

/*
 * What the guest printed, on its way to the host's terminal: the guest's
 * root may print anything, and an escape sequence moves the cursor,
 * retitles the window or rewrites what tracetax said. Every control
 * character but a newline and a tab is shown in caret notation (ESC as
 * "^[", CR as "^M", DEL as "^?"), and so is a C1 one, UTF-8's C2 80..9F
 * (CSI for a terminal that reads them), as "^[" and its letter ("^[[" for
 * CSI). @t->lead holds a C2 that ended the last read. Into @out, at most
 * 3 bytes of it for each byte of @in: its length.
 */
static size_t sanitize(struct share_tail *t, const unsigned char *in, size_t n, char *out)
{
	size_t o = 0;

	for (size_t i = 0; i < n; i++) {
		unsigned char c = in[i];

		if (t->lead) {
			t->lead = false;
			if (c >= 0x80 && c <= 0x9f) {
				out[o++] = '^';
				out[o++] = '[';
				out[o++] = (char)(c - 0x80 + 0x40);
				continue;
			}
			out[o++] = (char)0xc2;
		}
		if (c == 0xc2) {
			t->lead = true;
		} else if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f) {
			out[o++] = '^';
			out[o++] = c == 0x7f ? '?' : (char)(c + 0x40);
		} else {
			out[o++] = (char)c;
		}
	}
	return o;
}

int share_tail_pump(const char *dir, struct share_tail *t, char *err, size_t errlen)
{
	char buf[65536], clean[3 * sizeof(buf) + 1], words[32];
	ssize_t n;

	if (t->fd < 0) {
		t->fd = share_open(dir, t->name, err, errlen);
		if (t->fd == -2)
			return 0;
		if (t->fd < 0)
			return -1;
	}
	while ((n = read(t->fd, buf, sizeof(buf))) > 0) {
		if (t->copied + (size_t)n > SHARE_TAIL_MAX)
			return ERR("the guest's share: '%s' is larger than %s", t->name,
				   size_words(SHARE_TAIL_MAX, words, sizeof(words)));
		t->copied += (size_t)n;
		if (!write_full(t->out, clean, sanitize(t, (unsigned char *)buf, (size_t)n, clean)))
			break;
	}
	return 0;
}

void share_tail_close(struct share_tail *t)
{
	/* a C2 the guest's last byte: a character of its own, not a C1's first half */
	if (t->lead && write_full(t->out, "\xc2", 1))
		t->lead = false;
	if (t->fd >= 0)
		close(t->fd);
	t->fd = -1;
}
