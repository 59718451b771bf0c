/*
 * Whether to try KVM. Where the virtualization is nested, /dev/kvm opens
 * and a KVM guest hangs before its first console byte: each run would wait
 * KVM's time out before TCG. A hang is remembered, in the state directory's
 * vm-accel, by this host's name and kernel and the guest's kernel; a line
 * removed (or the file) lets KVM be tried again.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "vm/accel.h"
#include "vm/state.h"

#define ACCEL_FILE "vm-accel"

/* "HOST HOST-KERNEL GUEST-KERNEL kvm-hangs": the line of this host and @release */
static void hang_line(const char *release, char *line, size_t len)
{
	struct utsname u;

	if (uname(&u))
		memset(&u, 0, sizeof(u));
	snprintf(line, len, "%s %s %s kvm-hangs", u.nodename, u.release, release);
}

static int remembered(const char *release, char *path, size_t len)
{
	char want[600], line[640];
	FILE *f;
	int found = 0;

	if (vm_state_dir(path, len))
		return 0;
	snprintf(path + strlen(path), len - strlen(path), "/" ACCEL_FILE);
	hang_line(release, want, sizeof(want));
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		found = !strcmp(line, want);
	}
	fclose(f);
	return found;
}

int accel_try_kvm(const char *release, char *why, size_t len)
{
	const char *force = getenv("TRACETAX_VM_ACCEL");
	/* the device: tests name a stand-in, for a stand-in qemu */
	const char *dev = getenv("TRACETAX_VM_KVM_DEV");
	char path[PATH_MAX];
	int fd;

	if (force && !strcmp(force, "tcg")) {
		snprintf(why, len, "TRACETAX_VM_ACCEL=tcg");
		return 0;
	}
	if (!dev || !dev[0])
		dev = "/dev/kvm";
	fd = open(dev, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		snprintf(why, len, "%s: %s", dev, strerror(errno));
		return 0;
	}
	close(fd);
	if (remembered(release, path, sizeof(path))) {
		snprintf(why, len, "kvm hung before here for this kernel: remembered in %s, remove it "
			 "to try kvm again", path);
		return 0;
	}
	return 1;
}

void accel_remember_kvm_hang(const char *release)
{
	char path[PATH_MAX], line[600];
	FILE *f;

	if (remembered(release, path, sizeof(path)) || path[0] != '/')
		return;
	hang_line(release, line, sizeof(line));
	f = fopen(path, "ae");
	if (!f)
		return;
	fprintf(f, "%s\n", line);
	fclose(f);
}

bool accel_icount(const char *accel, const struct vm_spec *spec)
{
	const char *v = getenv("TRACETAX_VM_ICOUNT");

	if (strcmp(accel, "tcg") || spec->no_icount)
		return false;
	return !v || (strcmp(v, "off") && strcmp(v, "0"));
}

const char *accel_icount_opt(void)
{
	const char *v = getenv("TRACETAX_VM_ICOUNT_SLEEP");

	return v && !strcmp(v, "off") ? "shift=0,sleep=off" : "shift=0,sleep=on";
}
