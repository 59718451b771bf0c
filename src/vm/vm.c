/* A run in a VM: the image, its initramfs, a boot under KVM or TCG, what the guest left. */
#include <libelf.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "vm/accel.h"
#include "vm/console.h"
#include "vm/guest_cmd.h"
#include "vm/initramfs.h"
#include "vm/modules.h"
#include "vm/qemu.h"
#include "vm/say.h"
#include "vm/share.h"
#include "vm/vm.h"

/* KVM gets this long to reach the initramfs's init; then TCG runs. */
#define KVM_WAIT_S 10.0
/*
 * A TCG guest reaches init in 6-10 s here. One that has not after
 * TCG_WAIT_S is booted once more, with BOOT_LIMIT_S: a CI machine once saw
 * the third of four identical boots hang with nothing on its console, and
 * the boot after such a hang is a fresh emulator, not a rerun of a
 * measurement. One that has not reached init in its second boot did not boot.
 */
#define TCG_WAIT_S 120.0
#define BOOT_LIMIT_S 240.0
/*
 * The guest's time after boot: the plan's estimate on this host, times
 * what emulation costs, plus what a cell costs before its runs (a process
 * start, a BPF load, a tool's start-up: under TCG, tens of times slower
 * and not in the estimate, which calibrated runs dominate), plus a margin.
 * Seen here under TCG on a loaded 2-vCPU host: four cells of the close-1000
 * experiment, estimated at 0.23 s, took 180 s. A deadline that fires on a
 * run that would have ended is worse than a late one: it is generous.
 */
#define DEADLINE_TCG_FACTOR 20
#define DEADLINE_TCG_CELL_S 120.0
#define DEADLINE_KVM_FACTOR 3
#define DEADLINE_KVM_CELL_S 20.0
#define DEADLINE_MARGIN_S 300.0
#define DEADLINE_UNKNOWN_S 1800.0

static void set_deadline(const struct vm_spec *spec, const char *accel, struct vm_outcome *o)
{
	const char *env = getenv("TRACETAX_VM_DEADLINE");
	bool tcg = !strcmp(accel, "tcg");
	int factor = tcg ? DEADLINE_TCG_FACTOR : DEADLINE_KVM_FACTOR;
	double cell = tcg ? DEADLINE_TCG_CELL_S : DEADLINE_KVM_CELL_S;

	if (env && atof(env) > 0) {
		o->deadline_s = atof(env);
		snprintf(o->deadline_why, sizeof(o->deadline_why), "TRACETAX_VM_DEADLINE");
	} else if (spec->estimate_s > 0) {
		o->deadline_s = factor * spec->estimate_s + cell * spec->cells + DEADLINE_MARGIN_S;
		snprintf(o->deadline_why, sizeof(o->deadline_why),
			 "the plan's estimate %.2g s x%d under %s, + %.0f s a cell, + %.0f s",
			 spec->estimate_s, factor, accel, cell, DEADLINE_MARGIN_S);
	} else if (spec->cells > 0) {
		o->deadline_s = DEADLINE_UNKNOWN_S + cell * spec->cells;
		snprintf(o->deadline_why, sizeof(o->deadline_why), "no estimate: %.0f s, + %.0f s a cell",
			 DEADLINE_UNKNOWN_S, cell);
	} else {	/* a command (tracetax vm): no cells */
		o->deadline_s = DEADLINE_UNKNOWN_S;
		snprintf(o->deadline_why, sizeof(o->deadline_why), "no estimate: %.0f s",
			 DEADLINE_UNKNOWN_S);
	}
}

/* The release, the modules, the directory and its initramfs: 0, or -1/-2 with err. */
static int prepare(const struct vm_spec *spec, struct vm_outcome *o, char *tmp, size_t len,
		   char *err, size_t errlen)
{
	static struct vm_modset mods;	/* 130 kB: not on the stack */
	char path[PATH_MAX + 32];
	int rc;

	if (vm_kernel_release(spec->kernel, o->release, sizeof(o->release), err, errlen))
		return -2;
	if ((rc = modules_for_guest(spec->kernel, spec->modules, o->release, &mods, err, errlen)))
		return rc;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return ERR("libelf: %s", elf_errmsg(-1));
	if (tmpdir_make(tmp, len, err, errlen))
		return -1;
	snprintf(path, sizeof(path), "%s/share/run.sh", tmp);
	/* the command is checked before anything boots (a tracetax the guest cannot see) */
	if ((rc = guest_cmd_write(path, "tcg", spec, err, errlen)))
		return tmpdir_remove(tmp), rc;
	snprintf(path, sizeof(path), "%s/initramfs.cpio", tmp);
	if ((rc = initramfs_build(path, &mods, err, errlen)))
		return tmpdir_remove(tmp), rc;
	return 0;
}

/* One boot under @accel, its command written for it. */
static enum boot boot_under(const struct vm_spec *spec, const char *tmp, const char *accel,
			    double limit, struct vm_outcome *o, char *err, size_t errlen)
{
	char path[PATH_MAX + 32];

	snprintf(path, sizeof(path), "%s/share/run.sh", tmp);
	if (guest_cmd_write(path, accel, spec, err, errlen))
		return BOOT_EXITED;
	if (!spec->quiet) {
		if (!strcmp(accel, "kvm"))
			fprintf(stderr, "tracetax: booting kernel %s under kvm (%.0f s to reach init)\n",
				o->release, limit);
		else
			fprintf(stderr, "tracetax: booting kernel %s under tcg (%s)\n", o->release,
				o->accel_note);
		if (accel_icount(accel, spec))
			fprintf(stderr, "tracetax: qemu -icount %s, one vCPU: the guest's figures are "
				"instructions, not ns (TRACETAX_VM_ICOUNT=off: ns)\n", accel_icount_opt());
	}
	snprintf(o->accel, sizeof(o->accel), "%s", accel);
	o->icount = accel_icount(accel, spec);
	set_deadline(spec, accel, o);
	return qemu_boot(spec, tmp, accel, limit, o, err, errlen);
}

/* Seconds from the environment variable @name when it holds a positive number, else @dflt. */
static double env_seconds(const char *name, double dflt)
{
	const char *v = getenv(name);

	return v && atof(v) > 0 ? atof(v) : dflt;
}

/* The share emptied of what a boot that did not run left, before the next boot. */
static void share_empty(const char *tmp)
{
	char share[PATH_MAX];

	snprintf(share, sizeof(share), "%s/share", tmp);
	share_clear(share);
}

/* A TCG boot that did not reach init: what its console last said, kept, and said. */
static void tcg_hung(const struct vm_spec *spec, const char *tmp, const struct vm_outcome *o,
		     double waited)
{
	char path[PATH_MAX + 16], last[256], kept[PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/console.log", tmp);
	log_last_line(path, last, sizeof(last));
	/* a boot stopped early may have no console yet: kept says why */
	bool k = !console_keep(path, o->release, kept, sizeof(kept));

	if (!spec->quiet)
		fprintf(stderr, "tracetax: kernel %s did not reach init in %.1f s under tcg (its "
			"console: %s; %s%s): booting it once more\n", o->release, waited,
			last[0] ? last : "nothing", k ? "" : "not kept: ", kept);
}

/*
 * KVM when it may (see accel.c), TCG when KVM did not reach init. A guest
 * that booted is never rerun: its output has been shown, and a kernel that
 * dies under KVM is worth knowing about, not hiding.
 */
static enum boot boot(const struct vm_spec *spec, const char *tmp, struct vm_outcome *o,
		      char *err, size_t errlen)
{
	uint64_t k0 = now_ns(), t0;
	enum boot b;

	if (accel_try_kvm(o->release, o->accel_note, sizeof(o->accel_note))) {
		b = boot_under(spec, tmp, "kvm", env_seconds("TRACETAX_VM_KVM_WAIT", KVM_WAIT_S), o,
			       err, errlen);
		o->kvm_wait_s = (double)(now_ns() - k0) / 1e9;
		if (b == BOOT_NONE) {
			snprintf(o->accel_note, sizeof(o->accel_note),
				 "kvm: no init after %.1f s (nested virtualization?)", o->kvm_wait_s);
			accel_remember_kvm_hang(o->release);
		} else if (b == BOOT_EXITED) {
			snprintf(o->accel_note, sizeof(o->accel_note), "kvm: %s", err);
		} else {
			return b;
		}
		share_empty(tmp);
	}
	t0 = now_ns();
	b = boot_under(spec, tmp, "tcg", env_seconds("TRACETAX_VM_TCG_WAIT", TCG_WAIT_S), o, err,
		       errlen);
	if (b == BOOT_NONE) {
		tcg_hung(spec, tmp, o, (double)(now_ns() - t0) / 1e9);
		share_empty(tmp);
		b = boot_under(spec, tmp, "tcg", BOOT_LIMIT_S, o, err, errlen);
	}
	if (b == BOOT_NONE) {
		char cause[512], path[PATH_MAX + 16];

		snprintf(path, sizeof(path), "%s/console.log", tmp);
		console_cause(path, cause, sizeof(cause));
		if (!cause[0])
			log_last_line(path, cause, sizeof(cause));
		ERR("kernel '%s' did not boot: no init after %.0f s under tcg, in its second boot%s%s",
		    spec->kernel, BOOT_LIMIT_S, cause[0] ? ": " : "", cause);
	}
	return b;
}

/* A boot that failed: its console kept, and named after err. */
static void keep_console(const char *tmp, const struct vm_outcome *o, char *err, size_t errlen)
{
	char path[PATH_MAX + 16], kept[PATH_MAX + 64];
	size_t n = strlen(err);

	snprintf(path, sizeof(path), "%s/console.log", tmp);
	if (!console_keep(path, o->release, kept, sizeof(kept)))
		snprintf(err + n, errlen - n, "; its console log: %s", kept);
	else
		snprintf(err + n, errlen - n, "; its console log not kept: %s", kept);
}

/* What the guest left in the share: its exit code, its document, its leftovers. */
static int collect(const char *tmp, struct vm_outcome *o, char *err, size_t errlen)
{
	char share[PATH_MAX], *rc = NULL, *end;
	long code;

	snprintf(share, sizeof(share), "%s/share", tmp);
	if (share_read(share, "rc", SHARE_RC_MAX, &rc, err, errlen) < 0 ||
	    share_read(share, "result.json", SHARE_DOC_MAX, &o->document, err, errlen) < 0 ||
	    share_read(share, "left", SHARE_LEFT_MAX, &o->left, err, errlen) < 0) {
		free(rc);
		return -1;
	}
	code = rc ? strtol(rc, &end, 10) : -1;
	if (!rc || end == rc || (*end && *end != '\n') || code < 0 || code > 255) {
		free(rc);
		return ERR("the guest's share: 'rc' holds no exit code");
	}
	free(rc);
	o->exit_code = (int)code;
	/* the guest's words, printed by the host: no terminal controls */
	for (char *p = o->left; p && *p; p++)
		if (((unsigned char)*p < ' ' && *p != '\n') || *p == 0x7f)
			*p = '?';
	return 0;
}

int vm_run(const struct vm_spec *spec, struct vm_outcome *o, char *err, size_t errlen)
{
	char tmp[PATH_MAX];
	uint64_t t0 = now_ns();
	enum boot b;
	int rc;

	memset(o, 0, sizeof(*o));
	o->exit_code = -1;
	if ((rc = prepare(spec, o, tmp, sizeof(tmp), err, errlen)))
		return rc;
	b = boot(spec, tmp, o, err, errlen);
	if (b == BOOT_SIGNAL)
		rc = 128 + o->signal;
	else if (b == BOOT_RAN)
		rc = collect(tmp, o, err, errlen);
	else if (b == BOOT_SHARE)
		rc = -1;
	else
		keep_console(tmp, o, err, errlen), rc = -1;
	if (rc == -1)
		vm_outcome_release(o);
	o->total_s = (double)(now_ns() - t0) / 1e9;
	tmpdir_remove(tmp);
	return rc;
}

void vm_outcome_release(struct vm_outcome *o)
{
	free(o->document);
	free(o->left);
	o->document = NULL;
	o->left = NULL;
}
