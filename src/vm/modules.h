/* The modules that give the guest its 9p root, in modprobe's order (modules.c). */
#ifndef TRACETAX_VM_MODULES_H
#define TRACETAX_VM_MODULES_H

#include <limits.h>

#define VM_MAX_MODULES 32

struct vm_module {
	char name[64];          /* virtio_pci */
	char path[PATH_MAX];    /* the .ko, .ko.xz, .ko.zst or .ko.gz */
};

struct vm_modset {
	char dir[PATH_MAX];     /* lib/modules/VERSION; "": none, all built in */
	struct vm_module mod[VM_MAX_MODULES];
	int n;
};

/*
 * The image's modules (--kernel-modules @given, else beside @kernel, else
 * the host's /lib/modules/@release) that virtio and 9p need, dependencies
 * first. 0; -1 or -2 (bad input) with one line in err.
 */
int modules_for_guest(const char *kernel, const char *given, const char *release,
		      struct vm_modset *s, char *err, size_t errlen);

#endif
