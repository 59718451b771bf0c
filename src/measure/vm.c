/* tracetax in a VM: a kernel image booted under qemu runs this tracetax on the host's root. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <gelf.h>
#include <libelf.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "measure/vm.h"
#include "base/signals.h"
#include "base/util.h"

/* One line into err; the value to return: -1 a failure, -2 bad input (exit 2). */
static int __attribute__((format(printf, 4, 5)))
say(int rc, char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return rc;
}
#define ERR(...) say(-1, err, errlen, __VA_ARGS__)
#define BAD(...) say(-2, err, errlen, __VA_ARGS__)

/* The modules that give the guest its 9p root: what they need comes first. */
static const char *const wanted_modules[] = { "virtio_pci", "9pnet_virtio", "9p" };
#define MAX_MODULES 32

/* KVM gets this long to reach the initramfs's init; then TCG runs. */
#define KVM_WAIT_S 10.0
/* A TCG guest that has not reached init after this long did not boot. */
#define BOOT_LIMIT_S 240.0
#define TMP_PREFIX "/tmp/tracetax-vm."

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- the image ---------------------------------------------------------- */

int vm_kernel_release(const char *path, char *release, size_t len, char *err, size_t errlen)
{
	unsigned char hdr[0x280];
	char ver[160];
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
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

/* ---- the modules -------------------------------------------------------- */

struct module {
	char name[64];          /* virtio_pci */
	char path[PATH_MAX];    /* the .ko, .ko.xz, .ko.zst or .ko.gz */
};

struct modset {
	const char *dir;        /* lib/modules/VERSION */
	struct module mod[MAX_MODULES];
	int n;
};

/* "kernel/drivers/virtio/virtio-pci.ko.xz" -> "virtio_pci" */
static void module_name(const char *path, char *name, size_t len)
{
	const char *b = strrchr(path, '/');
	size_t n;

	b = b ? b + 1 : path;
	n = strcspn(b, ".");
	snprintf(name, len, "%.*s", (int)n, b);
	for (char *p = name; *p; p++)
		if (*p == '-')
			*p = '_';
}

static int is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

/*
 * The image's modules: --kernel-modules DIR (lib/modules/VERSION itself, or
 * a tree holding it), else lib/modules/VERSION beside the unpacked package
 * (boot/vmlinuz-VERSION), else the host's /lib/modules/VERSION.
 */
static int find_modules(const char *kernel, const char *given, const char *release, char *dir,
			size_t len, char *err, size_t errlen)
{
	char path[PATH_MAX], base[PATH_MAX];

	if (given) {
		snprintf(path, sizeof(path), "%s/kernel", given);
		if (is_dir(path)) {
			snprintf(dir, len, "%s", given);
			return 0;
		}
		snprintf(path, sizeof(path), "%s/lib/modules/%s", given, release);
		if (!is_dir(path))
			snprintf(path, sizeof(path), "%s/%s", given, release);
		if (!is_dir(path))
			return BAD("no modules of kernel '%s' in '%s' (want its lib/modules/%s)",
				   release, given, release);
		snprintf(dir, len, "%s", path);
		return 0;
	}
	snprintf(base, sizeof(base), "%s", kernel);
	snprintf(path, sizeof(path), "%s/../lib/modules/%s", dirname(base), release);
	if (is_dir(path) && realpath(path, dir))
		return 0;
	snprintf(path, sizeof(path), "/lib/modules/%s", release);
	if (is_dir(path)) {
		snprintf(dir, len, "%s", path);
		return 0;
	}
	dir[0] = '\0';	/* none: the image must have virtio and 9p built in */
	return 0;
}

/* A modules.builtin line names a module built into the image. */
static int builtin(const char *dir, const char *name)
{
	char path[PATH_MAX], line[512], n[64];
	FILE *f;
	int found = 0;

	if (!dir[0])
		return 1;
	snprintf(path, sizeof(path), "%s/modules.builtin", dir);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		module_name(line, n, sizeof(n));
		found = !strcmp(n, name);
	}
	fclose(f);
	return found;
}

static int modset_add(struct modset *s, const char *name, const char *path)
{
	for (int i = 0; i < s->n; i++)
		if (!strcmp(s->mod[i].name, name))
			return 0;
	if (s->n == MAX_MODULES)
		return -1;
	snprintf(s->mod[s->n].name, sizeof(s->mod[0].name), "%s", name);
	snprintf(s->mod[s->n].path, sizeof(s->mod[0].path), "%s/%s", s->dir, path);
	s->n++;
	return 0;
}

/*
 * modules.dep, as depmod wrote it: "kernel/fs/9p/9p.ko: kernel/net/9p/9pnet.ko
 * kernel/fs/fscache/fscache.ko ...". modprobe loads a module's dependencies
 * from the last listed to the first, then the module: so do we.
 */
static int order_from_depmod(struct modset *s, FILE *dep, char *err, size_t errlen)
{
	char *line = NULL, name[64];
	size_t cap = 0;
	const size_t nwanted = sizeof(wanted_modules) / sizeof(wanted_modules[0]);
	int found[sizeof(wanted_modules) / sizeof(wanted_modules[0])] = { 0 };

	for (size_t w = 0; w < nwanted; w++) {
		if (builtin(s->dir, wanted_modules[w])) {
			found[w] = 1;
			continue;
		}
		rewind(dep);
		while (getline(&line, &cap, dep) > 0) {
			char *colon = strchr(line, ':'), *tok[MAX_MODULES];
			int ntok = 0;

			if (!colon)
				continue;
			*colon = '\0';
			module_name(line, name, sizeof(name));
			if (strcmp(name, wanted_modules[w]))
				continue;
			for (char *save = NULL, *t = strtok_r(colon + 1, " \t\n", &save);
			     t && ntok < MAX_MODULES; t = strtok_r(NULL, " \t\n", &save))
				tok[ntok++] = t;
			for (int i = ntok - 1; i >= 0; i--) {
				module_name(tok[i], name, sizeof(name));
				if (modset_add(s, name, tok[i]))
					goto full;
			}
			if (modset_add(s, wanted_modules[w], line))
				goto full;
			found[w] = 1;
			break;
		}
	}
	free(line);
	for (size_t w = 0; w < nwanted; w++)
		if (!found[w])
			return BAD("kernel modules in '%s' have no '%s' (the guest needs virtio "
				   "and 9p)", s->dir, wanted_modules[w]);
	return 0;
full:
	free(line);
	return ERR("too many modules for the guest's 9p root");
}

/* ---- reading files, compressed or not ----------------------------------- */

struct buf {
	char *p;
	size_t n, cap;
};

static int buf_put(struct buf *b, const void *p, size_t n)
{
	if (b->n + n > b->cap) {
		size_t cap = b->cap ? b->cap : 65536;
		char *q;

		while (cap < b->n + n)
			cap *= 2;
		q = realloc(b->p, cap);
		if (!q)
			return -1;
		b->p = q;
		b->cap = cap;
	}
	memcpy(b->p + b->n, p, n);
	b->n += n;
	return 0;
}

static int read_fd(int fd, struct buf *b)
{
	char chunk[65536];
	ssize_t n;

	while ((n = read(fd, chunk, sizeof(chunk))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || buf_put(b, chunk, (size_t)n))
			return -1;
	}
	return 0;
}

/*
 * A module as the kernel's insmod wants it: busybox's insmod may not read a
 * compressed one, so xz, zstd and gzip are undone here by their tools.
 */
static int read_module(const char *path, struct buf *b, char *err, size_t errlen)
{
	static const struct { const char *ext, *tool; } z[] = {
		{ ".xz", "xz" }, { ".zst", "zstd" }, { ".gz", "gzip" },
	};
	size_t len = strlen(path);
	const char *tool = NULL;
	int pfd[2], status, fd;
	pid_t pid;

	for (size_t i = 0; i < sizeof(z) / sizeof(z[0]); i++)
		if (len > strlen(z[i].ext) && !strcmp(path + len - strlen(z[i].ext), z[i].ext))
			tool = z[i].tool;
	if (!tool) {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return ERR("cannot read module '%s': %s", path, strerror(errno));
		status = read_fd(fd, b);
		close(fd);
		return status ? ERR("cannot read module '%s'", path) : 0;
	}
	if (pipe2(pfd, O_CLOEXEC))
		return ERR("pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return ERR("fork: %s", strerror(errno));
	}
	if (!pid) {
		dup2(pfd[1], 1);
		signals_unblock_in_child();
		execlp(tool, tool, "-dc", path, (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	fd = read_fd(pfd[0], b);
	close(pfd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (fd || !WIFEXITED(status) || WEXITSTATUS(status))
		return ERR("cannot decompress module '%s' with %s%s", path, tool,
			   WIFEXITED(status) && WEXITSTATUS(status) == 127 ? " (not installed)" : "");
	return 0;
}

/* ---- the initramfs: a newc cpio archive, uncompressed -------------------- */

static int cpio_entry(struct buf *b, const char *name, unsigned mode, unsigned rmaj, unsigned rmin,
		      const void *data, size_t size)
{
	static unsigned ino = 1;
	static const char zeros[4];
	char hdr[111];
	size_t nlen = strlen(name) + 1;

	snprintf(hdr, sizeof(hdr),
		 "070701%08X%08X%08X%08X%08X%08X%08zX%08X%08X%08X%08X%08zX%08X",
		 ino++, mode, 0u, 0u, 1u, 0u, size, 0u, 0u, rmaj, rmin, nlen, 0u);
	if (buf_put(b, hdr, 110) || buf_put(b, name, nlen) ||
	    buf_put(b, zeros, (4 - (110 + nlen) % 4) % 4) ||
	    (size && buf_put(b, data, size)) || buf_put(b, zeros, (4 - size % 4) % 4))
		return -1;
	return 0;
}

/* A statically linked ELF: no PT_INTERP (busybox-static's, not busybox's). */
static int elf_static(const struct buf *b)
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
	"for m in $MODULES; do\n"
	"\t$B insmod /lib/modules/$m.ko || fail \"insmod $m failed\"\n"
	"done\n"
	"O=trans=virtio,version=9p2000.L,cache=none,msize=512000\n"
	"$B mount -t 9p -o $O,ro ttroot /mnt || fail \"cannot mount the host's root over 9p\"\n"
	"R=/mnt\n"
	"$B mount -t proc proc $R/proc\n"
	"$B mount -t sysfs sys $R/sys\n"
	"$B mount -t devtmpfs dev $R/dev\n"
	"$B mkdir -p $R/dev/shm $R/dev/pts\n"
	"$B mount -t devpts devpts $R/dev/pts\n"
	"for d in /tmp /run /dev/shm; do $B mount -t tmpfs tmpfs $R$d || fail \"cannot mount tmpfs on $d\"; done\n"
	"$B mount -t tracefs tracefs $R/sys/kernel/tracing\n"
	"$B mount -t debugfs debugfs $R/sys/kernel/debug\n"
	"$B mount -t bpf bpf $R/sys/fs/bpf\n"
	"S=$R" VM_GUEST_DIR "\n"
	"$B mkdir -p $S\n"
	"$B mount -t 9p -o $O ttout $S || fail \"cannot mount the results share\"\n"
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

static int build_initramfs(const char *path, const struct modset *s, char *err, size_t errlen)
{
	static const char *const dirs[] = { ".", "bin", "dev", "proc", "sys", "mnt", "lib",
					    "lib/modules" };
	struct buf b = { 0 }, f = { 0 };
	char name[128], init[sizeof(init_head) + 1024], mods[1024] = "";
	int fd, rc = -1;

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		if (cpio_entry(&b, dirs[i], 040755, 0, 0, NULL, 0))
			goto oom;
	if (cpio_entry(&b, "dev/console", 020600, 5, 1, NULL, 0))
		goto oom;
	fd = open("/bin/busybox", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ERR("no busybox for the guest's initramfs: /bin/busybox: %s (install busybox-static)",
		    strerror(errno));
		goto out;
	}
	rc = read_fd(fd, &f);
	close(fd);
	if (rc || !elf_static(&f)) {
		rc = ERR("/bin/busybox is not statically linked (install busybox-static)");
		goto out;
	}
	rc = -1;
	if (cpio_entry(&b, "bin/busybox", 0100755, 0, 0, f.p, f.n) ||
	    cpio_entry(&b, "bin/sh", 0120777, 0, 0, "busybox", 7))
		goto oom;
	for (int i = 0; i < s->n; i++) {
		f.n = 0;
		if (read_module(s->mod[i].path, &f, err, errlen))
			goto out;
		snprintf(name, sizeof(name), "lib/modules/%s.ko", s->mod[i].name);
		if (cpio_entry(&b, name, 0100644, 0, 0, f.p, f.n))
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
	if (cpio_entry(&b, "init", 0100755, 0, 0, init, strlen(init)) ||
	    cpio_entry(&b, "TRAILER!!!", 0, 0, 0, NULL, 0))
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

static void put_quoted(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++)
		if (*s == '\'')
			fputs("'\\''", f);
		else
			fputc(*s, f);
	fputc('\'', f);
}

/* What of our environment the guest's tracetax keeps. */
static const char *const kept_env[] = {
	"PATH", "HOME", "LANG", "LC_ALL", "TERM", "NO_COLOR", "TZ", "XDG_DATA_HOME",
	"TRACETAX_VERBOSE", "TRACETAX_LOAD",
	/* a sanitized build (make asan) keeps its options, suppressions and all */
	"ASAN_OPTIONS", "LSAN_OPTIONS", "UBSAN_OPTIONS",
};

/*
 * @v, a sanitizer's colon-separated options, quoted into @f without its
 * log_path: that is a file of the host's /tmp, which the guest replaces.
 * Its reports go to the guest's stderr instead, which the host shows.
 */
static void put_san_options(FILE *f, const char *v)
{
	char *copy = strdup(v), *save = NULL, *out = calloc(strlen(v) + 1, 1);

	if (!copy || !out)
		die("out of memory");
	for (char *o = strtok_r(copy, ":", &save); o; o = strtok_r(NULL, ":", &save)) {
		if (!strncmp(o, "log_path=", 9))
			continue;
		if (*out)
			strcat(out, ":");
		strcat(out, o);
	}
	put_quoted(f, out);
	free(out);
	free(copy);
}

static int write_run_sh(const char *path, const char *accel, const struct vm_spec *spec,
			char *err, size_t errlen)
{
	char exe[PATH_MAX], cwd[PATH_MAX];
	ssize_t n = spec->exe ? 0 : readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	FILE *f;

	if (n < 0)
		return ERR("cannot find own executable: readlink /proc/self/exe failed");
	if (spec->exe)
		snprintf(exe, sizeof(exe), "%s", spec->exe);
	else
		exe[n] = '\0';
	/* rebuilt or removed since we started: the guest would run another program, or none */
	if (n > 10 && !strcmp(exe + n - 10, " (deleted)"))
		return ERR("own executable '%.*s' was replaced or removed since tracetax started: "
			   "the guest cannot run it", (int)n - 10, exe);
	/* the guest has tmpfs there: a program of the host's is not seen */
	if (!strncmp(exe, "/tmp/", 5) || !strncmp(exe, "/run/", 5) || !strncmp(exe, "/dev/shm/", 9))
		return BAD("'%s' is under /tmp, /run or /dev/shm, which the guest does not "
			   "share: run a tracetax installed or built elsewhere", exe);
	f = fopen(path, "we");
	if (!f)
		return ERR("cannot write '%s': %s", path, strerror(errno));
	fputs("# the guest's command, run by its init in the chroot of the host's root\ncd ", f);
	put_quoted(f, getcwd(cwd, sizeof(cwd)) ? cwd : "/");
	fputs(" 2>/dev/null || cd /\n", f);
	for (size_t i = 0; i < sizeof(kept_env) / sizeof(kept_env[0]); i++) {
		const char *v = getenv(kept_env[i]);

		if (v) {
			fprintf(f, "export %s=", kept_env[i]);
			if (strstr(kept_env[i], "SAN_OPTIONS"))
				put_san_options(f, v);
			else
				put_quoted(f, v);
			fputc('\n', f);
		}
	}
	fprintf(f, "export " VM_ENV "=%s\nexec ", accel);
	put_quoted(f, exe);
	for (const char *const *a = spec->argv; *a; a++) {
		fputc(' ', f);
		put_quoted(f, *a);
	}
	fputc('\n', f);
	return fclose(f) ? ERR("cannot write '%s'", path) : 0;
}

/* ---- qemu ---------------------------------------------------------------- */

static pid_t start_qemu(const char *tmp, const char *kernel, const char *accel, char *err,
			size_t errlen)
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
	snprintf(smp, sizeof(smp), "%ld", cpus < 1 ? 1 : cpus > 8 ? 8 : cpus);
	snprintf(kpath, sizeof(kpath), "%s", kernel);
	const char *argv[] = {
		"qemu-system-x86_64", "-accel", accel, "-smp", smp, "-m", "2G",
		"-nodefaults", "-no-user-config", "-display", "none", "-no-reboot",
		"-serial", serial, "-kernel", kpath, "-initrd", initrd,
		"-append", "console=ttyS0 loglevel=4 panic=-1 clocksource=tsc tsc=reliable",
		"-fsdev", root, "-device", "virtio-9p-pci,fsdev=ttroot,mount_tag=ttroot",
		"-fsdev", out, "-device", "virtio-9p-pci,fsdev=ttout,mount_tag=ttout",
		NULL,
	};

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

static void stop_qemu(pid_t pid)
{
	if (pid <= 0)
		return;
	kill(pid, SIGKILL);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
}

/* The last non-empty line of a log (console, qemu's stderr), \r cut. */
static void last_line(const char *path, char *line, size_t len)
{
	char buf[4096];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	off_t size;
	ssize_t n;

	line[0] = '\0';
	if (fd < 0)
		return;
	size = lseek(fd, 0, SEEK_END);
	n = pread(fd, buf, sizeof(buf) - 1, size > (off_t)sizeof(buf) - 1 ?
		  size - (off_t)sizeof(buf) + 1 : 0);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = '\0';
	for (char *p = buf; *p; p++)
		if (*p == '\r' || (unsigned char)*p < ' ')
			*p = *p == '\t' ? ' ' : '\n';
	for (char *save = NULL, *t = strtok_r(buf, "\n", &save); t; t = strtok_r(NULL, "\n", &save))
		if (strspn(t, " ") != strlen(t))
			snprintf(line, len, "%s", t + strspn(t, " "));
}

/* Copies what the guest wrote to FILE since the last call to fd out. */
struct tail {
	const char *name;
	int fd, out;
};

static void tail_pump(const char *share, struct tail *t)
{
	char buf[65536], path[PATH_MAX];
	ssize_t n;

	if (t->fd < 0) {
		snprintf(path, sizeof(path), "%s/%s", share, t->name);
		t->fd = open(path, O_RDONLY | O_CLOEXEC);
		if (t->fd < 0)
			return;
	}
	while ((n = read(t->fd, buf, sizeof(buf))) > 0)
		if (write(t->out, buf, (size_t)n) < 0)
			break;
}

static int exists(const char *dir, const char *name)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return !access(path, F_OK);
}

enum boot { BOOT_RAN, BOOT_NONE, BOOT_EXITED, BOOT_SIGNAL };

/*
 * One boot: waits for the guest's init (the share's "booted") for at most
 * limit seconds, then for qemu's end while copying the guest's output.
 */
static enum boot boot_once(const char *tmp, const struct vm_spec *spec, const char *accel,
			   double limit, struct vm_outcome *o, char *err, size_t errlen)
{
	char share[PATH_MAX];
	struct tail tails[2] = {
		{ "stdout", -1, spec->stdout_to_stderr ? 2 : 1 }, { "stderr", -1, 2 },
	};
	double t0 = mono_s();
	int booted = 0, status = 0;
	enum boot r;
	pid_t pid;

	snprintf(share, sizeof(share), "%s/share", tmp);
	pid = start_qemu(tmp, spec->kernel, accel, err, errlen);
	if (pid < 0)
		return BOOT_EXITED;
	for (;;) {
		pid_t w = waitpid(pid, &status, WNOHANG);

		if (w == pid) {
			pid = 0;
			r = BOOT_EXITED;
			break;
		}
		if ((o->signal = signals_interrupted())) {
			r = BOOT_SIGNAL;
			break;
		}
		if (!booted && exists(share, "booted")) {
			booted = 1;
			o->boot_s = mono_s() - t0;
		}
		if (!booted && mono_s() - t0 > limit) {
			r = BOOT_NONE;
			break;
		}
		for (int i = 0; i < 2; i++)
			tail_pump(share, &tails[i]);
		usleep(50000);
	}
	stop_qemu(pid);
	for (int i = 0; i < 2; i++) {
		tail_pump(share, &tails[i]);
		if (tails[i].fd >= 0)
			close(tails[i].fd);
	}
	if (r == BOOT_EXITED && exists(share, "rc"))
		return BOOT_RAN;
	if (r == BOOT_EXITED) {
		char line[512], path[PATH_MAX];

		snprintf(path, sizeof(path), "%s/qemu.log", tmp);
		last_line(path, line, sizeof(line));
		if (!line[0] || (WIFEXITED(status) && !WEXITSTATUS(status))) {
			snprintf(path, sizeof(path), "%s/console.log", tmp);
			last_line(path, line, sizeof(line));
		}
		ERR("kernel '%s' did not run tracetax under %s: %s", spec->kernel, accel,
		    line[0] ? line : "qemu exited without a word");
	}
	return r;
}

/* ---- the temporary directory -------------------------------------------- */

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return flag == FTW_DP ? rmdir(path) : unlink(path);
}

static int rm_tree(const char *path)
{
	return nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

int vm_cleanup_stale(int *removed)
{
	DIR *d = opendir("/tmp");
	struct dirent *e;
	int rc = 0;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		const char *p = e->d_name;
		char path[PATH_MAX], *end;
		long pid;

		if (strncmp(p, "tracetax-vm.", 12))
			continue;
		pid = strtol(p + 12, &end, 10);
		/* a directory of a tracetax still running stays */
		if (pid <= 0 || *end != '.' || !(kill((pid_t)pid, 0) < 0 && errno == ESRCH))
			continue;
		snprintf(path, sizeof(path), "/tmp/%s", p);
		if (rm_tree(path))
			rc = -1;
		else
			(*removed)++;
	}
	closedir(d);
	return rc;
}

static char *slurp(const char *dir, const char *name)
{
	char path[PATH_MAX];
	struct buf b = { 0 };
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (read_fd(fd, &b) || buf_put(&b, "", 1)) {
		free(b.p);
		b.p = NULL;
	}
	close(fd);
	return b.p;
}

/* ---- the run -------------------------------------------------------------- */

static int kvm_usable(char *why, size_t len)
{
	const char *force = getenv("TRACETAX_VM_ACCEL");
	int fd;

	if (force && !strcmp(force, "tcg")) {
		snprintf(why, len, "TRACETAX_VM_ACCEL=tcg");
		return 0;
	}
	fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		snprintf(why, len, "/dev/kvm: %s", strerror(errno));
		return 0;
	}
	close(fd);
	return 1;
}

int vm_run(const struct vm_spec *spec, struct vm_outcome *o, char *err, size_t errlen)
{
	char tmp[] = TMP_PREFIX "XXXXXXXXXX.XXXXXX", share[PATH_MAX], path[PATH_MAX];
	char moddir[PATH_MAX];
	struct modset mods = { .dir = moddir };
	double t0 = mono_s(), kvm_wait = KVM_WAIT_S;
	const char *w = getenv("TRACETAX_VM_KVM_WAIT");
	enum boot b = BOOT_NONE;
	int rc;

	memset(o, 0, sizeof(*o));
	o->exit_code = -1;
	if ((rc = vm_kernel_release(spec->kernel, o->release, sizeof(o->release), err, errlen)))
		return -2;
	if ((rc = find_modules(spec->kernel, spec->modules, o->release, moddir, sizeof(moddir),
			       err, errlen)))
		return rc;
	if (moddir[0]) {
		FILE *dep;

		snprintf(path, sizeof(path), "%s/modules.dep", moddir);
		dep = fopen(path, "re");
		if (!dep)
			return BAD("no modules.dep in '%s': run 'depmod -b BASE %s' on its tree first",
				   moddir, o->release);
		rc = order_from_depmod(&mods, dep, err, errlen);
		fclose(dep);
		if (rc)
			return rc;
	}
	if (elf_version(EV_CURRENT) == EV_NONE)
		return ERR("libelf: %s", elf_errmsg(-1));
	snprintf(tmp, sizeof(tmp), TMP_PREFIX "%ld.XXXXXX", (long)getpid());
	if (!mkdtemp(tmp))
		return ERR("cannot make a directory for the VM in /tmp: %s", strerror(errno));
	snprintf(share, sizeof(share), "%s/share", tmp);
	snprintf(path, sizeof(path), "%s/initramfs.cpio", tmp);
	rc = -1;
	if (mkdir(share, 0700)) {
		ERR("cannot make '%s': %s", share, strerror(errno));
		goto out;
	}
	if (build_initramfs(path, &mods, err, errlen))
		goto out;
	if (w)
		kvm_wait = atof(w);
	snprintf(path, sizeof(path), "%s/run.sh", share);
	if (kvm_usable(o->accel_note, sizeof(o->accel_note))) {
		double k0 = mono_s();

		if (write_run_sh(path, "kvm", spec, err, errlen))
			goto out;
		if (!spec->quiet)
			fprintf(stderr, "tracetax: booting kernel %s under kvm (%.0f s to reach init)\n",
				o->release, kvm_wait);
		b = boot_once(tmp, spec, "kvm", kvm_wait, o, err, errlen);
		o->kvm_wait_s = mono_s() - k0;
		if (b == BOOT_NONE)
			snprintf(o->accel_note, sizeof(o->accel_note),
				 "kvm: no init after %.1f s (nested virtualization?)", o->kvm_wait_s);
		else if (b == BOOT_EXITED)
			snprintf(o->accel_note, sizeof(o->accel_note), "kvm: %s", err);
		else
			snprintf(o->accel, sizeof(o->accel), "kvm");
	}
	if (b == BOOT_NONE || b == BOOT_EXITED) {
		/* what KVM's guest left is not TCG's */
		static const char *const left[] = { "booted", "stdout", "stderr", "rc", "rc.tmp",
						    "result.json" };

		for (size_t i = 0; i < sizeof(left) / sizeof(left[0]); i++) {
			snprintf(path, sizeof(path), "%s/%s", share, left[i]);
			unlink(path);
		}
		snprintf(path, sizeof(path), "%s/run.sh", share);
		if (write_run_sh(path, "tcg", spec, err, errlen))
			goto out;
		if (!spec->quiet)
			fprintf(stderr, "tracetax: booting kernel %s under tcg (%s)\n", o->release,
				o->accel_note);
		snprintf(o->accel, sizeof(o->accel), "tcg");
		b = boot_once(tmp, spec, "tcg", BOOT_LIMIT_S, o, err, errlen);
		if (b == BOOT_NONE)
			ERR("kernel '%s' did not boot: no init after %.0f s under tcg", spec->kernel,
			    BOOT_LIMIT_S);
	}
	if (b == BOOT_SIGNAL) {
		rc = 128 + o->signal;
		goto out;
	}
	if (b != BOOT_RAN)
		goto out;
	{
		char *s = slurp(share, "rc");

		o->exit_code = s ? atoi(s) : -1;
		free(s);
	}
	o->document = slurp(share, "result.json");
	o->left = slurp(share, "left");
	rc = 0;
out:
	o->total_s = mono_s() - t0;
	rm_tree(tmp);
	return rc;
}

void vm_outcome_release(struct vm_outcome *o)
{
	free(o->document);
	free(o->left);
	o->document = NULL;
	o->left = NULL;
}
