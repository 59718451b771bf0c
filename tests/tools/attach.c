/*
 * tt-attach [SYSTEM:EVENT] [SECONDS]: another tracer, for the tests of
 * "disturbed". Loads one BPF program on a tracepoint (default
 * syscalls:sys_enter_getpid), prints "attached <prog id>", stays until
 * SIGTERM or SIGINT or SECONDS (0: no limit), then detaches, unloads and
 * prints "detached <prog id>: <hits> hits". Exit 0, 1 on failure, 2 on
 * bad usage.
 *
 * It must not outlive the test that started it: PR_SET_PDEATHSIG sends it
 * SIGTERM when its parent dies, and it takes that like any other SIGTERM.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "attach.skel.h"

static int usage(void)
{
	fprintf(stderr, "usage: tt-attach [SYSTEM:EVENT] [SECONDS]\n");
	return 2;
}

/* Until SIGTERM, SIGINT (both blocked, so taken here) or @secs; 0 = no limit. */
static void wait_for_end(const sigset_t *set, long secs)
{
	struct timespec ts = { secs, 0 };
	int sig;

	do
		sig = secs ? sigtimedwait(set, NULL, &ts) : sigwaitinfo(set, NULL);
	while (sig < 0 && errno == EINTR);
}

int main(int argc, char **argv)
{
	char tp[128] = "syscalls:sys_enter_getpid", *event, *end;
	pid_t parent = getppid();
	struct bpf_prog_info info;
	__u32 ilen = sizeof(info);
	struct attach_bpf *skel;
	struct bpf_link *link;
	long secs = 0;
	sigset_t set;
	int err = 1;

	if (argc > 3)
		return usage();
	if (argc > 1)
		snprintf(tp, sizeof(tp), "%s", argv[1]);
	if (argc > 2) {
		secs = strtol(argv[2], &end, 10);
		if (*end || secs < 0)
			return usage();
	}
	event = strchr(tp, ':');
	if (!event)
		return usage();
	*event++ = '\0';

	/* blocked before the death signal is armed: a SIGTERM must not be lost */
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigprocmask(SIG_BLOCK, &set, NULL);
	if (prctl(PR_SET_PDEATHSIG, SIGTERM) < 0 || getppid() != parent)
		return 1;	/* the parent died before the signal was armed */

	skel = attach_bpf__open_and_load();
	if (!skel) {
		fprintf(stderr, "tt-attach: cannot load the program: %s\n", strerror(errno));
		return 1;
	}
	link = bpf_program__attach_tracepoint(skel->progs.tt_attach_tp, tp, event);
	if (!link) {
		fprintf(stderr, "tt-attach: cannot attach to '%s:%s': %s\n", tp, event,
			strerror(errno));
		goto cleanup;
	}
	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(bpf_program__fd(skel->progs.tt_attach_tp), &info, &ilen) < 0) {
		fprintf(stderr, "tt-attach: cannot read the program's id: %s\n", strerror(errno));
		goto cleanup;
	}
	printf("attached %u\n", info.id);
	fflush(stdout);
	wait_for_end(&set, secs);
	printf("detached %u: %llu hits\n", info.id, (unsigned long long)skel->bss->hits);
	err = 0;
cleanup:
	bpf_link__destroy(link);
	attach_bpf__destroy(skel);
	return err;
}
