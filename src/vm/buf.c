/* A growing buffer: the initramfs, a module, a file of the share. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vm/buf.h"

int buf_put(struct vm_buf *b, const void *p, size_t n)
{
	if (b->n + n > b->cap) {
		size_t cap = b->cap ? b->cap : 65536;
		char *q;

		while (cap < b->n + n)
			cap *= 2;
		q = realloc(b->p, cap);
		if (!q)
			return -1;
		b->p = q;
		b->cap = cap;
	}
	memcpy(b->p + b->n, p, n);
	b->n += n;
	return 0;
}

int buf_read_fd(int fd, struct vm_buf *b, size_t max)
{
	char chunk[65536];
	ssize_t n;

	while ((n = read(fd, chunk, sizeof(chunk))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || buf_put(b, chunk, (size_t)n))
			return -1;
		if (b->n > max)
			return -2;
	}
	return 0;
}
