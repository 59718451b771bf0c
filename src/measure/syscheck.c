/*
 * The syscall a workload's ops really make, seen by the kernel once per
 * run instead of trusted from the workload table. glibc 2.36 makes stat()
 * a newfstatat: a probe on sys_enter_newstat then counts nothing, the trap
 * the bpftrace/strace post fell into on a newer glibc. A libc that changes
 * its mind again fails the workload's cells, naming the syscall it saw.
 *
 * How: the workload runs once, untraced but for one BPF program on the raw
 * sys_enter tracepoint that counts every syscall of its tgid by number,
 * attached after the ready line (ld.so's calls are not counted). Its ops
 * make exactly `events` calls of one syscall: the table's must have made
 * exactly that many. Not "the busiest": a workload may make other calls
 * besides, as tcp-rr's peer thread, which reads twice per round trip.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "base/activity.h"
#include "measure/child.h"
#include "load/workloads.h"
#include "load/syscalls.h"
#include "measure/syscheck.h"
#include "syscheck.skel.h"
#include "tracers/tracer.h"

#define CHECK_ITERATIONS 2000
#define CHECK_WARMUP 100
#define MAX_NR 1024
/* TRACETAX_TEST_SYSCALL=WORKLOAD=SYSCALL: the table claims another syscall (tests) */
#define OVERRIDE_ENV "TRACETAX_TEST_SYSCALL"

struct verdict {
	char workload[32];
	int rc;                 /* SYSCHECK_* */
	char seen[32];
	char reason[256];
};

static struct verdict done[64];
static int ndone;

/* What the table says @w makes, or what the test override claims. */
static const char *claimed(const struct workload *w)
{
	const char *env = getenv(OVERRIDE_ENV);
	size_t n = strlen(w->name);

	if (env && !strncmp(env, w->name, n) && env[n] == '=')
		return env + n + 1;
	return w->syscall;
}

static void name_of(long nr, char *buf, size_t len)
{
	const struct tt_syscall *s = tt_syscall_by_nr(nr);

	if (s)
		snprintf(buf, len, "%s", s->name);
	else
		snprintf(buf, len, "syscall %ld", nr);
}

/* One run of the workload with the counter attached: calls by syscall number. */
static int count_run(struct syscheck_bpf *skel, const char *workload, const char *load_path,
		     uint64_t *counts, int64_t *events, char *err, size_t len)
{
	struct load_spec spec = { .load_path = load_path, .workload = workload, .threads = 1,
				  .iterations = CHECK_ITERATIONS, .warmup = CHECK_WARMUP };
	struct load_result res = { 0 };
	struct load_proc lp;
	struct bpf_link *link = NULL;
	int ret = -1, fd = bpf_map__fd(skel->maps.nr_count);

	if (load_spawn(&lp, &spec, NULL) || load_wait_ready(&lp, 10000)) {
		snprintf(err, len, "%s", lp.err);
		goto out;
	}
	skel->bss->target_tgid = (__u32)lp.load_pid;
	link = bpf_program__attach_raw_tracepoint(skel->progs.tt_syscheck, "sys_enter");
	if (!link) {
		snprintf(err, len, "cannot attach to raw tracepoint sys_enter: %s", strerror(errno));
		goto out;
	}
	if (load_go(&lp) || load_read_result(&lp, 60000, &res) || load_wait_exit(&lp, 10000)) {
		snprintf(err, len, "%s", lp.err);
		goto out;
	}
	for (__u32 k = 0; k < MAX_NR; k++)
		if (bpf_map_lookup_elem(fd, &k, &counts[k]))
			counts[k] = 0;
	*events = res.events;
	ret = 0;
out:
	load_result_release(&res);
	bpf_link__destroy(link);
	load_reap(&lp);
	return ret;
}

static void check(const struct workload *w, const char *load_path, struct verdict *v)
{
	const char *says = claimed(w);
	const struct tt_syscall *table = says ? tt_syscall_find(says) : NULL;
	static uint64_t counts[MAX_NR];
	struct syscheck_bpf *skel;
	int64_t events = 0;
	long nr;
	char err[256];

	v->rc = SYSCHECK_UNCHECKED;
	tt_bpf_capture();	/* libbpf speaks only with -v */
	skel = syscheck_bpf__open();
	if (!skel || syscheck_bpf__load(skel)) {
		/* unprivileged, or no BPF: the table is all there is */
		snprintf(v->reason, sizeof(v->reason), "cannot load the check: %s", strerror(errno));
		goto out;
	}
	activity_own_bpf_prog(bpf_program__fd(skel->progs.tt_syscheck));
	if (count_run(skel, w->name, load_path, counts, &events, err, sizeof(err))) {
		v->rc = SYSCHECK_MISMATCH;
		snprintf(v->reason, sizeof(v->reason), "syscall check of workload '%s' failed: %s",
			 w->name, err);
		goto out;
	}
	if (table && table->nr >= 0 && table->nr < MAX_NR && (int64_t)counts[table->nr] == events) {
		name_of(table->nr, v->seen, sizeof(v->seen));
		v->rc = SYSCHECK_OK;
		goto out;
	}
	/* name what the ops make: the syscall made once per op, else the busiest */
	nr = 0;
	for (long k = 1; k < MAX_NR; k++) {
		bool once = (int64_t)counts[k] == events, best = (int64_t)counts[nr] == events;

		if ((once && !best) || (once == best && counts[k] > counts[nr]))
			nr = k;
	}
	name_of(nr, v->seen, sizeof(v->seen));
	v->rc = SYSCHECK_MISMATCH;
	snprintf(v->reason, sizeof(v->reason),
		 "workload '%s' makes '%s' (%llu calls for %lld ops), not '%s' as its table says",
		 w->name, v->seen, (unsigned long long)counts[nr], (long long)events,
		 says ? says : "?");
out:
	syscheck_bpf__destroy(skel);
}

int syscheck_workload(const char *workload, const char *load_path, char *seen, size_t seen_len,
		      char *reason, size_t len)
{
	const struct workload *w = workload_find(workload);
	struct verdict *v = NULL;

	seen[0] = reason[0] = '\0';
	if (!w || !w->syscall)
		return SYSCHECK_UNCHECKED;	/* no syscall to check: func workloads */
	for (int i = 0; i < ndone; i++)
		if (!strcmp(done[i].workload, workload))
			v = &done[i];
	if (!v) {
		if (ndone == (int)(sizeof(done) / sizeof(done[0])))
			return SYSCHECK_UNCHECKED;
		v = &done[ndone++];
		snprintf(v->workload, sizeof(v->workload), "%s", workload);
		check(w, load_path, v);
	}
	snprintf(seen, seen_len, "%s", v->rc == SYSCHECK_OK ? v->seen : "");
	snprintf(reason, len, "%s", v->reason);
	return v->rc;
}
