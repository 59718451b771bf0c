/* The initramfs's format: a newc cpio archive, uncompressed (cpio.c). */
#ifndef TRACETAX_VM_CPIO_H
#define TRACETAX_VM_CPIO_H

#include <stddef.h>

#include "vm/buf.h"

/* One entry appended to @b (mode as stat's; a device's major, minor); "TRAILER!!!" ends it. 0, or -1. */
int cpio_add(struct vm_buf *b, const char *name, unsigned mode, unsigned rmaj, unsigned rmin,
	     const void *data, size_t size);

#endif
