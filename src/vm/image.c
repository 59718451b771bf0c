/* The image: an x86 bzImage's boot header, and the kernel release it names. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vm/image.h"
#include "vm/say.h"

int vm_kernel_release(const char *path, char *release, size_t len, char *err, size_t errlen)
{
	unsigned char hdr[0x280];
	char ver[160];
	struct stat st;
	/* O_NONBLOCK: a FIFO with no writer would hold the open forever */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return ERR("cannot open kernel '%s': %s", path, strerror(errno));
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return ERR("kernel '%s' is not a file", path);
	}
	n = pread(fd, hdr, sizeof(hdr), 0);
	/* the x86 boot protocol: 0xAA55 at 0x1fe, "HdrS" at 0x202, 2.00 or later */
	if (n != (ssize_t)sizeof(hdr) || hdr[0x1fe] != 0x55 || hdr[0x1ff] != 0xaa ||
	    memcmp(hdr + 0x202, "HdrS", 4) || (hdr[0x206] | hdr[0x207] << 8) < 0x200) {
		close(fd);
		return ERR("kernel '%s' is not a bootable image", path);
	}
	/* kernel_version: an offset from 0x200 to "6.1.0-57-amd64 (builder) #1 ..." */
	unsigned off = (unsigned)(hdr[0x20e] | hdr[0x20f] << 8) + 0x200;

	n = pread(fd, ver, sizeof(ver) - 1, off);
	close(fd);
	if (n <= 0) {
		snprintf(release, len, "unknown");
		return 0;
	}
	ver[n] = '\0';
	ver[strcspn(ver, " \n")] = '\0';
	snprintf(release, len, "%s", ver[0] ? ver : "unknown");
	return 0;
}
