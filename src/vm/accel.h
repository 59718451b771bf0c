/* KVM or TCG: whether KVM is worth its wait, remembered per host and kernel (accel.c). */
#ifndef TRACETAX_VM_ACCEL_H
#define TRACETAX_VM_ACCEL_H

#include <stddef.h>

/* 1: try KVM for kernel @release; 0: go to TCG, @why says why. */
int accel_try_kvm(const char *release, char *why, size_t len);
/* KVM did not reach init with kernel @release here: the next runs go to TCG at once. */
void accel_remember_kvm_hang(const char *release);

#endif
