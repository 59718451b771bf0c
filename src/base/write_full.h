/* All of @len bytes to @fd, through short writes and EINTR: true when all
 * went. Header-only: tracetax-load (its result lines, the TCP workload's
 * echo) links none of base's objects, the VM's share writes through it too. */
#ifndef TRACETAX_WRITE_FULL_H
#define TRACETAX_WRITE_FULL_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <unistd.h>

static inline bool write_full(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		buf += n;
		len -= (size_t)n;
	}
	return true;
}

#endif
