/*
 * What /proc says about tracing (procfs.h): every process's fds that are
 * tracing objects (BPF programs and links, perf events, tracefs files), and
 * the processes under ptrace or seccomp. /proc/PID/fdinfo is the only way to
 * map another process's fd to a BPF object id; bpf_task_fd_query, the same
 * call `bpftool perf` makes, names what a perf-event or raw-tracepoint fd is
 * attached to, and reads nothing else.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <tracefs.h>

#include "attach/procfs.h"
#include "base/activity.h"

static struct att_fd *fd_add(struct att_fds *f)
{
	if (f->n == f->cap) {
		size_t cap = f->cap ? 2 * f->cap : 64;
		struct att_fd *v = realloc(f->v, cap * sizeof(*v));

		if (!v)
			return NULL;
		f->v = v;
		f->cap = cap;
	}
	memset(&f->v[f->n], 0, sizeof(f->v[0]));
	return &f->v[f->n++];
}

/* "prog_id:" and "link_id:" of an fdinfo */
static void fdinfo_ids(pid_t pid, const char *fd, struct att_fd *e)
{
	char path[96], line[160];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/fdinfo/%s", (int)pid, fd);
	if (!(f = fopen(path, "re")))
		return;
	while (fgets(line, sizeof(line), f)) {
		sscanf(line, "prog_id: %u", &e->prog_id);
		sscanf(line, "link_id: %u", &e->link_id);
	}
	fclose(f);
}

/* What a perf-event or link fd is attached to; prog_id stays 0 when none */
static void fd_query(struct att_fd *e)
{
	__u32 len = sizeof(e->name), id = 0, type = 0;
	__u64 off = 0, addr = 0;

	if (bpf_task_fd_query(e->pid, e->fd, 0, e->name, &len, &id, &type, &off, &addr)) {
		e->name[0] = '\0';
		return;
	}
	e->queried = true;
	e->prog_id = id;
	e->fd_type = type;
	e->offset = off;
	e->addr = addr;
}

static int proc_fds(struct att_fds *f, pid_t pid, const char *tdir)
{
	char dir[64];
	struct dirent *e;
	DIR *d;
	size_t tlen = tdir ? strlen(tdir) : 0;

	snprintf(dir, sizeof(dir), "/proc/%d/fd", (int)pid);
	if (!(d = opendir(dir)))
		return errno == ENOENT ? 0 : 1;
	while ((e = readdir(d))) {
		char path[128], target[512];
		struct att_fd *a;
		ssize_t len;
		enum att_fd_type type;

		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		len = readlink(path, target, sizeof(target) - 1);
		if (len < 0)
			continue;
		target[len] = '\0';
		if (!strcmp(target, "anon_inode:bpf-prog"))
			type = FD_PROG;
		else if (!strcmp(target, "anon_inode:bpf_link"))
			type = FD_LINK;
		else if (!strcmp(target, "anon_inode:[perf_event]"))
			type = FD_PERF;
		else if (!strcmp(target, "anon_inode:seccomp notify"))
			type = FD_NOTIFY;
		else if (tlen && !strncmp(target, tdir, tlen) && target[tlen] == '/')
			type = FD_TRACEFS;
		else
			continue;
		if (!(a = fd_add(f))) {
			closedir(d);
			errno = ENOMEM;
			return -1;
		}
		a->pid = pid;
		a->fd = atoi(e->d_name);
		a->type = type;
		if (type == FD_TRACEFS)
			snprintf(a->path, sizeof(a->path), "%s", target + tlen + 1);
		if (type == FD_PROG || type == FD_LINK)
			fdinfo_ids(pid, e->d_name, a);
		if (type == FD_PERF || type == FD_LINK)
			fd_query(a);
	}
	closedir(d);
	return 0;
}

int att_fds_scan(struct att_fds **out, struct att_list *l)
{
	struct att_fds *f = calloc(1, sizeof(*f));
	const char *tdir = tracefs_tracing_dir();
	struct dirent *e;
	DIR *d;

	*out = f;
	if (!f)
		return -1;
	f->self = getpid();
	if (!(d = opendir("/proc")))
		return 0;
	while ((e = readdir(d))) {
		pid_t pid;
		int rc;

		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		pid = atoi(e->d_name);
		if (pid == f->self)
			continue;
		rc = proc_fds(f, pid, tdir);
		if (rc < 0) {
			closedir(d);
			return -1;
		}
		if (rc)
			l->proc_partial = true;
	}
	closedir(d);
	return 0;
}

void att_fds_release(struct att_fds *f)
{
	if (f)
		free(f->v);
	free(f);
}

/* Seccomp mode and filter count of @pid's main thread */
static int seccomp_of(pid_t pid, int *filters)
{
	char path[64], line[128];
	int mode = 0;
	FILE *f;

	*filters = 0;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (!(f = fopen(path, "re")))
		return 0;
	while (fgets(line, sizeof(line), f)) {
		sscanf(line, "Seccomp: %d", &mode);
		sscanf(line, "Seccomp_filters: %d", filters);
	}
	fclose(f);
	return mode;
}

int att_task_scan(struct att_list *l)
{
	pid_t self = getpid();
	struct dirent *e;
	DIR *d;

	if (!(d = opendir("/proc")))
		return 0;
	while ((e = readdir(d))) {
		struct att_consumer *c;
		struct att_proc target;
		pid_t pid, tracer;
		int filters, mode;

		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		pid = atoi(e->d_name);
		if (pid == self)
			continue;
		tracer = activity_ptracer(pid, self);
		mode = seccomp_of(pid, &filters);
		if (!tracer && mode != 2)
			continue;
		att_proc_read(pid, &target);
		if (tracer) {
			if (!(c = att_add(l, ATT_PTRACE)))
				goto oom;
			snprintf(c->key, sizeof(c->key), "ptrace %d by %d", (int)pid, (int)tracer);
			snprintf(c->mech, sizeof(c->mech), "ptrace");
			snprintf(c->what, sizeof(c->what), "pid %d (%s)", (int)pid, target.comm);
			c->target = pid;
			memcpy(c->target_comm, target.comm, sizeof(c->target_comm));
			att_holder_add(c, tracer);
		}
		if (mode == 2) {
			if (!(c = att_add(l, ATT_SECCOMP)))
				goto oom;
			snprintf(c->key, sizeof(c->key), "seccomp %d", (int)pid);
			snprintf(c->mech, sizeof(c->mech), "seccomp");
			snprintf(c->what, sizeof(c->what), "pid %d (%s), %d filter%s", (int)pid,
				 target.comm, filters, filters == 1 ? "" : "s");
			c->target = pid;
			memcpy(c->target_comm, target.comm, sizeof(c->target_comm));
			/* a filter's RET_TRACE goes to the tracer (strace --seccomp-bpf) */
			if (tracer)
				att_holder_add(c, tracer);
		}
	}
	closedir(d);
	return 0;
oom:
	closedir(d);
	errno = ENOMEM;
	return -1;
}
