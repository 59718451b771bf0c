/* The guest's command: the share's run.sh, which the init runs in its chroot (guest_cmd.c). */
#ifndef TRACETAX_VM_GUEST_CMD_H
#define TRACETAX_VM_GUEST_CMD_H

#include <stddef.h>

#include "vm/spec.h"

/* Writes @path: spec's program and arguments, in our working directory and
 * environment, with VM_ENV=@accel. 0; -1 or -2 (bad input) and err. */
int guest_cmd_write(const char *path, const char *accel, const struct vm_spec *spec, char *err,
		    size_t errlen);

#endif
