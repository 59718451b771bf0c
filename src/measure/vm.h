#ifndef TRACETAX_VM_H
#define TRACETAX_VM_H

#include <stdbool.h>
#include <stddef.h>

/*
 * tracetax in a VM (`run --kernel PATH`): boots a kernel image under qemu
 * with an initramfs of busybox and the image's virtio and 9p modules,
 * shares the host's root read-only over virtio-9p, chroots into it and runs
 * this same tracetax there. A second 9p share, a directory of the host's
 * /tmp, carries the command in and its output, exit code and results
 * document out. KVM is tried first, within a time limit; TCG otherwise.
 * docs/vm.md.
 */

/* What the guest's tracetax finds in its environment: "kvm" or "tcg". */
#define VM_ENV "TRACETAX_VM"
/* Where the share is mounted inside the guest (after the chroot). */
#define VM_GUEST_DIR "/run/tracetax-vm"

struct vm_spec {
	const char *kernel;            /* the image */
	const char *modules;           /* --kernel-modules, or NULL: beside the image */
	bool quiet;                    /* no progress lines on stderr */
	bool stdout_to_stderr;         /* the guest's stdout goes to our stderr */
	const char *exe;               /* what the guest runs; NULL: this tracetax */
	const char *const *argv;       /* its arguments, NULL-ended (without the
	                                  program name) */
};

struct vm_outcome {
	char release[128];             /* the image's kernel release */
	char accel[8];                 /* "kvm", "tcg" */
	char accel_note[200];          /* why not KVM, when TCG ran */
	double kvm_wait_s;             /* how long KVM was given before TCG */
	double boot_s;                 /* qemu start to the guest's init */
	double total_s;
	int exit_code;                 /* the guest's tracetax, or -1 */
	char *document;                /* VM_GUEST_DIR/result.json, or NULL; free() */
	int signal;                    /* interrupted by this signal, or 0 */
	char *left;                    /* the guest's tracing state that its tracetax
	                                  left (tracefs events, instances, tracer, BPF
	                                  programs), a line each; "" none; free() */
};

/*
 * The kernel release of a bzImage ("6.1.0-57-amd64"), from its setup
 * header; -1 with one line in err if PATH is not a bootable image.
 */
int vm_kernel_release(const char *path, char *release, size_t len, char *err, size_t errlen);

/*
 * Boots the VM and runs the guest tracetax with spec->argv. 0 when the guest
 * ran (o->exit_code its exit), -1 with err when the VM could not be set up
 * or did not boot, or 128+N when signal N interrupted it. qemu is killed and
 * the temporary directory removed on every path.
 */
int vm_run(const struct vm_spec *spec, struct vm_outcome *o, char *err, size_t errlen);
void vm_outcome_release(struct vm_outcome *o);

/* Removes the temporary directories of VMs whose tracetax was killed. */
int vm_cleanup_stale(int *removed);

#endif
