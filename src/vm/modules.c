/* Which modules the guest loads, and in what order: depmod's modules.dep, as modprobe reads it. */
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "vm/modules.h"
#include "vm/say.h"

/* The modules that give the guest its 9p root: what they need comes first. */
static const char *const wanted_modules[] = { "virtio_pci", "9pnet_virtio", "9p" };

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

static int modset_add(struct vm_modset *s, const char *name, const char *path)
{
	for (int i = 0; i < s->n; i++)
		if (!strcmp(s->mod[i].name, name))
			return 0;
	if (s->n == VM_MAX_MODULES)
		return -1;
	snprintf(s->mod[s->n].name, sizeof(s->mod[0].name), "%s", name);
	/* through a copy: the path is made of the set's own dir */
	char full[sizeof(s->mod[0].path)];

	snprintf(full, sizeof(full), "%s/%s", s->dir, path);
	memcpy(s->mod[s->n].path, full, sizeof(full));
	s->n++;
	return 0;
}

/*
 * modules.dep, as depmod wrote it: "kernel/fs/9p/9p.ko: kernel/net/9p/9pnet.ko
 * kernel/fs/fscache/fscache.ko ...". modprobe loads a module's dependencies
 * from the last listed to the first, then the module: so do we.
 */
static int order_from_depmod(struct vm_modset *s, FILE *dep, char *err, size_t errlen)
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
			char *colon = strchr(line, ':'), *tok[VM_MAX_MODULES];
			int ntok = 0;

			if (!colon)
				continue;
			*colon = '\0';
			module_name(line, name, sizeof(name));
			if (strcmp(name, wanted_modules[w]))
				continue;
			for (char *save = NULL, *t = strtok_r(colon + 1, " \t\n", &save);
			     t && ntok < VM_MAX_MODULES; t = strtok_r(NULL, " \t\n", &save))
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

int modules_for_guest(const char *kernel, const char *given, const char *release,
		      struct vm_modset *s, char *err, size_t errlen)
{
	char path[PATH_MAX + 16];
	FILE *dep;
	int rc;

	s->n = 0;
	if ((rc = find_modules(kernel, given, release, s->dir, sizeof(s->dir), err, errlen)))
		return rc;
	if (!s->dir[0])
		return 0;
	snprintf(path, sizeof(path), "%s/modules.dep", s->dir);
	dep = fopen(path, "re");
	if (!dep)
		return BAD("no modules.dep in '%s': run 'depmod -b BASE %s' on its tree first",
			   s->dir, release);
	rc = order_from_depmod(s, dep, err, errlen);
	fclose(dep);
	return rc;
}
