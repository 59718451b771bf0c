/* A module as insmod wants it (decompress.c). */
#ifndef TRACETAX_VM_DECOMPRESS_H
#define TRACETAX_VM_DECOMPRESS_H

#include <stddef.h>

#include "vm/buf.h"

/* @path's module appended to @b, undone by xz, zstd or gzip when it ends so: 0, or -1 and err. */
int decompress_module(const char *path, struct vm_buf *b, char *err, size_t errlen);

#endif
