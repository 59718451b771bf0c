/* Files written whole or not at all (base/atomic_file.h). */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/atomic_file.h"
#include "base/util.h"

/*
 * A temporary of our own beside @path: ".NAME.tmp.XXXXXX" in its directory
 * (the rename stays on one filesystem; a dot, so node_exporter's *.prom
 * never matches it), created with O_EXCL|O_NOFOLLOW: a file or symlink
 * someone planted at a name is never opened, let alone truncated. The
 * mode is 0644 less the umask, as open() gives. Returns the fd and the
 * name in *@tmp (to free), or -1 with errno set.
 */
static int tmp_create(const char *path, char **tmp)
{
	char *d = strdup(path), *b = strdup(path), *dir, *base;
	int fd = -1, e = EEXIST;

	if (!d || !b)
		die("out of memory");
	dir = dirname(d);
	base = basename(b);
	*tmp = NULL;
	for (int tries = 0; tries < 100 && fd < 0 && e == EEXIST; tries++) {
		uint64_t r;

		if (getrandom(&r, sizeof(r), 0) != sizeof(r))
			r = (uint64_t)getpid() << 24 ^ (uint64_t)time(NULL) ^ (uint64_t)tries;
		free(*tmp);
		if (asprintf(tmp, "%s/.%s.tmp.%06llx", dir, base, (unsigned long long)(r & 0xffffff)) < 0)
			die("out of memory");
		fd = open(*tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		e = errno;
	}
	free(d);
	free(b);
	errno = e;
	return fd;
}

/* The rename is durable only once the directory entry is on disk too. */
static int fsync_dir(const char *path)
{
	char *copy = strdup(path);
	int fd, ret = -1;

	if (!copy)
		die("out of memory");
	fd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		ret = fsync(fd);
		/* some filesystems cannot sync a directory: the file itself is */
		if (ret < 0 && (errno == EINVAL || errno == EBADF))
			ret = 0;
		close(fd);
	}
	free(copy);
	return ret;
}

int atomic_file_write(const char *path, int (*fn)(FILE *f, void *arg), void *arg)
{
	char *tmp;
	FILE *f;
	int fd, ret;

	if (!path || !strcmp(path, "-")) {
		ret = fn(stdout, arg);
		if (fflush(stdout) || ret)
			return error("cannot write to stdout: %s", strerror(errno));
		return 0;
	}
	fd = tmp_create(path, &tmp);
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		ret = error("cannot create a temporary beside '%s': %s", path, strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(tmp);
		}
		free(tmp);
		return ret;
	}
	ret = fn(f, arg);
	if (ret || fflush(f) || fsync(fileno(f)))
		ret = error("cannot write '%s': %s", tmp, strerror(errno));
	if (fclose(f) && !ret)
		ret = error("cannot write '%s': %s", tmp, strerror(errno));
	if (!ret && rename(tmp, path) < 0)
		ret = error("cannot rename '%s' to '%s': %s", tmp, path, strerror(errno));
	if (ret)
		unlink(tmp);
	else if (fsync_dir(path) < 0)
		ret = error("cannot sync the directory of '%s': %s", path, strerror(errno));
	free(tmp);
	return ret;
}

static int put_text(FILE *f, void *text)
{
	return fputs(text, f) < 0 ? -1 : 0;
}

int atomic_file_text(const char *path, const char *text)
{
	return atomic_file_write(path, put_text, (void *)text);
}

int atomic_file_check(const char *path, char *err, size_t len)
{
	struct stat st;
	char *tmp;
	int fd, e;

	if (!strcmp(path, "-"))
		return 0;
	if (!stat(path, &st) && S_ISDIR(st.st_mode)) {
		snprintf(err, len, "cannot write results to '%s': %s", path, strerror(EISDIR));
		return -1;
	}
	fd = tmp_create(path, &tmp);
	e = errno;
	if (fd >= 0) {
		close(fd);
		unlink(tmp);
	}
	free(tmp);
	if (fd < 0) {
		snprintf(err, len, "cannot write results to '%s': %s", path, strerror(e));
		return -1;
	}
	return 0;
}
