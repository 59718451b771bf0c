#ifndef TRACETAX_VM_H
#define TRACETAX_VM_H

/*
 * tracetax in a VM (`run --kernel PATH`): boots a kernel image under qemu
 * with an initramfs of busybox and the image's virtio and 9p modules,
 * shares the host's root read-only over virtio-9p, chroots into it and runs
 * this same tracetax there. A second 9p share, a directory of the host's
 * /tmp, carries the command in and its output, exit code and results
 * document out. KVM is tried first, within a time limit; TCG otherwise.
 * docs/vm.md. One job a file:
 *   image.c      the boot header and the release it names
 *   pvh.c        its vmlinux, for qemu to boot at the PVH entry
 *   modules.c    which modules, in depmod's order; decompress.c their bytes
 *   initramfs.c  busybox, the modules and the init, as a cpio (cpio.c)
 *   guest_cmd.c  the guest's command line (the share's run.sh)
 *   accel.c      KVM or TCG, a KVM hang remembered (state.c: where)
 *   qemu.c       one boot: start, wait, deadline, kill
 *   share.c      the guest's files, read as untrusted input
 *   console.c    why a guest died, and its log kept
 *   tmpdir.c     the directory under /tmp, and those of a killed tracetax
 *   vm.c         the run: these, in order
 */

#include <stddef.h>

#include "vm/image.h"
#include "vm/spec.h"
#include "vm/tmpdir.h"

/*
 * Boots the VM and runs the guest tracetax with spec->argv. 0 when the guest
 * ran (o->exit_code its exit), -1 with err when the VM could not be set up,
 * did not boot, died, outlived its deadline or left a share the host
 * refuses; -2 bad input; 128+N when signal N interrupted it. qemu is killed
 * and the temporary directory removed on every path; a failed boot's
 * console log is kept, and err names it.
 */
int vm_run(const struct vm_spec *spec, struct vm_outcome *o, char *err, size_t errlen);
void vm_outcome_release(struct vm_outcome *o);

#endif
