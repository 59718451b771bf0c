/* The vmlinux qemu boots straight into, undone once from a bzImage (pvh.c). */
#ifndef TRACETAX_VM_PVH_H
#define TRACETAX_VM_PVH_H

#include <stdbool.h>
#include <stddef.h>

/*
 * The uncompressed vmlinux of bzImage @image (kernel @release), with its
 * PVH entry note, in the state directory (undone by xz, gzip or zstd the
 * first time, kept by the image's size and time): 0 and its path in @out.
 * -1 where there is none (TRACETAX_VM_PVH=off, a payload of another kind,
 * no CONFIG_PVH, no tool, no state directory): the bzImage boots instead.
 */
int vm_pvh_kernel(const char *image, const char *release, char *out, size_t len);

#endif
