/*
 * BPF programs and perf events (bpf.h): each tracing program by id,
 * what it is attached to and who holds it; the perf events that processes
 * hold without a program, with their counts.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <mntent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>
#include <linux/perf_event.h>

#include "attach/bpf.h"
#include "base/activity.h"
#include "base/util.h"

/* activity's tracing types, and LSM programs: they run on every hook of theirs */
static int tracing_type(__u32 type)
{
	return activity_bpf_tracing_type(type) || type == BPF_PROG_TYPE_LSM;
}

static const char *fd_type_mech(__u32 t)
{
	switch (t) {
	case BPF_FD_TYPE_RAW_TRACEPOINT: return "raw_tracepoint";
	case BPF_FD_TYPE_TRACEPOINT: return "tracepoint";
	case BPF_FD_TYPE_KPROBE: return "kprobe";
	case BPF_FD_TYPE_KRETPROBE: return "kretprobe";
	case BPF_FD_TYPE_UPROBE: return "uprobe";
	case BPF_FD_TYPE_URETPROBE: return "uretprobe";
	default: return "?";
	}
}

static void what_add(struct att_consumer *c, const char *s)
{
	size_t used = strlen(c->what);

	if (strstr(c->what, s))	/* two holders of one attachment: one point */
		return;
	snprintf(c->what + used, sizeof(c->what) - used, "%s%s", used ? ", " : "", s);
}

/* One attachment that bpf_task_fd_query named */
static void point_of(struct att_consumer *c, const struct att_fd *q)
{
	char s[320];

	switch (q->fd_type) {
	case BPF_FD_TYPE_KPROBE:
	case BPF_FD_TYPE_KRETPROBE:
		if (q->name[0])
			snprintf(s, sizeof(s), "%s+%llu", q->name, (unsigned long long)q->offset);
		else
			snprintf(s, sizeof(s), "0x%llx", (unsigned long long)q->addr);
		break;
	case BPF_FD_TYPE_UPROBE:
	case BPF_FD_TYPE_URETPROBE:
		snprintf(s, sizeof(s), "%s:0x%llx", q->name, (unsigned long long)q->offset);
		break;
	default:
		snprintf(s, sizeof(s), "%s", q->name);
	}
	what_add(c, s);
	snprintf(c->mech, sizeof(c->mech), "%s", fd_type_mech(q->fd_type));
}

/* fentry, fexit, tp_btf, lsm: the target by its BTF id, named by vmlinux's BTF */
static void tracing_point(struct att_consumer *c, const struct bpf_prog_info *info,
			  struct btf **vmlinux, const struct bpf_link_info *li)
{
	const struct btf_type *t = NULL;
	const char *mech = "tracing";
	char s[160];

	if (li) {
		switch (li->tracing.attach_type) {
		case BPF_TRACE_FENTRY: mech = "fentry"; break;
		case BPF_TRACE_FEXIT: mech = "fexit"; break;
		case BPF_MODIFY_RETURN: mech = "fmod_ret"; break;
		case BPF_TRACE_RAW_TP: mech = "tp_btf"; break;
		case BPF_LSM_MAC: mech = "lsm"; break;
		default: break;
		}
	} else if (info->type == BPF_PROG_TYPE_LSM) {
		mech = "lsm";
	}
	snprintf(c->mech, sizeof(c->mech), "%s", mech);
	if (!*vmlinux)
		*vmlinux = btf__load_vmlinux_btf();
	if (*vmlinux && !libbpf_get_error(*vmlinux) && info->attach_btf_id)
		t = btf__type_by_id(*vmlinux, info->attach_btf_id);
	if (t && info->attach_btf_obj_id <= 1)
		snprintf(s, sizeof(s), "%s", btf__name_by_offset(*vmlinux, t->name_off));
	else
		snprintf(s, sizeof(s), "btf %u:%u", info->attach_btf_obj_id, info->attach_btf_id);
	what_add(c, s);
}

/* Every link of @c's program: fentry/fexit and kprobe_multi are named only here */
static void link_points(struct att_consumer *c, const struct bpf_prog_info *info,
			struct btf **vmlinux)
{
	__u32 id = 0;

	while (!bpf_link_get_next_id(id, &id)) {
		struct bpf_link_info li;
		__u32 len = sizeof(li);
		int fd = bpf_link_get_fd_by_id(id);

		if (fd < 0)
			continue;
		memset(&li, 0, sizeof(li));
		if (!bpf_obj_get_info_by_fd(fd, &li, &len) && li.prog_id == c->prog_id) {
			if (li.type == BPF_LINK_TYPE_TRACING)
				tracing_point(c, info, vmlinux, &li);
			else if (li.type == BPF_LINK_TYPE_KPROBE_MULTI) {
				snprintf(c->mech, sizeof(c->mech), "kprobe_multi");
				what_add(c, "kprobe_multi link");
			}
		}
		close(fd);
	}
}

/* The first bpffs mount, for pins; "" if none */
static char bpffs[256];
static __u32 pin_prog;
static char pin_found[256];

static int pin_visit(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	struct bpf_prog_info info;
	struct bpf_link_info li;
	__u32 len;
	char link[64], target[64];
	ssize_t n;
	int fd;

	(void)st;
	(void)ftw;
	if (flag != FTW_F)
		return 0;
	fd = bpf_obj_get(path);
	if (fd < 0)
		return 0;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, target, sizeof(target) - 1);
	target[n > 0 ? n : 0] = '\0';
	memset(&info, 0, sizeof(info));
	memset(&li, 0, sizeof(li));
	if (!strcmp(target, "anon_inode:bpf-prog")) {
		len = sizeof(info);
		if (!bpf_obj_get_info_by_fd(fd, &info, &len) && info.id == pin_prog)
			snprintf(pin_found, sizeof(pin_found), "%s", path);
	} else if (!strcmp(target, "anon_inode:bpf_link")) {
		len = sizeof(li);
		if (!bpf_obj_get_info_by_fd(fd, &li, &len) && li.prog_id == pin_prog)
			snprintf(pin_found, sizeof(pin_found), "%s", path);
	}
	close(fd);
	return pin_found[0] ? 1 : 0;
}

static void find_pin(struct att_consumer *c)
{
	if (!bpffs[0]) {
		FILE *m = setmntent("/proc/self/mounts", "re");
		struct mntent *e;

		while (m && (e = getmntent(m)))
			if (!strcmp(e->mnt_type, "bpf")) {
				snprintf(bpffs, sizeof(bpffs), "%s", e->mnt_dir);
				break;
			}
		if (m)
			endmntent(m);
		if (!bpffs[0])
			snprintf(bpffs, sizeof(bpffs), "-");
	}
	if (!strcmp(bpffs, "-"))
		return;
	pin_prog = c->prog_id;
	pin_found[0] = '\0';
	nftw(bpffs, pin_visit, 8, FTW_PHYS);
	snprintf(c->pin, sizeof(c->pin), "%s", pin_found);
}

static int add_prog(struct att_list *l, const struct att_fds *f, __u32 id, struct btf **vmlinux)
{
	struct bpf_prog_info info;
	__u32 len = sizeof(info);
	struct att_consumer *c;
	int fd = bpf_prog_get_fd_by_id(id);

	if (fd < 0)
		return fd == -EPERM ? 1 : 0;	/* -ENOENT: unloaded meanwhile */
	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(fd, &info, &len) || !tracing_type(info.type)) {
		close(fd);
		return 0;
	}
	close(fd);
	if (!(c = att_add(l, ATT_BPF)))
		return -1;
	snprintf(c->key, sizeof(c->key), "bpf prog %u", id);
	snprintf(c->name, sizeof(c->name), "%s", info.name);
	snprintf(c->mech, sizeof(c->mech), "%s", libbpf_bpf_prog_type_str(info.type) ?: "?");
	c->prog_id = id;
	c->counted = true;
	c->run_cnt = info.run_cnt;
	c->run_ns = info.run_time_ns;
	c->t = now_s();
	for (size_t i = 0; i < f->n; i++) {
		const struct att_fd *e = &f->v[i];

		if (e->prog_id != id)
			continue;
		att_holder_add(c, e->pid);
		if (e->queried)
			point_of(c, e);
	}
	if (info.type == BPF_PROG_TYPE_TRACING || info.type == BPF_PROG_TYPE_LSM ||
	    info.type == BPF_PROG_TYPE_KPROBE)
		link_points(c, &info, vmlinux);
	if (info.type == BPF_PROG_TYPE_TRACING && !c->what[0])
		tracing_point(c, &info, vmlinux, NULL);
	if (info.type == BPF_PROG_TYPE_PERF_EVENT)
		snprintf(c->mech, sizeof(c->mech), "perf_event");
	find_pin(c);
	if (!c->what[0])
		snprintf(c->what, sizeof(c->what), "no attachment found");
	return 0;
}

int att_bpf_scan(struct att_list *l, const struct att_fds *f)
{
	struct btf *vmlinux = NULL;
	__u32 id = 0;
	int err, rc = 0;

	/* libbpf 1.x returns -errno: -ENOENT past the last id, -EPERM unprivileged */
	for (err = bpf_prog_get_next_id(0, &id); !err && rc >= 0; err = bpf_prog_get_next_id(id, &id)) {
		if (activity_bpf_ours(id))
			continue;
		rc = add_prog(l, f, id, &vmlinux);
		if (rc > 0) {
			l->bpf_unknown = true;
			rc = 0;
			break;
		}
	}
	if (err == -EPERM)
		l->bpf_unknown = true;
	if (vmlinux && !libbpf_get_error(vmlinux))
		btf__free(vmlinux);
	return rc < 0 ? -1 : 0;
}

/*
 * A perf event's count, read through a copy of its holder's fd. The read
 * format is the holder's: the count comes first unless it reads a group,
 * where it follows the event's place; the event's own id (IOC_ID) tells
 * which. 0, or -1 (the format could not be told: not counted).
 */
static int perf_count(int pidfd, int fd, struct att_count *out)
{
	uint64_t buf[64], id = 0;
	int copy = (int)syscall(SYS_pidfd_getfd, pidfd, fd, 0);
	ssize_t n;
	int rc = -1;

	if (copy < 0)
		return -1;
	n = read(copy, buf, sizeof(buf));
	if (n >= 8 && !ioctl(copy, PERF_EVENT_IOC_ID, &id)) {
		size_t words = (size_t)n / 8;

		out->id = id;
		if (words == 1 || buf[1] == id) {
			out->value = buf[0];
			rc = 0;
		} else {
			for (size_t i = 2; i < words; i++)
				if (buf[i] == id) {	/* a group: value, id pairs after the header */
					out->value = buf[i - 1];
					rc = 0;
					break;
				}
		}
	}
	close(copy);
	return rc;
}

int att_perf_scan(struct att_list *l, const struct att_fds *f)
{
	for (size_t i = 0; i < f->n; i++) {
		const struct att_fd *e = &f->v[i];
		struct att_consumer *c;
		char key[64];
		int pidfd, nfds = 0, nbad = 0;

		if (e->type != FD_PERF || e->prog_id)
			continue;
		snprintf(key, sizeof(key), "perf pid %d", (int)e->pid);
		if (att_find(l, key))
			continue;
		if (!(c = att_add(l, ATT_PERF)))
			return -1;
		snprintf(c->key, sizeof(c->key), "%s", key);
		snprintf(c->mech, sizeof(c->mech), "perf_event");
		att_holder_add(c, e->pid);
		pidfd = (int)syscall(SYS_pidfd_open, e->pid, 0);
		for (size_t k = i; k < f->n; k++) {
			const struct att_fd *g = &f->v[k];

			if (g->type != FD_PERF || g->prog_id || g->pid != e->pid)
				continue;
			nfds++;
			if (pidfd < 0 || c->ncounts == ATT_MAX_COUNTS ||
			    perf_count(pidfd, g->fd, &c->counts[c->ncounts]))
				nbad++;
			else
				c->ncounts++;
		}
		c->t = now_s();
		if (pidfd >= 0)
			close(pidfd);
		snprintf(c->what, sizeof(c->what), "%d perf event%s without a BPF program", nfds,
			 nfds == 1 ? "" : "s");
		c->counted = !nbad;
		if (nbad)
			snprintf(c->why, sizeof(c->why), "%d of its %d events could not be read", nbad,
				 nfds);
	}
	return 0;
}
