/* KVM or TCG: whether KVM is worth its wait, remembered per host and kernel (accel.c). */
#ifndef TRACETAX_VM_ACCEL_H
#define TRACETAX_VM_ACCEL_H

#include <stdbool.h>
#include <stddef.h>

#include "vm/spec.h"

/* 1: try KVM for kernel @release; 0: go to TCG, @why says why. */
int accel_try_kvm(const char *release, char *why, size_t len);
/* KVM did not reach init with kernel @release here: the next runs go to TCG at once. */
void accel_remember_kvm_hang(const char *release);
/*
 * Whether a guest under @accel runs with qemu's instruction counter
 * (`-icount shift=0`: its clock advances 1 ns a guest instruction, so its
 * ns are instructions). A measurement under TCG does, unless
 * TRACETAX_VM_ICOUNT=off; KVM never, nor a command that measures nothing
 * (spec->no_icount: tracetax vm). docs/vm.md.
 */
bool accel_icount(const char *accel, const struct vm_spec *spec);
/*
 * The -icount option's value: "shift=0,sleep=on"; TRACETAX_VM_ICOUNT_SLEEP=off
 * makes it sleep=off, exact to a tenth of an instruction but with a clock
 * that jumps when the guest idles, so that its waits time out (docs/vm.md).
 */
const char *accel_icount_opt(void);

#endif
