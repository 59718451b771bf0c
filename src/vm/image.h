/* The image's boot header (image.c). */
#ifndef TRACETAX_VM_IMAGE_H
#define TRACETAX_VM_IMAGE_H

#include <stddef.h>

/*
 * The kernel release of a bzImage ("6.1.0-57-amd64"), from its setup
 * header; -1 with one line in err if PATH is not a bootable image.
 */
int vm_kernel_release(const char *path, char *release, size_t len, char *err, size_t errlen);

#endif
