/*
 * Whether a fresh task on this boot takes the syscall slow path, and why.
 *
 * A syscall whose task has any syscall_work flag goes through the generic
 * entry's slow path (syscall_trace_enter and its exit twin), and pays it on
 * every call, hooked or not. What sets a flag:
 *   - audit: audit_alloc() gives every new task an audit context and
 *     SYSCALL_AUDIT once audit has been enabled on this boot
 *     (audit_ever_enabled), even after audit is off again, unless an
 *     `-a never,task` rule clears it. Nothing in user space undoes it.
 *   - a syscall tracepoint: enabling any one (ftrace, perf, BPF) sets
 *     SYSCALL_TRACEPOINT on every task, and every new task inherits it.
 *   - seccomp: a filter on a task, and on every task it starts.
 *   - ptrace: PTRACE_SYSCALL, SYSEMU or a single step, on the tracee.
 *   - syscall user dispatch.
 * A syscall hook's measured cost is then marginal to a path already paid:
 * the run's header says so.
 *
 * How: a BPF program on task_newtask (not a syscall hook: it puts no task
 * on the path it looks for) reads the flags of a child this thread forks,
 * and this thread's own (bpf/slowpath.bpf.c). Audit's state is read over
 * netlink (read only: listing does not enable it). The kernel log does not
 * say when audit was switched on: with an auditd listening at the time, it
 * holds no audit_enabled=1 line.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "attach/scan.h"
#include "base/activity.h"
#include "audit/audit_nl.h"
#include "base/util.h"
#include "measure/slowpath.h"
#include "slowpath.skel.h"
#include "slowpath_bpf.h"
#include "tracers/tracer.h"
#include "vm/spec.h"

#define BTF_PATH "/sys/kernel/btf/vmlinux"

struct bits {
	__u64 child, parent;
};

/* The flags of a child of this thread: 0, or -1 and why not in @why. */
static int read_bits(struct bits *b, char *why, size_t len)
{
	struct slowpath_bpf *skel;
	struct bpf_link *link = NULL;
	int ret = -1;
	pid_t pid;

	if (access(BTF_PATH, R_OK)) {
		snprintf(why, len, "no kernel BTF (%s): %s", BTF_PATH, strerror(errno));
		return -1;
	}
	tt_bpf_capture();	/* libbpf speaks only with -v */
	if (!(skel = slowpath_bpf__open())) {
		snprintf(why, len, "cannot open the probe: %s", strerror(errno));
		return -1;
	}
	skel->rodata->parent_tid = (__u32)gettid();
	if (slowpath_bpf__load(skel)) {
		int e = errno;

		snprintf(why, len, "cannot load the probe: %s%s", strerror(e),
			 e == EPERM || e == EACCES ? " (needs root, or CAP_BPF and CAP_PERFMON)" : "");
		goto out;
	}
	activity_own_bpf_prog(bpf_program__fd(skel->progs.tt_slowpath));
	if (!(link = bpf_program__attach(skel->progs.tt_slowpath))) {
		snprintf(why, len, "cannot attach the probe to task_newtask: %s", strerror(errno));
		goto out;
	}
	pid = fork();
	if (pid < 0) {
		snprintf(why, len, "cannot fork: %s", strerror(errno));
		goto out;
	}
	if (!pid)
		_exit(0);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	if (!skel->bss->seen) {
		snprintf(why, len, "the probe did not see the fork");
		goto out;
	}
	if (!skel->bss->has_field) {
		snprintf(why, len, "this kernel has no thread_info.syscall_work (before 5.11, or "
			 "no generic entry on this architecture)");
		goto out;
	}
	b->child = skel->bss->child_bits;
	b->parent = skel->bss->parent_bits;
	ret = 0;
out:
	bpf_link__destroy(link);
	slowpath_bpf__destroy(skel);
	return ret;
}

/* @b's flags as causes (results.h SLOW_*). */
static unsigned causes_of(const struct bits *b)
{
	unsigned c = 0;

	if (b->child & (1ull << SP_AUDIT))
		c |= 1u << SLOW_AUDIT;
	if (b->child & (1ull << SP_TRACEPOINT))
		c |= 1u << SLOW_TRACEPOINT;
	if (b->child & (1ull << SP_SECCOMP))
		c |= 1u << SLOW_SECCOMP;
	if (b->child & (1ull << SP_USER_DISPATCH))
		c |= 1u << SLOW_USER_DISPATCH;
	/* cleared in a child at fork, set again once its tracer resumes it: the parent's */
	if ((b->child | b->parent) & ((1ull << SP_TRACE) | (1ull << SP_EMU) | (1ull << SP_EXIT_TRAP)))
		c |= 1u << SLOW_PTRACE;
	return c;
}

static bool syscall_event(const char *ev)
{
	return !strncmp(ev, "syscalls:", 9) || !strncmp(ev, "raw_syscalls:", 13);
}

/* A BPF program's attach point on a syscall tracepoint (sys_enter_getuid, sys_enter). */
static bool syscall_point(const char *p)
{
	if (!strncmp(p, "btf_trace_", 10))
		p += 10;
	return !strncmp(p, "sys_enter", 9) || !strncmp(p, "sys_exit", 8);
}

static void add(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void add(char *buf, size_t len, const char *fmt, ...)
{
	size_t used = strlen(buf);
	va_list ap;

	if (used + 3 >= len)
		return;
	if (used)
		used += (size_t)snprintf(buf + used, len - used, ", ");
	va_start(ap, fmt);
	vsnprintf(buf + used, len - used, fmt, ap);
	va_end(ap);
}

static void holder(char *s, size_t len, const struct att_consumer *c)
{
	s[0] = '\0';
	if (c->nholders)
		snprintf(s, len, " (%s %d)", c->holders[0].comm, (int)c->holders[0].pid);
}

/* The consumers of a syscall tracepoint, named into @buf (attach/scan.h). */
static void tracepoint_consumers(char *buf, size_t len)
{
	char perf[160] = "";
	struct att_list l;

	buf[0] = '\0';
	if (att_scan(&l)) {
		snprintf(buf, len, "its consumer not found: %s", strerror(errno));
		return;
	}
	for (size_t i = 0; i < l.n; i++) {
		const struct att_consumer *c = &l.v[i];
		char what[sizeof(c->what)], h[64], *save, *tok;

		snprintf(what, sizeof(what), "%s", c->what);
		holder(h, sizeof(h), c);
		if (c->kind == ATT_FTRACE && !strncmp(what, "events ", 7)) {
			what[strcspn(what, ";")] = '\0';
			for (tok = strtok_r(what + 7, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save))
				if (syscall_event(tok))
					add(buf, len, "%s %s %s", tok, strcmp(c->name, "(top level)") ?
					    "in instance" : "at the", strcmp(c->name, "(top level)") ?
					    c->name : "top level");
		} else if (c->kind == ATT_BPF) {
			for (tok = strtok_r(what, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save))
				if (syscall_point(tok))
					add(buf, len, "%s by bpf prog %u '%s'%s", tok, c->prog_id, c->name, h);
		} else if (c->kind == ATT_PERF && c->nholders) {
			/* which tracepoint a perf event without BPF is on shows nowhere */
			add(perf, sizeof(perf), "%s %d", c->holders[0].comm, (int)c->holders[0].pid);
		}
	}
	if (!buf[0])
		snprintf(buf, len, "its consumer not named%s%s%s", perf[0] ? " (perf events of " : "",
			 perf, perf[0] ? "?)" : "");
	att_release(&l);
}

/* Whether the box's audit is nobody's: no auditd registered, not locked, no rule loaded. */
static bool audit_free(int fd, const struct audit_state *st)
{
	struct audit_rule_count c;
	char err[160];

	if (st->enabled == 2 || st->pid)
		return false;
	return !audit_nl_count_rules(fd, NULL, &c, err, sizeof(err)) && !c.ours && !c.others &&
	       !c.box_never;
}

/* A fresh getpid with a -a never,task rule of ours loaded for the while: NaN if not. */
static double never_task_ns(int fd, const struct audit_state *st)
{
	/* nothing of the state is set: a restore after a SIGKILL deletes the rule alone */
	struct audit_saved sv = { .box = *st, .set = *st, .set_known = false };
	char *key = sv.key, err[256];
	double ns;
	int n = 0;

	snprintf(sv.key, sizeof(sv.key), AUDIT_KEY_PREFIX "%d", (int)getpid());
	if (audit_state_save(&sv, err, sizeof(err)))
		return NAN;
	if (audit_rule_one(fd, 1, -1, NULL, key, err, sizeof(err))) {
		audit_state_forget();
		return NAN;
	}
	ns = fresh_getpid_ns();
	if (audit_rule_one(fd, 0, -1, NULL, key, err, sizeof(err)) &&
	    (audit_nl_delete_key(fd, key, false, &n, err, sizeof(err)) || !n)) {
		error("%s: the -a never,task rule of %s is still loaded (run 'tracetax cleanup')", err,
		      key);
		return ns >= 0 ? ns : NAN;
	}
	audit_state_forget();
	return ns >= 0 ? ns : NAN;
}

void slowpath_probe(struct slow_path *sp)
{
	struct audit_state st;
	struct bits b = { 0 };
	char err[160];
	int fd;

	memset(sp, 0, sizeof(*sp));
	sp->probed = true;
	sp->audit_enabled = -1;
	sp->getpid_ns = sp->never_task_ns = NAN;
	if (read_bits(&b, sp->unknown, sizeof(sp->unknown)))
		return;
	sp->known = true;
	sp->causes = causes_of(&b);
	fd = audit_nl_open(err, sizeof(err));
	if (fd >= 0 && !audit_nl_status(fd, &st, err, sizeof(err)))
		sp->audit_enabled = (int)st.enabled;
	if (sp->causes) {
		double ns = fresh_getpid_ns();

		sp->getpid_ns = ns >= 0 ? ns : NAN;
		if (sp->causes & (1u << SLOW_TRACEPOINT))
			tracepoint_consumers(sp->tracepoints, sizeof(sp->tracepoints));
		if ((sp->causes & (1u << SLOW_AUDIT)) && sp->audit_enabled >= 0 && audit_free(fd, &st))
			sp->never_task_ns = never_task_ns(fd, &st);
	}
	if (fd >= 0)
		audit_nl_close(fd);
}

bool slowpath_residue_refused(const char *tracer, char *msg, size_t len)
{
	const char *vm = getenv(VM_ENV);
	char why[200] = "", err[160];
	struct audit_state st;
	struct bits b = { 0 };
	struct audit_rule_count c = { 0 };
	int fd, rc;
	double ns;

	/* in a guest the residue dies with it */
	if (vm && (!strcmp(vm, "kvm") || !strcmp(vm, "tcg")))
		return false;
	/* where the audit cells skip anyway: they say why */
	if (geteuid() || (fd = audit_nl_open(err, sizeof(err))) < 0)
		return false;
	rc = audit_nl_status(fd, &st, err, sizeof(err)) ||
	     audit_nl_count_rules(fd, NULL, &c, err, sizeof(err));
	audit_nl_close(fd);
	/*
	 * audit on: this boot has enabled it. An auditd, rules: the box's, the
	 * cells skip. The box's own -a never,task: its new tasks get no context,
	 * residue or not (tracetax takes it out for its traced runs alone)
	 */
	if (rc || st.enabled || st.pid || c.ours || c.others || c.box_never)
		return false;
	/* no rule: a task forked now has an audit context iff audit was ever enabled */
	if (!read_bits(&b, why, sizeof(why)) && (causes_of(&b) & (1u << SLOW_AUDIT)))
		return false;
	ns = fresh_getpid_ns();
	snprintf(err, sizeof(err), ns >= 0 ? "%.0f ns" : "unknown", ns);
	snprintf(msg, len, "'%s' would leave every process started until reboot on the syscall "
		 "audit slow path: %s%s%s, and a fresh process's getpid takes %s now; pass "
		 "--accept-audit-residue, or run it in a guest (--kernel)", tracer,
		 why[0] ? "whether this boot has enabled audit is unknown (" : "this boot has "
		 "never enabled audit", why, why[0] ? ")" : "", err);
	return true;
}
