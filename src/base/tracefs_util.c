/* tracefs helpers: our instance, ring-buffer counters, stale-object cleanup. */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include <tracefs.h>

#include "base/owner.h"
#include "base/tracefs_util.h"
#include "base/util.h"

void tt_instance_name(char *buf, size_t len)
{
	snprintf(buf, len, TT_INSTANCE_PREFIX "%d", (int)getpid());
}

struct tracefs_instance *tt_instance_create(char *err, size_t len)
{
	struct tracefs_instance *inst;
	char name[64];

	tt_instance_name(name, sizeof(name));
	if (!tracefs_tracing_dir()) {
		snprintf(err, len, "cannot find or mount tracefs: %s", strerror(errno));
		return NULL;
	}
	inst = tracefs_instance_create(name);
	/*
	 * The name holds our pid, so an existing instance is one an earlier
	 * cell of this process failed to remove (one cell runs at a time):
	 * its options, pids and filters are unknown, so start from scratch.
	 */
	if (inst && !tracefs_instance_is_new(inst)) {
		debug("tracefs instance '%s' exists, recreating it", name);
		tracefs_instance_destroy(inst);
		tracefs_instance_free(inst);
		inst = tracefs_instance_create(name);
	}
	if (!inst)
		snprintf(err, len, "cannot create tracefs instance '%s': %s", name, strerror(errno));
	return inst;
}

void tt_instance_destroy(struct tracefs_instance **inst)
{
	if (!*inst)
		return;
	/* rmdir disables the instance's events and frees its buffers. */
	if (tracefs_instance_destroy(*inst) < 0)
		warning("cannot remove tracefs instance '%s': %s",
			tracefs_instance_get_name(*inst), strerror(errno));
	tracefs_instance_free(*inst);
	*inst = NULL;
}

int tt_tracefs_probe(const char *system, const char *event, char *reason, size_t len)
{
	struct tracefs_instance *inst;
	char name[64];

	if (!tracefs_tracing_dir()) {
		snprintf(reason, len, "cannot find or mount tracefs: %s", strerror(errno));
		return -1;
	}
	if (!tracefs_event_file_exists(NULL, system, event, "enable")) {
		if (errno == ENOENT)
			snprintf(reason, len, "tracefs event '%s:%s' not found", system, event);
		else
			snprintf(reason, len, "cannot access tracefs event '%s:%s': %s",
				 system, event, strerror(errno));
		return -1;
	}
	tt_instance_name(name, sizeof(name));
	if (tracefs_instance_exists(name))
		return 0;	/* ours, in use: creating works */
	inst = tt_instance_create(reason, len);
	if (!inst)
		return -1;
	tt_instance_destroy(&inst);
	return 0;
}

long tt_tracefs_event_id(const char *system, const char *event)
{
	char *s = tracefs_event_file_read(NULL, system, event, "id", NULL);
	long id;

	if (!s)
		return -1;
	id = strtol(s, NULL, 10);
	free(s);
	if (id <= 0) {
		errno = EINVAL;
		return -1;
	}
	return id;
}

/*
 * The ring buffer stores the payload the event reserves plus a 4-byte header
 * (8 when the payload exceeds 112 bytes), 4-byte aligned (kernel/trace/
 * ring_buffer.c, rb_calculate_event_length). The format file lists the fields;
 * the reserved size is the struct's sizeof, which pads the last field to the
 * struct's alignment: syscall records hold longs, so round up to 8
 * (sys_enter_getpid: fields end at 12, sizeof 16, record 20 bytes).
 */
int tt_tracefs_record_size(const char *system, const char *event)
{
	char *fmt = tracefs_event_file_read(NULL, system, event, "format", NULL);
	long end = 0, off, size;
	const char *p;

	if (!fmt)
		return -1;
	for (p = fmt; (p = strstr(p, "offset:")); p++) {
		if (sscanf(p, "offset:%ld; size:%ld;", &off, &size) == 2 && off + size > end)
			end = off + size;
	}
	free(fmt);
	if (end <= 0) {
		errno = EINVAL;
		return -1;
	}
	end = (end + 7) & ~7L;
	end += end > 112 ? 8 : 4;
	return (int)((end + 3) & ~3L);
}

static void stats_add(struct tt_rb_stats *st, const char *text)
{
	static const struct { const char *key; size_t off; } keys[] = {
		{ "entries:", offsetof(struct tt_rb_stats, entries) },
		{ "overrun:", offsetof(struct tt_rb_stats, overrun) },
		{ "commit overrun:", offsetof(struct tt_rb_stats, commit_overrun) },
		{ "dropped events:", offsetof(struct tt_rb_stats, dropped) },
		{ "read events:", offsetof(struct tt_rb_stats, read) },
		{ "bytes:", offsetof(struct tt_rb_stats, bytes) },
	};

	for (const char *line = text, *next; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			next++;
		for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
			size_t n = strlen(keys[i].key);

			if (!strncmp(line, keys[i].key, n))
				*(int64_t *)((char *)st + keys[i].off) += strtoll(line + n, NULL, 10);
		}
	}
}

int tt_instance_stats(struct tracefs_instance *inst, struct tt_rb_stats *out)
{
	char *dir = tracefs_instance_get_file(inst, "per_cpu");
	struct dirent *de;
	DIR *d;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	d = dir ? opendir(dir) : NULL;
	tracefs_put_tracing_file(dir);
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		char file[300], *text;

		if (strncmp(de->d_name, "cpu", 3))
			continue;
		snprintf(file, sizeof(file), "per_cpu/%s/stats", de->d_name);
		text = tracefs_instance_file_read(inst, file, NULL);
		if (!text) {
			ret = -1;
			break;
		}
		stats_add(out, text);
		free(text);
	}
	closedir(d);
	return ret;
}

void tt_rb_count(const struct tt_rb_stats *st, int64_t *hits, int64_t *lost)
{
	*lost = st->overrun + st->commit_overrun + st->dropped;
	*hits = st->read + st->entries + *lost;
}

int tt_tracefs_has(const char *file)
{
	char *path = tracefs_get_tracing_file(file);
	int ok;

	if (!path)
		return 0;
	ok = !access(path, F_OK);
	tracefs_put_tracing_file(path);
	return ok;
}

/*
 * A name "<prefix><pid>" whose process is gone (owner_gone()). One whose
 * process still runs is kept, and @kept (may be NULL) told why.
 */
static bool stale_name(const char *name, const char *prefix, const char *kind,
		       owner_kept_fn kept)
{
	size_t n = strlen(prefix);
	char why[160], what[160];
	int64_t pid;

	if (strncmp(name, prefix, n) || parse_i64(name + n, 1, INT32_MAX, &pid))
		return false;
	if (owner_gone((pid_t)pid, why, sizeof(why)))
		return true;
	if (kept) {
		snprintf(what, sizeof(what), "%s '%s'", kind, name);
		kept(what, why);
	}
	return false;
}

static int cleanup_instances(int *removed, owner_kept_fn kept)
{
	char **names = tracefs_instances("^" TT_INSTANCE_PREFIX "[0-9][0-9]*$");
	int ret = 0;

	for (int i = 0; names && names[i]; i++) {
		struct tracefs_instance *inst;

		if (!stale_name(names[i], TT_INSTANCE_PREFIX, "tracefs instance", kept))
			continue;
		inst = tracefs_instance_alloc(NULL, names[i]);
		if (inst && !tracefs_instance_destroy(inst)) {
			debug("removed stale tracefs instance '%s'", names[i]);
			(*removed)++;
		} else {
			ret = error("cannot remove stale tracefs instance '%s': %s",
				    names[i], strerror(errno));
		}
		tracefs_instance_free(inst);
	}
	tracefs_list_free(names);
	return ret;
}

static int cleanup_dynevents(int *removed, owner_kept_fn kept)
{
	struct tracefs_dynevent **ev;
	int ret = 0;

	ev = tracefs_dynevent_get_all(TRACEFS_DYNEVENT_UPROBE | TRACEFS_DYNEVENT_URETPROBE |
				       TRACEFS_DYNEVENT_KPROBE | TRACEFS_DYNEVENT_KRETPROBE, NULL);
	for (int i = 0; ev && ev[i]; i++) {
		char *sys = NULL, *name = NULL;

		tracefs_dynevent_info(ev[i], &sys, &name, NULL, NULL, NULL);
		if (sys && stale_name(sys, TT_DYNEVENT_PREFIX, "uprobe group", kept)) {
			/* force: disable it first wherever it is enabled, or the kernel says EBUSY */
			/*
			 * ENOENT: gone between the listing and now (libtracefs also
			 * tries the kprobe file, which a kernel without kprobes lacks)
			 */
			if (!tracefs_dynevent_destroy(ev[i], true) || errno == ENOENT) {
				debug("removed stale event '%s:%s'", sys, name);
				(*removed)++;
			} else {
				ret = error("cannot remove stale event '%s:%s': %s",
					    sys, name ? name : "", strerror(errno));
			}
		}
		free(sys);
		free(name);
	}
	tracefs_dynevent_list_free(ev);
	return ret;
}

int tracefs_cleanup_stale(int *removed, owner_kept_fn kept)
{
	int ret;

	*removed = 0;
	if (!tracefs_tracing_dir())
		return 0;	/* no tracefs: nothing of ours can be there */
	/* Instances first: removing one disables the uprobes enabled in it. */
	ret = cleanup_instances(removed, kept);
	if (cleanup_dynevents(removed, kept))
		ret = -1;
	return ret;
}
