/* One boot of the guest under qemu, from its start to its end (qemu.c). */
#ifndef TRACETAX_VM_QEMU_H
#define TRACETAX_VM_QEMU_H

#include <stddef.h>

#include "vm/spec.h"

enum boot {
	BOOT_RAN,          /* the guest's command ran and said its exit code */
	BOOT_NONE,         /* no init within the limit */
	BOOT_EXITED,       /* qemu ended before the init */
	BOOT_DIED,         /* the guest died after its init: a panic, a poweroff */
	BOOT_DEADLINE,     /* its command outlived o->deadline_s */
	BOOT_SHARE,        /* the share held what the host refuses */
	BOOT_SIGNAL,       /* we were interrupted: o->signal */
};

/*
 * Boots @tmp's initramfs and the share's run.sh under @accel; waits for the
 * guest's init (the share's "booted") at most @limit s, then for qemu's end
 * at most o->deadline_s (0: none), copying the guest's output as it comes.
 * qemu is killed on every path. What went wrong is one line in err (the
 * console's log not named: the caller keeps it).
 */
enum boot qemu_boot(const struct vm_spec *spec, const char *tmp, const char *accel, double limit,
		    struct vm_outcome *o, char *err, size_t errlen);

#endif
