/*
 * What /proc says about tracing (procfs.c): every process's fds that are
 * tracing objects (BPF programs and links, perf events, tracefs files),
 * which the BPF and ftrace scanners attribute; and the processes under
 * ptrace or seccomp, as consumers.
 */
#ifndef TRACETAX_ATTACH_PROCFS_H
#define TRACETAX_ATTACH_PROCFS_H

#include "attach/consumers.h"

enum att_fd_type { FD_PROG, FD_LINK, FD_PERF, FD_NOTIFY, FD_TRACEFS };
struct att_fd {
	pid_t pid;
	int fd;
	enum att_fd_type type;
	uint32_t prog_id, link_id;  /* fdinfo's, or bpf_task_fd_query's */
	bool queried;               /* bpf_task_fd_query answered: the fields below */
	uint32_t fd_type;           /* BPF_FD_TYPE_* */
	char name[256];             /* tracepoint, function or file */
	uint64_t offset, addr;
	char path[256];             /* FD_TRACEFS: under the tracing dir */
};
struct att_fds {
	struct att_fd *v;
	size_t n, cap;
	pid_t self;
};
/* Every process's tracing fds into *@out (att_fds_release); 0, or -1 out of memory */
int att_fds_scan(struct att_fds **out, struct att_list *l);
void att_fds_release(struct att_fds *f);
/* The processes under ptrace or seccomp, as consumers of @l; 0, or -1 out of memory */
int att_task_scan(struct att_list *l);

#endif
