/* The guest's initramfs: busybox, the modules and the init script (initramfs.c). */
#ifndef TRACETAX_VM_INITRAMFS_H
#define TRACETAX_VM_INITRAMFS_H

#include <stddef.h>

#include "vm/modules.h"

/* Writes it to @path: 0, or -1 and err. */
int initramfs_build(const char *path, const struct vm_modset *s, char *err, size_t errlen);

#endif
