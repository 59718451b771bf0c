/*
 * The probe of what else is tracing (activity.h). Read only: it lists
 * tracefs files and BPF program ids, and never writes tracing state.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>
#include <tracefs.h>

#include "base/activity.h"
#include "base/tracefs_util.h"

/* Items under construction: a growing array, and the first error kept. */
struct items {
	char **v;
	size_t n, cap;
	int err;
};

static void item_add(struct items *it, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void item_add(struct items *it, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int rc;

	if (it->err)
		return;
	if (it->n == it->cap) {
		size_t cap = it->cap ? 2 * it->cap : 16;
		char **v = realloc(it->v, cap * sizeof(*v));

		if (!v) {
			it->err = ENOMEM;
			return;
		}
		it->v = v;
		it->cap = cap;
	}
	va_start(ap, fmt);
	rc = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (rc < 0) {
		it->err = ENOMEM;
		return;
	}
	it->v[it->n++] = s;
}

/*
 * Each line of a tracefs list file (set_event, dynamic_events), comments
 * and blank lines skipped. @skip_group: a dynamic event group to leave
 * out ("p:tracetax_123/name ..."), or NULL.
 */
static void file_lines(struct items *it, const char *path, const char *kind, const char *where,
		       const char *skip_group)
{
	size_t cap = 0, glen = skip_group ? strlen(skip_group) : 0;
	char *line = NULL;
	FILE *f = fopen(path, "re");

	if (!f)
		return;
	while (getline(&line, &cap, f) > 0) {
		char *colon = strchr(line, ':');

		line[strcspn(line, "\n")] = '\0';
		if (!line[0] || line[0] == '#')
			continue;
		if (skip_group && colon && !strncmp(colon + 1, skip_group, glen) && colon[1 + glen] == '/')
			continue;
		item_add(it, "%s %s%s%s", kind, line, where[0] ? " in instance " : "", where);
	}
	free(line);
	fclose(f);
}

/* set_event and current_tracer of the top level (@name "") or of an instance. */
static void buffer_items(struct items *it, const char *tdir, const char *name)
{
	char path[512], val[128] = "";
	const char *sub = name[0] ? "/instances/" : "";
	FILE *f;

	snprintf(path, sizeof(path), "%s%s%s/set_event", tdir, sub, name);
	file_lines(it, path, "event", name, NULL);
	snprintf(path, sizeof(path), "%s%s%s/current_tracer", tdir, sub, name);
	f = fopen(path, "re");
	if (!f)
		return;
	if (fgets(val, sizeof(val), f)) {
		val[strcspn(val, "\n")] = '\0';
		if (val[0] && strcmp(val, "nop"))
			item_add(it, "tracer %s%s%s", val, name[0] ? " in instance " : "", name);
	}
	fclose(f);
}

/* 1 if tracefs cannot be read (not root): libtracefs would look for it on every call */
static int tracefs_items(struct items *it)
{
	const char *tdir = tracefs_tracing_dir();
	char ours[64], group[64], path[512];
	char **inst;

	if (!tdir || access(tdir, R_OK | X_OK) < 0)
		return 1;
	tt_instance_name(ours, sizeof(ours));
	snprintf(group, sizeof(group), TT_DYNEVENT_PREFIX "%d", (int)getpid());
	buffer_items(it, tdir, "");
	inst = tracefs_instances(NULL);
	for (size_t i = 0; inst && inst[i]; i++) {
		if (!strcmp(inst[i], ours))
			continue;
		item_add(it, "instance %s", inst[i]);
		buffer_items(it, tdir, inst[i]);
	}
	tracefs_list_free(inst);
	/* dynamic_events (5.x) lists kprobes, uprobes, eprobes and synthetic events */
	snprintf(path, sizeof(path), "%s/dynamic_events", tdir);
	if (access(path, F_OK) == 0) {
		file_lines(it, path, "dynamic event", "", group);
		return 0;
	}
	snprintf(path, sizeof(path), "%s/kprobe_events", tdir);
	file_lines(it, path, "dynamic event", "", group);
	snprintf(path, sizeof(path), "%s/uprobe_events", tdir);
	file_lines(it, path, "dynamic event", "", group);
	return 0;
}

/*
 * Ids of the BPF programs this process holds an fd of: the skeleton of the
 * cell being measured is not "another tracer". /proc/self/fdinfo is the
 * only way to map an fd to its program id without a syscall per fd.
 */
static size_t prog_ids_of(const char *pid, __u32 *ids, size_t max)
{
	char dir[64];
	DIR *d;
	struct dirent *e;
	size_t n = 0;

	snprintf(dir, sizeof(dir), "/proc/%s/fd", pid);
	if (!(d = opendir(dir)))
		return 0;
	while (n < max && (e = readdir(d))) {
		char path[300], target[64], line[128];
		ssize_t len;
		FILE *f;

		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/fd/%s", pid, e->d_name);
		len = readlink(path, target, sizeof(target) - 1);
		if (len < 0)
			continue;
		target[len] = '\0';
		if (strcmp(target, "anon_inode:bpf-prog"))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/fdinfo/%s", pid, e->d_name);
		if (!(f = fopen(path, "re")))
			continue;
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "prog_id: %u", &ids[n]) == 1) {
				n++;
				break;
			}
		fclose(f);
	}
	closedir(d);
	return n;
}

int activity_bpf_tracing_type(unsigned int type)
{
	switch (type) {
	case BPF_PROG_TYPE_KPROBE:
	case BPF_PROG_TYPE_TRACEPOINT:
	case BPF_PROG_TYPE_PERF_EVENT:
	case BPF_PROG_TYPE_RAW_TRACEPOINT:
	case BPF_PROG_TYPE_RAW_TRACEPOINT_WRITABLE:
	case BPF_PROG_TYPE_TRACING:
		return 1;
	default:
		return 0;
	}
}

/*
 * Programs this process loaded, held or not: a program we detached and
 * closed lingers after a raw tracepoint or perf link lets go of it (the
 * kernel puts it after an RCU grace period), and must not come back as
 * "another tracer" in the next sample.
 */
static __u32 *loaded;
static size_t nloaded, caploaded;

/*
 * At exit, until the kernel has freed every program we loaded (for at most
 * two seconds): the next tracetax, which takes the machine lock the moment
 * ours goes, would otherwise see one of ours linger (tt_syscheck, for 60 to
 * 260 ms here after every run) and then go, and call its cell disturbed.
 */
static size_t prog_ids_of(const char *pid, __u32 *ids, size_t max);

static void wait_own_gone(void)
{
	__u32 held[256];
	size_t nheld = prog_ids_of("self", held, sizeof(held) / sizeof(held[0]));

	for (int waited = 0; waited < 2000; waited += 5) {
		size_t left = 0;

		for (size_t i = 0; i < nloaded; i++) {
			size_t k = 0;
			int fd;

			while (k < nheld && held[k] != loaded[i])
				k++;
			if (k < nheld)
				continue;	/* still ours (a path that did not tear down): exit frees it */
			fd = bpf_prog_get_fd_by_id(loaded[i]);

			if (fd >= 0) {
				close(fd);
				left++;
			}
		}
		if (!left)
			return;
		usleep(5000);
	}
}

static void own_id(__u32 id)
{
	if (!caploaded)
		atexit(wait_own_gone);
	if (nloaded == caploaded) {
		size_t cap = caploaded ? 2 * caploaded : 64;
		__u32 *n = realloc(loaded, cap * sizeof(*n));

		if (!n)
			return;	/* at worst a false "disturbed", never a missed one */
		loaded = n;
		caploaded = cap;
	}
	loaded[nloaded++] = id;
}

void activity_own_bpf_prog(int fd)
{
	struct bpf_prog_info info;
	__u32 ilen = sizeof(info);

	memset(&info, 0, sizeof(info));
	if (fd >= 0 && !bpf_obj_get_info_by_fd(fd, &info, &ilen))
		own_id(info.id);
}

void activity_own_bpf_of(pid_t pid)
{
	__u32 ids[256];
	char name[24];
	size_t n;

	snprintf(name, sizeof(name), "%d", (int)pid);
	n = prog_ids_of(name, ids, sizeof(ids) / sizeof(ids[0]));
	for (size_t i = 0; i < n; i++)
		own_id(ids[i]);
}

static int loaded_by_us(__u32 id)
{
	for (size_t i = 0; i < nloaded; i++)
		if (loaded[i] == id)
			return 1;
	return 0;
}

int activity_bpf_ours(__u32 id)
{
	__u32 ours[256];
	size_t n = prog_ids_of("self", ours, sizeof(ours) / sizeof(ours[0]));

	for (size_t i = 0; i < n; i++)
		if (ours[i] == id)
			return 1;
	return loaded_by_us(id);
}

/* Tracing programs loaded, by id; 1 if they cannot be listed (no permission). */
static int bpf_items(struct items *it)
{
	__u32 ours[256], id = 0;
	size_t nours;
	int err;

	/* libbpf 1.x returns -errno: -ENOENT past the last id, -EPERM unprivileged */
	err = bpf_prog_get_next_id(0, &id);
	if (err < 0)
		return err == -EPERM;
	nours = prog_ids_of("self", ours, sizeof(ours) / sizeof(ours[0]));
	for (; err == 0; err = bpf_prog_get_next_id(id, &id)) {
		struct bpf_prog_info info;
		__u32 ilen = sizeof(info);
		size_t k = 0;
		int fd;

		while (k < nours && ours[k] != id)
			k++;
		if (k < nours || loaded_by_us(id))
			continue;
		fd = bpf_prog_get_fd_by_id(id);
		if (fd < 0) {
			if (fd == -EPERM)
				return 1;
			continue;	/* unloaded meanwhile */
		}
		memset(&info, 0, sizeof(info));
		/* libbpf names the types as bpftool does: "tracepoint", "raw_tracepoint" */
		if (bpf_obj_get_info_by_fd(fd, &info, &ilen) == 0 && activity_bpf_tracing_type(info.type))
			item_add(it, "bpf prog %u '%s' (%s)", id, info.name,
				 libbpf_bpf_prog_type_str(info.type) ?: "?");
		close(fd);
	}
	return err == -EPERM;
}

static int item_cmp(const void *a, const void *b)
{
	return strverscmp(*(char *const *)a, *(char *const *)b);
}

int activity_sample_settled(struct activity *a)
{
	char what[8];

	if (activity_sample(a))
		return -1;
	for (int i = 0; i < 50; i++) {
		struct activity now;

		usleep(20000);
		if (activity_sample(&now))
			return 0;	/* keep what we have */
		if (!activity_diff(a, &now, what, sizeof(what))) {
			activity_release(&now);
			return 0;
		}
		activity_release(a);
		*a = now;
	}
	return 0;
}

int activity_sample(struct activity *a)
{
	struct items it = { 0 };
	int bpf_unknown, tracefs_unknown;

	memset(a, 0, sizeof(*a));
	tracefs_unknown = tracefs_items(&it);
	bpf_unknown = bpf_items(&it);
	if (it.err) {
		a->items = it.v;
		a->n = it.n;
		activity_release(a);
		errno = it.err;
		return -1;
	}
	if (it.n)
		qsort(it.v, it.n, sizeof(*it.v), item_cmp);
	a->items = it.v;
	a->n = it.n;
	a->bpf_unknown = bpf_unknown;
	a->tracefs_unknown = tracefs_unknown;
	return 0;
}

void activity_release(struct activity *a)
{
	for (size_t i = 0; i < a->n; i++)
		free(a->items[i]);
	free(a->items);
	memset(a, 0, sizeof(*a));
}

/* Writing into a fixed buffer: what does not fit is cut, with "..." at the end. */
struct sink {
	char *buf;
	size_t len, used;
	int cut;
};

static void sink_put(struct sink *s, const char *str)
{
	size_t n = strlen(str);

	if (s->cut || !s->len)
		return;
	if (s->used + n < s->len) {
		memcpy(s->buf + s->used, str, n + 1);
		s->used += n;
		return;
	}
	s->cut = 1;
	n = s->len - 1 - s->used;
	memcpy(s->buf + s->used, str, n);
	s->used += n;
	s->buf[s->used] = '\0';
	if (s->len >= 4)
		memcpy(s->buf + s->len - 4, "...", 4);
}

/* The items of @a missing from @b (both sorted), as "label: x, y"; how many. */
static size_t diff_side(struct sink *s, const char *label, const struct activity *a,
			const struct activity *b)
{
	size_t i = 0, j = 0, n = 0;

	while (i < a->n) {
		int c = j < b->n ? strverscmp(a->items[i], b->items[j]) : -1;

		if (c > 0) {
			j++;
			continue;
		}
		if (c < 0) {
			sink_put(s, n++ ? ", " : label);
			sink_put(s, a->items[i]);
		} else {
			j++;
		}
		i++;
	}
	return n;
}

int activity_diff(const struct activity *before, const struct activity *after, char *buf,
		  size_t len)
{
	struct sink s = { buf, len, 0, 0 };
	size_t appeared, gone;

	if (len)
		buf[0] = '\0';
	appeared = diff_side(&s, "appeared: ", after, before);
	gone = diff_side(&s, appeared ? "; gone: " : "gone: ", before, after);
	return appeared || gone;
}

void activity_summary(const struct activity *a, char *buf, size_t len)
{
	/* room kept for "; ... (N more)" while more items follow */
	const size_t reserve = 24;
	struct sink s = { buf, len, 0, 0 };

	if (len)
		buf[0] = '\0';
	if (!a->n && !a->bpf_unknown && !a->tracefs_unknown) {
		sink_put(&s, "none");
		return;
	}
	/* where "bpf prog" items would sort: first */
	if (a->bpf_unknown)
		sink_put(&s, "bpf: unknown (no permission)");
	if (a->tracefs_unknown)
		sink_put(&s, s.used ? "; tracefs: unknown (no access)" : "tracefs: unknown (no access)");
	for (size_t i = 0; i < a->n; i++) {
		const char *sep = s.used ? "; " : "";
		size_t need = strlen(sep) + strlen(a->items[i]);

		if (s.used + need + (i + 1 < a->n ? reserve : 0) >= len) {
			char more[32];

			snprintf(more, sizeof(more), "%s... (%zu more)", sep, a->n - i);
			sink_put(&s, more);
			return;
		}
		sink_put(&s, sep);
		sink_put(&s, a->items[i]);
	}
}

pid_t activity_ptracer(pid_t pid, pid_t ours)
{
	char path[64], line[128];
	struct dirent *e;
	pid_t found = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	if (!(d = opendir(path)))
		return 0;
	/* ptrace attaches to threads one by one: any of them may be traced */
	while (!found && (e = readdir(d))) {
		FILE *f;
		int tracer;

		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%.16s/status", (int)pid, e->d_name);
		if (!(f = fopen(path, "re")))
			continue;
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "TracerPid: %d", &tracer) == 1) {
				if (tracer > 0 && tracer != ours)
					found = tracer;
				break;
			}
		fclose(f);
	}
	closedir(d);
	return found;
}
