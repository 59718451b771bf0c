/*
 * bpf:uprobe, bpf:uretprobe, bpf:usdt: a BPF program on the workload's
 * function (t->func in t->func_path), on its return, or on the USDT site
 * tracetax:func in tracetax-load (bpf/uprobe.bpf.c), with the handler
 * variants of bpf/common.bpf.h. The cell's life is bpf_cell.c's: loaded
 * in setup(), attached to the fresh workload process in start(pid),
 * detached in stop(), so that baseline runs trap nothing.
 *
 * Attaching with the workload's pid matters: a uprobe belongs to the file
 * (inode), not to a process, and without a pid the kernel writes the
 * breakpoint into every process that maps the file -- for the *-libc
 * workloads every getpid() on the machine would trap. With a pid the perf
 * event's filter lets the breakpoint into that one mm: all its threads
 * trap, also those created after start(), nothing else.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "uprobe.skel.h"
#include "load/workloads.h"
#include "base/tracefs_util.h"
#include "tracers/tracer.h"
#include "base/util.h"
#include "tracers/bpf/bpf_util.h"

enum { K_UPROBE, K_URETPROBE, K_USDT };

/* The families (tracer_ops.data): programs tt_<stem>_<variant>, hook K_*. */
#define UP_DISPATCH "the uprobe handler, which filters the pid, runs the program through " \
		    "trace_call_bpf()"
#define UP_FILTER "the handler (no filter of its own: the kernel did it)"
static const struct tt_bpf_family fam_uprobe = { "uprobe", K_UPROBE,
	"the function's first instruction is a breakpoint: a trap into the kernel, then the "
	"instruction emulated or single-stepped", UP_DISPATCH, UP_FILTER };
static const struct tt_bpf_family fam_uretprobe = { "uretprobe", K_URETPROBE,
	"a breakpoint at the entry swaps the return address; the return traps again, on the "
	"uretprobe trampoline", UP_DISPATCH, UP_FILTER };
static const struct tt_bpf_family fam_usdt = { "usdt", K_USDT,
	"the USDT site's nop is a breakpoint: a trap into the kernel, the nop emulated",
	UP_DISPATCH, UP_FILTER };

static void up_destroy(void *skel)
{
	uprobe_bpf__destroy(skel);
}

/* Open the skeleton and load the one program the cell measures: TT_OK, TT_SKIP, TT_FAIL. */
static int up_load(struct tt_bpf *b, char *err, size_t len)
{
	struct uprobe_bpf *s = uprobe_bpf__open();
	int rc;

	if (tt_bpf_open(b, s, s ? s->skeleton : NULL, up_destroy, err, len))
		return TT_FAIL;
	rc = tt_bpf_load(b, NULL, err, len);
	if (rc != TT_OK)
		return rc;
	/* The attach pid filters here; the programs ignore this tgid (uprobe.bpf.c). */
	b->tgid = &s->bss->target_tgid;
	return TT_OK;
}

/*
 * The kernel half of supported(), once per kind and process: load the
 * kind's count program, attach it as a uprobe (or uretprobe) to a function
 * of our own, call that function once and read the count. A kernel that
 * refuses says why; one that accepts must also fire.
 */
static __attribute__((noinline)) int probe_site(int x)
{
	__asm__ volatile("" : "+r"(x));	/* not pure: the call stays */
	return x + 1;
}

/*
 * The file and file offset of @addr in our own mappings, as uprobes want
 * them. The file by its /proc/self/map_files link when we may follow it:
 * that is the inode we run, even when a rebuild has since replaced the
 * file at its path (a probe there would never fire in us).
 */
static int self_offset(const void *addr, char *path, size_t plen, size_t *off)
{
	FILE *f = fopen("/proc/self/maps", "re");
	unsigned long lo, hi, pgoff, a = (unsigned long)addr;
	char line[4352], file[4096];
	int found = 0;

	if (!f)
		return -1;
	while (!found && fgets(line, sizeof(line), f)) {
		file[0] = '\0';
		if (sscanf(line, "%lx-%lx %*s %lx %*s %*s %4095s", &lo, &hi, &pgoff, file) < 3 ||
		    a < lo || a >= hi || file[0] != '/')
			continue;
		snprintf(path, plen, "/proc/self/map_files/%lx-%lx", lo, hi);
		if (access(path, R_OK))
			snprintf(path, plen, "%s", file);
		*off = a - lo + pgoff;
		found = 1;
	}
	fclose(f);
	return found ? 0 : -1;
}

static int kernel_trial(const struct tt_bpf_family *fam, char *reason, size_t len)
{
	struct tt_bpf b = { 0 };
	int (*volatile call)(int) = probe_site;
	LIBBPF_OPTS(bpf_uprobe_opts, o, .retprobe = fam->hook == K_URETPROBE);
	char path[4096], eb[96];
	uint64_t buf[1024];
	int64_t hits = 0;
	int ncpus = libbpf_num_possible_cpus();
	size_t off;
	int rc = TT_SKIP;

	if (ncpus <= 0 || ncpus > 1024 || self_offset((void *)probe_site, path, sizeof(path), &off)) {
		snprintf(reason, len, "cannot find our own probe site in '/proc/self/maps'");
		return TT_SKIP;
	}
	tt_bpf_init(&b, fam, TT_BPF_COUNT);
	rc = up_load(&b, reason, len);
	if (rc != TT_OK)
		goto out;
	tt_bpf_capture();
	b.link = bpf_program__attach_uprobe_opts(b.prog, getpid(), path, off, &o);
	if (!b.link) {
		int e = errno;

		rc = tt_bpf_attach_verdict(e);
		if (access("/sys/bus/event_source/devices/uprobe", F_OK) &&
		    !tt_tracefs_has("uprobe_events")) {
			snprintf(reason, len, "kernel built without CONFIG_UPROBE_EVENTS: "
				 "no uprobe PMU, no tracefs uprobe_events");
			rc = TT_SKIP;
		} else {
			snprintf(reason, len, "%s %s on '%s': %s",
				 rc == TT_SKIP ? "kernel refused" : "cannot attach", fam->stem, path,
				 tt_bpf_errstr(e, eb, sizeof(eb)));
		}
		goto out;
	}
	call(1);	/* through a volatile pointer: the real address, not a clone */
	/* The kernel took the probe: one that does not fire once per call is a bug. */
	rc = TT_FAIL;
	if (tt_bpf_percpu_sum(b.maps.pcpu_count, buf, ncpus, &hits) || hits != 1) {
		snprintf(reason, len, "%s attached but fired %lld times for 1 call",
			 fam->stem, (long long)hits);
		goto out;
	}
	rc = TT_OK;
	reason[0] = '\0';
out:
	tt_bpf_release(&b);
	return rc;
}

static int up_supported(const struct tracer *t, char *reason, size_t len)
{
	const struct tt_bpf_family *fam = tt_bpf_family(t);
	const char *path = fam->hook == K_USDT ? t->load_path : t->func_path;
	struct tt_bpf_memo *m;

	if (!tt_bpf_caps_ok(reason, len))
		return TT_SKIP;
	if (!tt_bpf_memo(fam->stem, &m))
		m->rc = kernel_trial(fam, m->reason, sizeof(m->reason));
	snprintf(reason, len, "%s", m->reason);
	if (m->rc != TT_OK)
		return m->rc;
	/* `tracetax list` has no workload: the kernel's word is all it asks. */
	if (path && access(path, R_OK)) {
		snprintf(reason, len, "cannot read '%s': %s", path, strerror(errno));
		return TT_SKIP;
	}
	return TT_OK;
}

static int up_setup(struct tracer *t)
{
	struct tt_bpf *b = tt_bpf_new(t, sizeof(*b));
	int rc;

	if (!b)
		return TT_FAIL;
	if (b->fam->hook == K_USDT ? !t->load_path || !t->workload || !t->workload->usdt
				   : !t->func || !t->func_path)
		return tracer_error(t, "tracer '%s' needs a %s to hook", t->name,
				    b->fam->hook == K_USDT ? "USDT site" : "function");
	rc = up_load(b, t->err, sizeof(t->err));
	return rc == TT_OK ? tt_bpf_loaded(t, b) : rc;
}

/* "tracetax:func" -> provider and name. */
static int usdt_attach(struct tracer *t, struct tt_bpf *b, pid_t pid)
{
	char prov[64];
	const char *colon = strchr(t->workload->usdt, ':');

	if (!colon || colon - t->workload->usdt >= (long)sizeof(prov))
		return tracer_error(t, "invalid USDT name '%s'", t->workload->usdt);
	snprintf(prov, sizeof(prov), "%.*s", (int)(colon - t->workload->usdt), t->workload->usdt);
	/* Every site of that name (the plain and the inline loop), semaphore raised. */
	b->link = bpf_program__attach_usdt(b->prog, pid, t->load_path, prov, colon + 1, NULL);
	return 0;
}

static int up_start(struct tracer *t, pid_t pid)
{
	struct tt_bpf *b = t->priv;
	LIBBPF_OPTS(bpf_uprobe_opts, o, .func_name = t->func,
		    .retprobe = b->fam->hook == K_URETPROBE);
	char eb[96];

	if (tt_bpf_arm(t, pid))
		return TT_FAIL;
	tt_bpf_capture();
	if (b->fam->hook == K_USDT) {
		if (usdt_attach(t, b, pid))
			return TT_FAIL;
	} else {
		b->link = bpf_program__attach_uprobe_opts(b->prog, pid, t->func_path, 0, &o);
	}
	if (!b->link)
		return tracer_error(t, "cannot attach %s to '%s' in '%s': %s%s%s", b->fam->stem,
				    b->fam->hook == K_USDT ? t->workload->usdt : t->func,
				    b->fam->hook == K_USDT ? t->load_path : t->func_path,
				    tt_bpf_errstr(errno, eb, sizeof(eb)),
				    *tt_bpf_libbpf_msg() ? ": " : "", tt_bpf_libbpf_msg());
	return 0;
}

const struct tracer_ops tracer_bpf_uprobe = TT_BPF_OPS("bpf:uprobe", TT_HOOK_FUNC,
	"BPF program on a uprobe at the entry of the workload's function", tt_bpf_variants,
	fam_uprobe, up);

const struct tracer_ops tracer_bpf_uretprobe = TT_BPF_OPS("bpf:uretprobe", TT_HOOK_FUNC,
	"BPF program on a uretprobe: each return of the workload's function",
	tt_bpf_variants, fam_uretprobe, up);

const struct tracer_ops tracer_bpf_usdt = TT_BPF_OPS("bpf:usdt", TT_HOOK_USDT,
	"BPF program on the USDT probe tracetax:func (semaphore-guarded)", tt_bpf_variants,
	fam_usdt, up);
