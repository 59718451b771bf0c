/*
 * The guest's initramfs: a static busybox, the modules of its 9p root and
 * the init that mounts the host's root, runs the command of the share's
 * run.sh in its chroot and says what tracing state it left.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vm/cpio.h"
#include "vm/decompress.h"
#include "vm/initramfs.h"
#include "vm/say.h"
#include "vm/spec.h"

/* A statically linked ELF: no PT_INTERP (busybox-static's, not busybox's). */
static int elf_static(const struct vm_buf *b)
{
	Elf *e = elf_memory(b->p, b->n);
	size_t n = 0;
	int ok = e && elf_kind(e) == ELF_K_ELF && !elf_getphdrnum(e, &n);

	for (size_t i = 0; ok && i < n; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_INTERP)
			ok = 0;
	}
	if (e)
		elf_end(e);
	return ok;
}

static const char init_head[] =
	"#!/bin/busybox sh\n"
	"# tracetax's VM init: the host's root over 9p, read-only, then its tracetax\n"
	"B=/bin/busybox\n"
	"$B mount -t proc proc /proc\n"
	"$B mount -t sysfs sys /sys\n"
	"$B mount -t devtmpfs dev /dev\n"
	"fail() { echo \"tracetax-vm: $*\" >/dev/console; $B poweroff -f; }\n"
	"# where a boot that hangs stopped: its console's last line (vm.c)\n"
	"say() { echo \"tracetax-init: $*\" >/dev/console; }\n"
	"say \"init started at $($B cut -d' ' -f1 /proc/uptime) s\"\n"
	"for m in $MODULES; do\n"
	"\t$B insmod /lib/modules/$m.ko || fail \"insmod $m failed\"\n"
	"done\n"
	"say \"modules loaded at $($B cut -d' ' -f1 /proc/uptime) s; mounting the host's root\"\n"
	"O=trans=virtio,version=9p2000.L,cache=none,msize=512000\n"
	"$B mount -t 9p -o $O,ro,cache=loose ttroot /mnt || fail \"cannot mount the host's root over 9p\"\n"
	"R=/mnt\n"
	"$B mount -t proc proc $R/proc\n"
	"$B mount -t sysfs sys $R/sys\n"
	"$B mount -t devtmpfs dev $R/dev\n"
	"$B mkdir -p $R/dev/shm $R/dev/pts\n"
	"$B mount -t devpts devpts $R/dev/pts\n"
	"# what udev would link: bash's <(...) and /dev/stdin want them\n"
	"$B ln -sf /proc/self/fd $R/dev/fd\n"
	"for i in 0:stdin 1:stdout 2:stderr; do $B ln -sf /proc/self/fd/${i%%:*} $R/dev/${i#*:}; done\n"
	"for d in /tmp /run /dev/shm; do $B mount -t tmpfs tmpfs $R$d || fail \"cannot mount tmpfs on $d\"; done\n"
	"$B mount -t tracefs tracefs $R/sys/kernel/tracing\n"
	"$B mount -t debugfs debugfs $R/sys/kernel/debug\n"
	"$B mount -t bpf bpf $R/sys/fs/bpf\n"
	"S=$R" VM_GUEST_DIR "\n"
	"$B mkdir -p $S\n"
	"$B mount -t 9p -o $O ttout $S || fail \"cannot mount the results share\"\n"
	"say \"booted at $($B cut -d' ' -f1 /proc/uptime) s\"\n"
	"echo up >$S/booted\n"
	"# what tracing state the guest has, before and after: what tracetax left\n"
	"T=$R/sys/kernel/tracing\n"
	"state() {\n"
	"\tfor f in kprobe_events uprobe_events; do $B sed \"s/^/$f: /\" $T/$f; done\n"
	"\tfor i in $T/instances/*; do [ -e \"$i\" ] && echo \"instance ${i##*/}\"; done\n"
	"\techo \"current_tracer $($B cat $T/current_tracer)\"\n"
	"\techo \"tracing_on $($B cat $T/tracing_on)\"\n"
	"\t$B chroot $R bpftool prog show 2>/dev/null | $B grep -E '^[0-9]+:' | $B sed 's/^/bpf prog /'\n"
	"}\n"
	"state >/state.before 2>/dev/null\n"
	"$B chroot $R /bin/sh " VM_GUEST_DIR "/run.sh <$R/dev/null >$S/stdout 2>$S/stderr\n"
	"rc=$?\n"
	"state >/state.after 2>/dev/null\n"
	"$B grep -vxF -f /state.before /state.after >$S/left\n"
	"echo $rc >$S/rc.tmp && $B mv $S/rc.tmp $S/rc\n"
	"$B umount $S\n"
	"$B sync\n"
	"$B poweroff -f\n";

int initramfs_build(const char *path, const struct vm_modset *s, char *err, size_t errlen)
{
	static const char *const dirs[] = { ".", "bin", "dev", "proc", "sys", "mnt", "lib",
					    "lib/modules" };
	struct vm_buf b = { 0 }, f = { 0 };
	char name[128], init[sizeof(init_head) + 1024], mods[1024] = "";
	int fd, rc = -1;

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		if (cpio_add(&b, dirs[i], 040755, 0, 0, NULL, 0))
			goto oom;
	if (cpio_add(&b, "dev/console", 020600, 5, 1, NULL, 0))
		goto oom;
	fd = open("/bin/busybox", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ERR("no busybox for the guest's initramfs: /bin/busybox: %s (install busybox-static)",
		    strerror(errno));
		goto out;
	}
	rc = buf_read_fd(fd, &f, (size_t)-1);
	close(fd);
	if (rc || !elf_static(&f)) {
		rc = ERR("/bin/busybox is not statically linked (install busybox-static)");
		goto out;
	}
	rc = -1;
	if (cpio_add(&b, "bin/busybox", 0100755, 0, 0, f.p, f.n) ||
	    cpio_add(&b, "bin/sh", 0120777, 0, 0, "busybox", 7))
		goto oom;
	for (int i = 0; i < s->n; i++) {
		f.n = 0;
		if (decompress_module(s->mod[i].path, &f, err, errlen))
			goto out;
		snprintf(name, sizeof(name), "lib/modules/%s.ko", s->mod[i].name);
		if (cpio_add(&b, name, 0100644, 0, 0, f.p, f.n))
			goto oom;
		snprintf(mods + strlen(mods), sizeof(mods) - strlen(mods), "%s%s", i ? " " : "",
			 s->mod[i].name);
	}
	/* the guest is this machine's: the store names the host, the kernel tells them apart */
	char host[64] = "";

	gethostname(host, sizeof(host) - 1);
	for (char *p = host; *p; p++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-", *p))
			*p = '-';
	snprintf(init, sizeof(init), "#!/bin/busybox sh\nMODULES='%s'\n/bin/busybox hostname '%s'\n%s",
		 mods, host[0] ? host : "tracetax-vm", init_head + strlen("#!/bin/busybox sh\n"));
	if (cpio_add(&b, "init", 0100755, 0, 0, init, strlen(init)) ||
	    cpio_add(&b, "TRAILER!!!", 0, 0, 0, NULL, 0))
		goto oom;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, b.p, b.n) != (ssize_t)b.n) {
		ERR("cannot write '%s': %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		goto out;
	}
	close(fd);
	rc = 0;
	goto out;
oom:
	ERR("out of memory building the guest's initramfs");
out:
	free(b.p);
	free(f.p);
	return rc;
}

/* ---- the guest's command ------------------------------------------------- */
