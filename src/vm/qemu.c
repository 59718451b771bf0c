/* qemu's lifecycle: started as our child, watched until it ends, killed on every path. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/signals.h"
#include "base/util.h"
#include "vm/accel.h"
#include "vm/console.h"
#include "vm/pvh.h"
#include "vm/qemu.h"
#include "vm/say.h"
#include "vm/share.h"

static pid_t qemu_start(const char *tmp, const struct vm_spec *spec, const char *release,
			const char *accel, char *err, size_t errlen)
{
	char initrd[PATH_MAX], serial[PATH_MAX + 8], qerr[PATH_MAX], root[128], out[PATH_MAX + 64];
	char smp[16], kpath[PATH_MAX];
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	pid_t pid;

	snprintf(initrd, sizeof(initrd), "%s/initramfs.cpio", tmp);
	snprintf(serial, sizeof(serial), "file:%s/console.log", tmp);
	snprintf(qerr, sizeof(qerr), "%s/qemu.log", tmp);
	snprintf(root, sizeof(root), "local,id=ttroot,path=/,readonly=on,security_model=none,"
		 "multidevs=remap");
	snprintf(out, sizeof(out), "local,id=ttout,path=%s/share,security_model=none", tmp);
	bool icount = accel_icount(accel, spec);

	/* one vCPU under icount: with two, the boot hangs at "Booting SMP configuration" */
	snprintf(smp, sizeof(smp), "%ld", icount || cpus < 1 ? 1 : cpus > 8 ? 8 : cpus);
	/* its vmlinux where it has one, booted by qemu straight at its PVH entry (pvh.c) */
	if (vm_pvh_kernel(spec->kernel, release, kpath, sizeof(kpath)))
		snprintf(kpath, sizeof(kpath), "%s", spec->kernel);
	const char *argv[] = {
		"qemu-system-x86_64", "-accel", accel, "-smp", smp, "-m", "2G",
		"-nodefaults", "-no-user-config", "-display", "none", "-no-reboot",
		"-serial", serial, "-kernel", kpath, "-initrd", initrd,
		"-append", "console=ttyS0 loglevel=4 panic=-1 clocksource=tsc tsc=reliable",
		"-fsdev", root, "-device", "virtio-9p-pci,fsdev=ttroot,mount_tag=ttroot",
		"-fsdev", out, "-device", "virtio-9p-pci,fsdev=ttout,mount_tag=ttout",
		NULL, NULL, NULL,
	};

	if (icount) {
		size_t n = sizeof(argv) / sizeof(argv[0]) - 3;

		argv[n] = "-icount";
		argv[n + 1] = accel_icount_opt();
	}

	pid = fork();
	if (pid < 0)
		return ERR("fork: %s", strerror(errno));
	if (!pid) {
		int fd = open(qerr, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		int nul = open("/dev/null", O_RDWR | O_CLOEXEC);

		/* qemu dies with us, even of SIGKILL */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() == 1)
			_exit(127);
		dup2(nul, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		signals_unblock_in_child();
		execvp(argv[0], (char *const *)argv);
		dprintf(2, "cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	return pid;
}

static void qemu_stop(pid_t pid)
{
	if (pid <= 0)
		return;
	kill(pid, SIGKILL);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
}

static double since_s(uint64_t t0)
{
	return (double)(now_ns() - t0) / 1e9;
}

/* The guest reached its init: when, and what it has from now on. */
static uint64_t booted(const struct vm_spec *spec, const char *accel, uint64_t t0,
		       struct vm_outcome *o)
{
	o->boot_s = since_s(t0);
	if (!spec->quiet)
		fprintf(stderr, "tracetax: kernel %s booted under %s in %.1f s; its %s has "
			"%.0f s (%s)\n", o->release, accel, o->boot_s, spec->exe ? "command" : "tracetax",
			o->deadline_s, o->deadline_why);
	return now_ns();
}

/* qemu ended: the guest's command ran, or the guest died (after its init or before). */
static enum boot ended(const struct vm_spec *spec, const char *tmp, const char *accel,
		       int status, bool was_booted, char *err, size_t errlen)
{
	char line[512], path[PATH_MAX], share[PATH_MAX];

	snprintf(share, sizeof(share), "%s/share", tmp);
	if (share_has(share, "rc"))
		return BOOT_RAN;
	snprintf(path, sizeof(path), "%s/console.log", tmp);
	console_cause(path, line, sizeof(line));
	if (!line[0])
		log_last_line(path, line, sizeof(line));
	if (was_booted) {
		ERR("kernel '%s' died under %s after booting: %s", spec->kernel, accel,
		    line[0] ? line : "its console says nothing");
		return BOOT_DIED;
	}
	/* qemu's own complaint first, unless it ended well (the guest powered off) */
	snprintf(path, sizeof(path), "%s/qemu.log", tmp);
	if (!(WIFEXITED(status) && !WEXITSTATUS(status))) {
		char q[512];

		log_last_line(path, q, sizeof(q));
		if (q[0])
			snprintf(line, sizeof(line), "%s", q);
	}
	ERR("kernel '%s' did not run %s under %s: %s", spec->kernel,
	    spec->exe ? "the command" : "tracetax", accel,
	    line[0] ? line : "qemu exited without a word");
	return BOOT_EXITED;
}

enum boot qemu_boot(const struct vm_spec *spec, const char *tmp, const char *accel, double limit,
		    struct vm_outcome *o, char *err, size_t errlen)
{
	struct share_tail tails[2] = {
		{ "stdout", -1, spec->stdout_to_stderr ? 2 : 1, 0, false }, { "stderr", -1, 2, 0, false },
	};
	char share[PATH_MAX];
	uint64_t t0 = now_ns(), tb = 0;
	int status = 0;
	enum boot r;
	pid_t pid;

	snprintf(share, sizeof(share), "%s/share", tmp);
	pid = qemu_start(tmp, spec, o->release, accel, err, errlen);
	if (pid < 0)
		return BOOT_EXITED;
	for (;;) {
		if (!tb && share_has(share, "booted"))
			tb = booted(spec, accel, t0, o);
		if (waitpid(pid, &status, WNOHANG) == pid) {
			pid = 0;
			r = BOOT_EXITED;
			break;
		}
		if ((o->signal = signals_interrupted())) {
			r = BOOT_SIGNAL;
			break;
		}
		if (!tb && since_s(t0) > limit) {
			r = BOOT_NONE;
			break;
		}
		if (tb && o->deadline_s > 0 && since_s(tb) > o->deadline_s) {
			ERR("the guest's %s did not finish within %.0f s of booting (%s): "
			    "the VM killed", spec->exe ? "command" : "tracetax", o->deadline_s,
			    o->deadline_why);
			r = BOOT_DEADLINE;
			break;
		}
		if (share_tail_pump(share, &tails[0], err, errlen) ||
		    share_tail_pump(share, &tails[1], err, errlen)) {
			r = BOOT_SHARE;
			break;
		}
		usleep(50000);
	}
	qemu_stop(pid);
	if (r != BOOT_SHARE && (share_tail_pump(share, &tails[0], err, errlen) ||
				share_tail_pump(share, &tails[1], err, errlen)) && r != BOOT_SIGNAL)
		r = BOOT_SHARE;
	share_tail_close(&tails[0]);
	share_tail_close(&tails[1]);
	if (r == BOOT_EXITED) {
		if (!tb && share_has(share, "booted"))
			tb = booted(spec, accel, t0, o);
		r = ended(spec, tmp, accel, status, tb != 0, err, errlen);
	}
	return r;
}
