/* A growing buffer, and a whole fd read into one, within a cap. */
#ifndef TRACETAX_VM_BUF_H
#define TRACETAX_VM_BUF_H

#include <stddef.h>

struct vm_buf {
	char *p;
	size_t n, cap;
};

/* 0, or -1: out of memory. */
int buf_put(struct vm_buf *b, const void *p, size_t n);
/* What @fd holds until its end, at most @max bytes: 0; -1 a read error or
 * out of memory (errno); -2 more than @max. */
int buf_read_fd(int fd, struct vm_buf *b, size_t max);

#endif
