/* A newc cpio archive, as the kernel unpacks an initramfs: 110-byte headers, 4-byte aligned. */
#include <stdio.h>
#include <string.h>

#include "vm/cpio.h"

int cpio_add(struct vm_buf *b, const char *name, unsigned mode, unsigned rmaj, unsigned rmin,
	     const void *data, size_t size)
{
	static unsigned ino = 1;
	static const char zeros[4];
	char hdr[111];
	size_t nlen = strlen(name) + 1;

	snprintf(hdr, sizeof(hdr),
		 "070701%08X%08X%08X%08X%08X%08X%08zX%08X%08X%08X%08X%08zX%08X",
		 ino++, mode, 0u, 0u, 1u, 0u, size, 0u, 0u, rmaj, rmin, nlen, 0u);
	if (buf_put(b, hdr, 110) || buf_put(b, name, nlen) ||
	    buf_put(b, zeros, (4 - (110 + nlen) % 4) % 4) ||
	    (size && buf_put(b, data, size)) || buf_put(b, zeros, (4 - size % 4) % 4))
		return -1;
	return 0;
}
