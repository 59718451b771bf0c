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
 * set. lstat first, so that a device node is never opened (an open can
 * have effects of its own); O_NOFOLLOW and fstat again, for a name
 * replaced in between; O_NONBLOCK, for a FIFO made in between.
 */
static int share_open(const char *dir, const char *name, char *err, size_t errlen)
{
	char path[PATH_MAX];
	struct stat st;
	const char *bad;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (lstat(path, &st))
		return errno == ENOENT ? -2 : ERR("the guest's share: '%s': %s", name, strerror(errno));
	if ((bad = not_plain(&st)))
		return ERR("the guest's share: '%s' %s", name, bad);
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return errno == ELOOP ? ERR("the guest's share: '%s' is a symbolic link", name) :
		       errno == ENOENT ? -2 : ERR("the guest's share: '%s': %s", name, strerror(errno));
	if (fstat(fd, &st) || (bad = not_plain(&st))) {
		close(fd);
		return ERR("the guest's share: '%s' %s", name, bad ? bad : strerror(errno));
	}
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

int share_tail_pump(const char *dir, struct share_tail *t, char *err, size_t errlen)
{
	char buf[65536], words[32];
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
		if (write(t->out, buf, (size_t)n) < 0)
			break;
	}
	return 0;
}

void share_tail_close(struct share_tail *t)
{
	if (t->fd >= 0)
		close(t->fd);
	t->fd = -1;
}
