/*
 * The kernel qemu boots straight into (PVH): a bzImage's compressed
 * vmlinux, undone once by its tool and kept in the state directory.
 *
 * Under TCG most of a boot is the bzImage undoing itself: Debian's are
 * xz, and an emulated xz of 65 MB took 3.3 s of the 5.4 s to the guest's
 * init here. qemu boots an ELF vmlinux that has Xen's PVH entry note
 * (XEN_ELFNOTE_PHYS32_ENTRY, CONFIG_PVH: Debian has it) at its 32-bit
 * entry, with no firmware and nothing to decompress: init in 2.1 s.
 * Where anything of that is missing the bzImage boots as before.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/signals.h"
#include "vm/pvh.h"
#include "vm/state.h"

#define XEN_ELFNOTE_PHYS32_ENTRY 18

/* Whether the ELF at @path has the PVH entry note. */
static bool has_pvh_note(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool found = false;
	Elf *e;

	if (fd < 0)
		return false;
	if (elf_version(EV_CURRENT) == EV_NONE || !(e = elf_begin(fd, ELF_C_READ, NULL))) {
		close(fd);
		return false;
	}
	for (Elf_Scn *s = NULL; !found && (s = elf_nextscn(e, s));) {
		GElf_Shdr sh;
		GElf_Nhdr nh;
		Elf_Data *d;
		size_t off = 0, name, desc;

		if (!gelf_getshdr(s, &sh) || sh.sh_type != SHT_NOTE || !(d = elf_getdata(s, NULL)))
			continue;
		while (!found && (off = gelf_getnote(d, off, &nh, &name, &desc)) > 0)
			found = nh.n_type == XEN_ELFNOTE_PHYS32_ENTRY && nh.n_namesz == 4 &&
				!memcmp((char *)d->d_buf + name, "Xen", 4);
	}
	elf_end(e);
	close(fd);
	return found;
}

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The payload's tool, by its magic: NULL for one we do not undo. */
static const char *payload_tool(const unsigned char *m)
{
	if (!memcmp(m, "\xfd" "7zXZ", 6))
		return "xz";
	if (m[0] == 0x1f && m[1] == 0x8b)
		return "gzip";
	if (!memcmp(m, "\x28\xb5\x2f\xfd", 4))
		return "zstd";
	return NULL;
}

/* @len bytes of @fd from @off through `@tool -dc` into @out: 0, or -1. */
static int undo(int fd, off_t off, size_t len, const char *tool, const char *out)
{
	int pfd[2], ofd, status;
	pid_t pid;
	char buf[65536];

	if ((ofd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0)
		return -1;
	if (pipe2(pfd, O_CLOEXEC)) {
		close(ofd);
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		close(pfd[0]), close(pfd[1]), close(ofd);
		return -1;
	}
	if (!pid) {
		int nul = open("/dev/null", O_WRONLY | O_CLOEXEC);

		dup2(pfd[0], 0);
		dup2(ofd, 1);
		if (nul >= 0)
			dup2(nul, 2);
		signals_unblock_in_child();
		execlp(tool, tool, "-dc", (char *)NULL);
		_exit(127);
	}
	close(pfd[0]);
	close(ofd);
	/* a tool that stops reading (not installed, bad data) makes the write fail: SIGPIPE is ignored */
	while (len > 0) {
		size_t want = len < sizeof(buf) ? len : sizeof(buf);
		ssize_t n = pread(fd, buf, want, off);

		if (n <= 0 || write(pfd[1], buf, (size_t)n) != n)
			break;
		off += n;
		len -= (size_t)n;
	}
	close(pfd[1]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return len == 0 && WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -1;
}

int vm_pvh_kernel(const char *image, const char *release, char *out, size_t len)
{
	unsigned char hdr[0x260], magic[8];
	char dir[4096], tmp[4200];
	const char *tool, *env = getenv("TRACETAX_VM_PVH");
	struct stat st;
	int fd, rc;

	if (env && (!strcmp(env, "off") || !strcmp(env, "0")))
		return -1;
	if ((fd = open(image, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) < 0)
		return -1;
	/* the boot protocol 2.08 or later names the payload: its offset and length */
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || pread(fd, hdr, sizeof(hdr), 0) != sizeof(hdr) ||
	    memcmp(hdr + 0x202, "HdrS", 4) || (hdr[0x206] | hdr[0x207] << 8) < 0x208) {
		close(fd);
		return -1;
	}
	off_t at = (off_t)((hdr[0x1f1] ? hdr[0x1f1] : 4) + 1) * 512 + le32(hdr + 0x248);
	uint32_t plen = le32(hdr + 0x24c);

	if (plen < 16 || at + plen > st.st_size || pread(fd, magic, sizeof(magic), at) != sizeof(magic) ||
	    !(tool = payload_tool(magic))) {
		close(fd);
		return -1;
	}
	if (vm_state_dir(dir, sizeof(dir))) {
		close(fd);
		return -1;
	}
	/* named by the image's release, size and time: a new image of one release is another file */
	snprintf(out, len, "%s/vmlinux-%s-%lld-%lld", dir, release, (long long)st.st_size,
		 (long long)st.st_mtime);
	if (!access(out, R_OK) && has_pvh_note(out)) {
		close(fd);
		return 0;
	}
	snprintf(tmp, sizeof(tmp), "%s.%d.tmp", out, (int)getpid());
	/* the payload's last 4 bytes are the kernel's own size, not the tool's */
	rc = undo(fd, at, plen - 4, tool, tmp);
	close(fd);
	/* a tool that failed (or is missing), a vmlinux without CONFIG_PVH */
	if (rc || !has_pvh_note(tmp) || rename(tmp, out)) {
		unlink(tmp);
		return -1;
	}
	return 0;
}
