/* A module's bytes, decompressed by its tool when it is compressed. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/signals.h"
#include "vm/decompress.h"
#include "vm/say.h"

/*
 * A module as the kernel's insmod wants it: busybox's insmod may not read a
 * compressed one, so xz, zstd and gzip are undone here by their tools.
 */
int decompress_module(const char *path, struct vm_buf *b, char *err, size_t errlen)
{
	static const struct { const char *ext, *tool; } z[] = {
		{ ".xz", "xz" }, { ".zst", "zstd" }, { ".gz", "gzip" },
	};
	size_t len = strlen(path);
	const char *tool = NULL;
	int pfd[2], status, fd;
	pid_t pid;

	for (size_t i = 0; i < sizeof(z) / sizeof(z[0]); i++)
		if (len > strlen(z[i].ext) && !strcmp(path + len - strlen(z[i].ext), z[i].ext))
			tool = z[i].tool;
	if (!tool) {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return ERR("cannot read module '%s': %s", path, strerror(errno));
		status = buf_read_fd(fd, b, (size_t)-1);
		close(fd);
		return status ? ERR("cannot read module '%s'", path) : 0;
	}
	if (pipe2(pfd, O_CLOEXEC))
		return ERR("pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return ERR("fork: %s", strerror(errno));
	}
	if (!pid) {
		dup2(pfd[1], 1);
		signals_unblock_in_child();
		execlp(tool, tool, "-dc", path, (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	fd = buf_read_fd(pfd[0], b, (size_t)-1);
	close(pfd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (fd || !WIFEXITED(status) || WEXITSTATUS(status))
		return ERR("cannot decompress module '%s' with %s%s", path, tool,
			   WIFEXITED(status) && WEXITSTATUS(status) == 127 ? " (not installed)" : "");
	return 0;
}
