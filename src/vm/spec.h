/* What a VM run is asked to do, and what came of it (vm.h runs it). */
#ifndef TRACETAX_VM_SPEC_H
#define TRACETAX_VM_SPEC_H

#include <limits.h>
#include <stdbool.h>

/* What the guest's tracetax finds in its environment: "kvm" or "tcg". */
#define VM_ENV "TRACETAX_VM"
/*
 * Set to "instructions" in a guest whose clock is qemu's instruction
 * counter (-icount shift=0, accel.c): a guest ns is a guest instruction.
 */
#define VM_UNIT_ENV "TRACETAX_VM_UNIT"
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
	double estimate_s;             /* how long the guest's work should take on
	                                  this host (the plan's estimate); 0: unknown */
	int cells;                     /* and in how many cells: the deadline after
	                                  boot is made of both */
	bool no_icount;                /* a command, not a measurement (tracetax vm):
	                                  TCG without -icount, every CPU (accel.c) */
};

struct vm_outcome {
	char release[128];             /* the image's kernel release */
	char accel[8];                 /* "kvm", "tcg" */
	bool icount;                   /* tcg with -icount: the guest's ns are instructions */
	char accel_note[PATH_MAX + 100]; /* why not KVM, when TCG ran */
	double kvm_wait_s;             /* how long KVM was given before TCG */
	double boot_s;                 /* qemu start to the guest's init */
	double deadline_s;             /* the guest's time after boot */
	char deadline_why[128];        /* how that came about */
	double total_s;
	int exit_code;                 /* the guest's tracetax, or -1 */
	char *document;                /* VM_GUEST_DIR/result.json, or NULL; free() */
	int signal;                    /* interrupted by this signal, or 0 */
	char *left;                    /* the guest's tracing state that its tracetax
	                                  left (tracefs events, instances, tracer, BPF
	                                  programs), a line each, printable; "" none; free() */
};

#endif
