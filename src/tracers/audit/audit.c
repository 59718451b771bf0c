/*
 * audit:enabled, audit:nomatch, audit:rule, audit:rules: the kernel's
 * audit subsystem, the most widely deployed syscall tracer.
 *
 *   audit:enabled  audit on, no rule: the syscall slow path alone
 *   audit:nomatch  one exit rule on a syscall the workload never makes
 *                  (acct): what a loaded rule adds to every other syscall
 *   audit:rule     an exit rule on the workload's syscall, records consumed
 *                  by an auditd of ours (its own config and log in our
 *                  working directory, flushing INCREMENTAL_ASYNC freq 50, as
 *                  Debian ships it); hits: the SYSCALL records in that log
 *                  with our key and the load's pid
 *   audit:rules    --audit-rules FILE, the rules as auditctl would build
 *                  them, each with our key; hits: the records they made for
 *                  the load, in our auditd's log
 *
 * Where an auditd of ours consumes, two threads do the work the workload
 * does not: auditd (consumer_ns) and the kernel thread kauditd, which takes
 * each record off the backlog and sends it to auditd's socket
 * (kernel_consumer_ns). Both are read from schedstat over each traced run,
 * until its last record is in the log.
 *
 * The box's audit state is the user's (audit/audit_nl.h). setup() saves it
 * (into the working directory too, for `tracetax cleanup` after a
 * SIGKILL), teardown() restores it: our auditd stopped, our rules deleted
 * by key, the limits and the enabled flag as they were. A box whose audit
 * is someone's (an auditd registered, audit immutable, rules loaded) is
 * not touched: the cells skip with that reason.
 *
 * Once audit is enabled, every task forked afterwards gets an audit
 * context and the syscall slow path, until reboot. The untraced runs of a
 * cell must not pay it: while they are forked a `-a never,task` rule of
 * ours is loaded (tasks forked then get no context), and prefork() takes
 * it out just before the traced run's fork, stop() puts it back.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/capability.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "audit/audit_nl.h"
#include "base/proc_cpu.h"
#include "base/signals.h"
#include "base/spawn.h"
#include "base/util.h"
#include "base/workdir.h"
#include "tracers/audit/auditd.h"
#include "tracers/tracer.h"

enum audit_mode { AM_ENABLED, AM_NOMATCH, AM_RULE, AM_RULES };

struct audit_family { enum audit_mode mode; };

/* The backlog while measuring: as Debian's audit.rules sets it (-b 8192). */
#define AUDIT_BACKLOG 8192
/*
 * The backlog counts messages, not events: a syscall's record is SYSCALL,
 * PROCTITLE and EOE, and CWD and PATH more for a call that names a path.
 * A traced run gets room for all of its records (RECORD_MSGS each), so
 * that the run measures what a matching syscall costs while auditd keeps
 * up; what it costs when auditd does not is `tracetax rate`'s question.
 * At most AUDIT_BACKLOG_MAX messages: they are kernel memory (about 1 KiB
 * each) while auditd lags.
 */
#define RECORD_MSGS 6
#define AUDIT_BACKLOG_MAX (1 << 18)

struct audit_priv {
	enum audit_mode mode;
	int fd;
	char dir[PATH_MAX];
	char key[32];
	struct audit_saved sv;  /* the box's state, what we set, in the state file too */
	int saved_ok;           /* the box's state is saved: teardown restores it */
	int task_never;         /* our -a never,task rule is loaded */
	int box_never_out;      /* the box's own -a never,task is out (a traced run's fork) */
	char task_key[40], mark_key[40];   /* our -a never,task's key, our marker's */
	pid_t auditd;
	char log[PATH_MAX + 16];
	struct audit_ruleset rs;
	/* one traced run */
	pid_t load_pid;
	char pid_field[32];     /* audit:rule's "pid=<load>" */
	int rule_on;
	struct audit_state st0;
	uint64_t auditd_cpu0;
	pid_t kauditd;          /* the kernel's kauditd thread; 0: not found */
	uint64_t kauditd_cpu0;
	off_t log_off;
	unsigned seq;
};

/*
 * The residue, a fresh process's getpid: before this tracetax first enabled
 * audit, with our -a never,task rule then (no audit context: what a box
 * where audit was never on pays), and after the run put audit back
 * (tracers_audit_residue, at the run's end). A fact of the run: the table
 * says it once.
 */
static double residue_before = -1, residue_never = -1;
static int enabled_by_us, residue_was_on;

static enum audit_mode mode_of(const struct tracer *t)
{
	return ((const struct audit_family *)t->ops->data)->mode;
}

bool tracers_audit_residue(double *before_ns, double *never_ns, double *after_ns, bool *was_on)
{
	if (!enabled_by_us || residue_before < 0)
		return false;
	*before_ns = residue_before;
	*never_ns = residue_never;
	*after_ns = fresh_getpid_ns();
	*was_on = residue_was_on;
	return true;
}

/*
 * Whether the box's audit is someone's: TT_SKIP and why, else TT_OK; @st
 * filled, the box's own unkeyed `-a never,task` rules in *@box_never
 * (tracetax's own advice: tolerated, taken out around each traced fork).
 */
static int box_is_free(int fd, struct audit_state *st, int *box_never, char *reason, size_t len)
{
	struct audit_rule_count c;

	if (audit_nl_status(fd, st, reason, len))
		return TT_SKIP;
	if (st->enabled == 2) {
		snprintf(reason, len, "audit is immutable (-e 2) until reboot: tracetax changes nothing there");
		return TT_SKIP;
	}
	if (st->pid) {
		snprintf(reason, len, "an auditd (pid %u) is registered: tracetax does not write into "
			 "the box's audit trail", st->pid);
		return TT_SKIP;
	}
	if (audit_nl_count_rules(fd, NULL, &c, reason, len))
		return TT_SKIP;
	if (c.others) {
		snprintf(reason, len, "the box has %d audit rule(s) loaded: a cell would measure them "
			 "too, and tracetax does not touch them", c.others);
		return TT_SKIP;
	}
	if (c.ours) {
		snprintf(reason, len, "%d audit rule(s) of a tracetax are loaded: run 'tracetax cleanup'",
			 c.ours);
		return TT_SKIP;
	}
	if (box_never)
		*box_never = c.box_never;
	return TT_OK;
}

/* Whether capability @cap is in this process's effective set. */
static bool cap_effective(int cap)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];

	if (syscall(SYS_capget, &hdr, d))
		return false;
	return d[CAP_TO_INDEX(cap)].effective & CAP_TO_MASK(cap);
}

/*
 * What a cell needs of the process it runs in, asked before anything of
 * the box's is changed: a cell that could not finish must not start, for
 * enabling audit even once leaves every process started afterwards on the
 * audit slow path until reboot. A hardened service can take these away
 * (tracetax-measure.service: ProtectSystem=strict makes /run read-only,
 * CapabilityBoundingSet= drops CAP_AUDIT_WRITE): its audit cells skip.
 */
static int audit_process_ok(const struct tracer *t, char *reason, size_t len)
{
	if (!cap_effective(CAP_AUDIT_CONTROL)) {
		snprintf(reason, len, "no CAP_AUDIT_CONTROL in this process (a unit's "
			 "CapabilityBoundingSet=?): audit's state cannot be set");
		return TT_SKIP;
	}
	/* the saved state goes there before the first change, for `tracetax cleanup` */
	if (access(AUDIT_STATE_DIR, W_OK)) {
		snprintf(reason, len, "'%s' is not writable here (%s; a unit's ProtectSystem=strict "
			 "makes it read-only): the box's audit state could not be saved where "
			 "'tracetax cleanup' finds it", AUDIT_STATE_DIR, strerror(errno));
		return TT_SKIP;
	}
	/* the marker that says a run's records are all in auditd's log */
	if ((mode_of(t) == AM_RULE || mode_of(t) == AM_RULES) && !cap_effective(CAP_AUDIT_WRITE)) {
		snprintf(reason, len, "no CAP_AUDIT_WRITE in this process (a unit's "
			 "CapabilityBoundingSet= drops it, as tracetax-measure.service does): the "
			 "marker that ends a run's records cannot be sent");
		return TT_SKIP;
	}
	return TT_OK;
}

/* The state file written again, with what we set now (and our auditd). */
static int save(struct tracer *t, struct audit_priv *p)
{
	snprintf(p->sv.key, sizeof(p->sv.key), "%s", p->key);
	snprintf(p->sv.dir, sizeof(p->sv.dir), "%s", p->dir);
	p->sv.auditd = p->auditd;
	p->sv.set_known = true;
	return audit_state_save(&p->sv, t->err, sizeof(t->err)) ? TT_FAIL : TT_OK;
}

/*
 * The backlog limit set, recorded as ours first (restore checks it), with
 * the limit of ours it replaces while the kernel may still hold that: a
 * SIGKILL between the file and the kernel then finds a value the file
 * calls tracetax's, put back, or the box's own, left alone. The other
 * order took tracetax's limit for someone else's after such a kill.
 * TRACETAX_FAULT=NAME@backlog-kill kills tracetax in that window
 * (t_audit_state).
 */
static int set_backlog(struct tracer *t, struct audit_priv *p, uint32_t v)
{
	if (p->sv.set.backlog_limit == v)
		return audit_nl_set_backlog(p->fd, v, t->err, sizeof(t->err)) ? TT_FAIL : TT_OK;
	p->sv.set_backlog_was = p->sv.set.backlog_limit;
	p->sv.set.backlog_limit = v;
	if (save(t, p))
		return TT_FAIL;
	if (tracer_fault(t, "backlog-kill"))
		raise(SIGKILL);
	if (audit_nl_set_backlog(p->fd, v, t->err, sizeof(t->err)))
		return TT_FAIL;
	p->sv.set_backlog_was = 0;
	return save(t, p);
}

static int audit_supported(const struct tracer *t, char *reason, size_t len)
{
	struct audit_state st;
	char path[PATH_MAX];
	int fd, rc;

	if (geteuid()) {
		snprintf(reason, len, "audit's state is set as root only");
		return TT_SKIP;
	}
	if ((rc = audit_process_ok(t, reason, len)))
		return rc;
	if ((fd = audit_nl_open(reason, len)) < 0)
		return TT_SKIP;
	rc = box_is_free(fd, &st, NULL, reason, len);
	audit_nl_close(fd);
	if (rc)
		return rc;
	if ((mode_of(t) == AM_RULE || mode_of(t) == AM_RULES) &&
	    path_which("auditd", path, sizeof(path))) {
		snprintf(reason, len, "auditd is not installed (Debian: auditd)");
		return TT_SKIP;
	}
	if (mode_of(t) == AM_RULES && !t->audit_rules) {
		snprintf(reason, len, "no rule file: give one with --audit-rules FILE");
		return TT_SKIP;
	}
	return TT_OK;
}

/* audit:rule's variants: auditd's flush modes, Debian's first. */
static const char *const flush_variants[] = { "async", "incremental", "data", "sync", "none", NULL };

static const char *flush_of(const struct tracer *t)
{
	static const char *const conf[] = { "INCREMENTAL_ASYNC", "INCREMENTAL", "DATA", "SYNC", "NONE" };

	return mode_of(t) == AM_RULE ? conf[t->vidx] : conf[0];
}

/* audit:nomatch's variants: how many rules the workload's syscalls walk past. */
static const char *const nomatch_variants[] = { "1", "10", "25", "50", "100", NULL };

/* Starts our auditd and waits until the kernel has it registered. */
static int start_auditd(struct tracer *t, struct audit_priv *p)
{
	char bin[PATH_MAX], out[PATH_MAX + 16], msg[256];
	char *argv[] = { bin, "-n", "-c", p->dir, NULL };
	struct spawn sw = { .argv = argv, .fd = { SPAWN_DEVNULL, -1, -1 } };
	struct audit_state st;
	int ofd;

	if (path_which("auditd", bin, sizeof(bin)))
		return tracer_skip(t, "auditd is not installed (Debian: auditd)");
	snprintf(p->log, sizeof(p->log), "%s/audit.log", p->dir);
	if (auditd_conf_write(p->dir, p->log, flush_of(t), t->err, sizeof(t->err)))
		return TT_FAIL;
	snprintf(out, sizeof(out), "%s/auditd.out", p->dir);
	if ((ofd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)) < 0)
		return tracer_error(t, "cannot create '%s': %s", out, strerror(errno));
	sw.fd[1] = sw.fd[2] = ofd;
	p->auditd = spawn_start(&sw, msg, sizeof(msg));
	close(ofd);
	if (p->auditd < 0) {
		p->auditd = 0;
		return tracer_error(t, "cannot start auditd: %s", msg);
	}
	if (save(t, p))
		return TT_FAIL;
	for (int i = 0; i < 1000; i++) {
		if (audit_nl_status(p->fd, &st, t->err, sizeof(t->err)))
			return TT_FAIL;
		if (st.pid == (uint32_t)p->auditd)
			return TT_OK;
		if (waitpid(p->auditd, NULL, WNOHANG) == p->auditd) {
			char words[200] = "";

			p->auditd = 0;
			read_file_str(out, words, sizeof(words));
			return tracer_error(t, "auditd exited at start%s%s", *words ? ": " : "", words);
		}
		usleep(10000);
	}
	return tracer_error(t, "auditd did not register with the kernel in 10 s");
}

/*
 * The rule set a cell measures, named by the digest of what the kernel
 * holds once it is loaded (its order: a -A rule first in its list), not
 * of the file: the store finds a walk by it (budget). With rules refused
 * (a path not here), the walk is not the file's set: no digest, said.
 */
static int rules_identity(struct tracer *t, struct audit_priv *p)
{
	char digest[AUDIT_DIGEST_LEN];
	int n;

	t->rules_loaded = p->rs.n - p->rs.refused;
	t->rules_digest[0] = '\0';
	if (p->rs.refused) {
		tracer_note(t, "the walk of '%s': %d rule(s) loaded, %d refused: not the file's rule "
			    "set, its digest not recorded", t->audit_rules, t->rules_loaded,
			    p->rs.refused);
		return TT_OK;
	}
	if (audit_nl_key_digest(p->fd, p->key, digest, &n, t->err, sizeof(t->err)))
		return TT_FAIL;
	if (n != t->rules_loaded)
		return tracer_error(t, "the kernel holds %d rule(s) of '%s', not the %d loaded", n,
				    t->audit_rules, t->rules_loaded);
	snprintf(t->rules_digest, sizeof(t->rules_digest), "%s", digest);
	if (strcmp(digest, p->rs.digest))
		tracer_note(t, "the kernel holds '%s' as rule set %s, not %s as the file reads",
			    t->audit_rules, digest, p->rs.digest);
	tracer_note(t, "the walk of '%s': %d rule(s) loaded, rule set %s", t->audit_rules,
		    t->rules_loaded, digest);
	return TT_OK;
}

static int audit_setup(struct tracer *t)
{
	struct audit_priv *p = calloc(1, sizeof(*p));
	struct audit_state set;
	int rc;

	if (!p)
		return tracer_error(t, "out of memory");
	t->priv = p;
	p->fd = -1;
	p->mode = mode_of(t);
	snprintf(p->key, sizeof(p->key), AUDIT_KEY_PREFIX "%d", (int)getpid());
	snprintf(p->task_key, sizeof(p->task_key), "%s" AUDIT_KEY_TASK, p->key);
	snprintf(p->mark_key, sizeof(p->mark_key), "%s" AUDIT_KEY_MARK, p->key);
	if (workdir_create(p->dir, sizeof(p->dir), t->err, sizeof(t->err)))
		return TT_FAIL;
	if ((p->fd = audit_nl_open(t->err, sizeof(t->err))) < 0)
		return TT_SKIP;
	if ((rc = box_is_free(p->fd, &p->sv.box, &p->sv.box_never, t->err, sizeof(t->err))))
		return rc;
	p->sv.set = p->sv.box;
	/* saved before the first change, where cleanup finds it */
	if (save(t, p))
		return TT_FAIL;
	p->saved_ok = 1;
	/* the first change: a rule that never matches, there until the restore (audit_nl.h) */
	if (audit_rule_one(p->fd, 1, -1, "pid=0", p->mark_key, t->err, sizeof(t->err)))
		return TT_FAIL;
	if (!enabled_by_us) {
		residue_before = fresh_getpid_ns();
		residue_was_on = p->sv.box.enabled;
	}
	if (!p->sv.box.enabled && !enabled_by_us)
		warning("audit: enabling it gives every process started from now until reboot the "
			"syscall audit slow path, also after tracetax puts audit back (a fresh "
			"getpid: %.0f ns now); to spare the box, load 'auditctl -a never,task' "
			"before, or reboot after", residue_before);
	if (p->mode == AM_RULES &&
	    audit_rules_parse(t->audit_rules, p->key, &p->rs, t->err, sizeof(t->err)))
		return TT_FAIL;
	/* the untraced runs' tasks get no audit context: as if audit had never been on */
	if (audit_rule_one(p->fd, 1, -1, NULL, p->task_key, t->err, sizeof(t->err)))
		return TT_FAIL;
	p->task_never = 1;
	if (!enabled_by_us)
		residue_never = fresh_getpid_ns();
	set = p->sv.box;
	set.rate_limit = 0;
	set.backlog_limit = AUDIT_BACKLOG;
	set.enabled = 1;
	/* a box that panics on a lost record (-f 2): tracetax rate loses them on purpose */
	if (set.failure == AUDIT_FAIL_PANIC)
		set.failure = AUDIT_FAIL_PRINTK;
	p->sv.set = set;
	if (save(t, p))
		return TT_FAIL;
	if (p->mode == AM_RULE || p->mode == AM_RULES) {
		if ((rc = start_auditd(t, p)))
			return rc;
		if (!(p->kauditd = audit_kauditd_pid()))
			tracer_note(t, "kauditd's CPU not measured: no kauditd kernel thread in /proc");
	}
	enabled_by_us = 1;
	if (audit_nl_set_state(p->fd, &set, t->err, sizeof(t->err)))
		return TT_FAIL;
	/* N rules, none matching: on acct, told apart by their first argument */
	for (int i = 0; p->mode == AM_NOMATCH && i < atoi(t->variant ? t->variant : "1"); i++) {
		char a0[32];

		snprintf(a0, sizeof(a0), "a0=%d", i);
		if (audit_rule_one(p->fd, 1, SYS_acct, a0, p->key, t->err, sizeof(t->err)))
			return TT_FAIL;
	}
	if (p->mode == AM_RULES) {
		if (audit_rules_add(p->fd, &p->rs, t->err, sizeof(t->err)))
			return TT_FAIL;
		if (p->rs.refused)
			tracer_note(t, "%d rule(s) of '%s' left out: a path not on this box (line %d "
				    "first), as auditctl -i leaves them", p->rs.refused, t->audit_rules,
				    p->rs.first_refused);
		if (p->rs.dropped)
			tracer_note(t, "%d control line(s) of '%s' left out (-D, -b, -e...): tracetax "
				    "sets the state while it measures", p->rs.dropped, t->audit_rules);
		return rules_identity(t, p);
	}
	return TT_OK;
}

static int audit_prefork(struct tracer *t)
{
	struct audit_priv *p = t->priv;

	if (p->task_never && audit_rule_one(p->fd, 0, -1, NULL, p->task_key, t->err, sizeof(t->err)))
		return TT_FAIL;
	p->task_never = 0;
	/* the box's own too, as ours: stop() puts both back */
	if (p->sv.box_never && !p->box_never_out) {
		if (audit_rule_one(p->fd, 0, -1, NULL, NULL, t->err, sizeof(t->err)))
			return TT_FAIL;
		p->box_never_out = 1;
	}
	return TT_OK;
}

/*
 * The box's own -a never,task back, once the traced run is over: not at
 * start(), since the load's threads are cloned after it, and a task's
 * audit context is decided at its clone.
 */
static int box_never_back(struct tracer *t, struct audit_priv *p)
{
	if (!p->box_never_out)
		return TT_OK;
	if (audit_rule_one(p->fd, 1, -1, NULL, NULL, t->err, sizeof(t->err)))
		return TT_FAIL;
	p->box_never_out = 0;
	return TT_OK;
}

/*
 * Room in the backlog for every record a run can make, so that no run
 * waits on auditd; a note when the cap leaves less. Teardown puts the
 * box's limit back.
 */
static int audit_run_backlog(struct tracer *t, struct audit_priv *p)
{
	int64_t want = t->events_hint * RECORD_MSGS, set = want;

	if (set < AUDIT_BACKLOG)
		set = AUDIT_BACKLOG;
	/* audit:rules' filters decide which events make records: a wait says it if it comes */
	if (set > AUDIT_BACKLOG_MAX) {
		set = AUDIT_BACKLOG_MAX;
		if (p->mode == AM_RULE)
			tracer_note(t, "the audit backlog is capped at %d messages, below the %lld a "
				    "run's records can take: a run that outpaces auditd waits",
				    AUDIT_BACKLOG_MAX, (long long)want);
	}
	return set_backlog(t, p, (uint32_t)set);
}

static int audit_start(struct tracer *t, pid_t pid)
{
	struct audit_priv *p = t->priv;
	struct stat sb;

	p->load_pid = pid;
	if (p->mode == AM_RULE) {
		if (!t->target)
			return tracer_skip(t, "audit:rule needs a syscall to hook");
		snprintf(p->pid_field, sizeof(p->pid_field), "pid=%d", (int)pid);
		if (audit_rule_one(p->fd, 1, t->target->nr, p->pid_field, p->key, t->err,
				   sizeof(t->err)))
			return TT_FAIL;
		p->rule_on = 1;
	}
	/* tracetax rate sizes the backlog to each step; teardown puts the box's back */
	if (t->buffer_events > 0 && set_backlog(t, p, (uint32_t)t->buffer_events))
		return TT_FAIL;
	if (t->buffer_events <= 0 && (p->mode == AM_RULE || p->mode == AM_RULES) &&
	    t->events_hint > 0 && audit_run_backlog(t, p))
		return TT_FAIL;
	p->log_off = p->auditd && !stat(p->log, &sb) ? sb.st_size : 0;
	p->auditd_cpu0 = p->auditd ? proc_cpu_ns(p->auditd) : 0;
	p->kauditd_cpu0 = p->kauditd ? proc_cpu_ns(p->kauditd) : 0;
	if (audit_nl_status(p->fd, &p->st0, t->err, sizeof(t->err)))
		return TT_FAIL;
	return TT_OK;
}

static int audit_stop(struct tracer *t, struct tt_hits *out)
{
	struct audit_priv *p = t->priv;
	struct audit_state st;
	int ret = TT_OK;

	out->hits = -1;
	out->lost = 0;
	if (p->rule_on && audit_rule_one(p->fd, 0, t->target->nr, p->pid_field, p->key, t->err,
					 sizeof(t->err)))
		ret = TT_FAIL;
	p->rule_on = 0;
	if (box_never_back(t, p))
		ret = TT_FAIL;
	if (!p->task_never && audit_rule_one(p->fd, 1, -1, NULL, p->task_key, t->err, sizeof(t->err)))
		ret = TT_FAIL;
	else
		p->task_never = 1;
	if (p->auditd) {
		char msg[96];

		snprintf(msg, sizeof(msg), "tracetax-mark=%s-%u", p->key, ++p->seq);
		if (audit_nl_mark(p->fd, msg, t->err, sizeof(t->err)))
			return TT_FAIL;
		out->hits = auditd_log_count(p->log, p->log_off, p->key, p->seq, p->load_pid, t->err,
					     sizeof(t->err));
		if (out->hits < 0)
			return TT_FAIL;
		out->consumer_ns = (double)(proc_cpu_ns(p->auditd) - p->auditd_cpu0);
		if (p->kauditd) {
			uint64_t k1 = proc_cpu_ns(p->kauditd);

			/* 0: the thread is gone (its schedstat unreadable): not measured */
			if (k1 && p->kauditd_cpu0)
				out->kernel_consumer_ns = (double)(k1 - p->kauditd_cpu0);
			else
				tracer_note(t, "kauditd's CPU not measured: its schedstat could not be read");
		}
	}
	if (audit_nl_status(p->fd, &st, t->err, sizeof(t->err)))
		return TT_FAIL;
	out->lost = (int64_t)(st.lost - p->st0.lost);
	out->waited = (int64_t)(st.backlog_wait_time_actual - p->st0.backlog_wait_time_actual);
	t->held_of++;
	if (out->waited > 0) {
		t->held_runs++;
		t->held_total += out->waited;
	}
	if (t->held_runs)
		tracer_note_set(t, "the workload waited on a full audit backlog",
				"the workload waited on a full audit backlog in %lld of the %lld runs it traced "
				"(backlog_wait_time_actual +%lld)", (long long)t->held_runs,
				(long long)t->held_of, (long long)t->held_total);
	return ret;
}

static void restore_kill(void)
{
	raise(SIGKILL);
}

static void audit_teardown(struct tracer *t)
{
	struct audit_priv *p = t->priv;
	char err[256];

	if (!p)
		return;
	if (p->saved_ok) {
		p->sv.auditd = p->auditd;
		/* TRACETAX_FAULT=NAME@restore-kill: killed in the restore, once its rules are deleted */
		if (tracer_fault(t, "restore-kill"))
			audit_restore_hook = restore_kill;
		if (audit_state_restore(p->fd, &p->sv, err, sizeof(err)))
			error("%s: the box's audit state is not fully restored (run 'tracetax "
			      "cleanup')", err);
		else
			audit_state_forget();
	}
	if (p->dir[0])
		workdir_remove(p->dir);
	audit_nl_close(p->fd);
	audit_rules_free(&p->rs);
	free(p);
	t->priv = NULL;
}

static const struct audit_family fam_enabled = { AM_ENABLED }, fam_nomatch = { AM_NOMATCH },
	fam_rule = { AM_RULE }, fam_rules = { AM_RULES };

static const char audit_caveat[] =
	"run only when named (-t 'audit:*'). Once audit has been on, every process started "
	"afterwards takes the syscall audit slow path until reboot, also after tracetax has put "
	"audit back (the run's header gives a fresh getpid before and after); load "
	"'auditctl -a never,task' first to spare the box, or reboot after. On a boot that "
	"never enabled audit they are refused without --accept-audit-residue (not in a "
	"--kernel guest, whose residue dies with it).";

#define AUDIT_OPS(nm, fam, hk, fl, vars, sum) { \
	.name = nm, .hooks = hk, .summary = sum, .flags = TT_F_OPTIN | TT_F_RESIDUE | (fl), .data = &fam, \
	.variants = vars, \
	.caveat = audit_caveat, \
	.supported = audit_supported, .setup = audit_setup, .prefork = audit_prefork, \
	.start = audit_start, .stop = audit_stop, .teardown = audit_teardown }

const struct tracer_ops tracer_audit_enabled = AUDIT_OPS("audit:enabled", fam_enabled,
	TT_HOOK_SYSCALL | TT_HOOK_ALLSYS, 0, NULL,
	"the kernel's audit on, no rule: the syscall slow path");
const struct tracer_ops tracer_audit_nomatch = AUDIT_OPS("audit:nomatch", fam_nomatch,
	TT_HOOK_SYSCALL | TT_HOOK_ALLSYS, 0, nomatch_variants,
	"audit with N exit rules (/1 /10 /25 /50 /100) on a syscall the workload never makes "
	"(acct): the walk");
const struct tracer_ops tracer_audit_rule = AUDIT_OPS("audit:rule", fam_rule, TT_HOOK_SYSCALL, 0,
	flush_variants, "audit with an exit rule on the workload's syscall, records consumed by an "
	"auditd of ours, flushing /async (INCREMENTAL_ASYNC), /incremental, /data, /sync, /none");
const struct tracer_ops tracer_audit_rules = AUDIT_OPS("audit:rules", fam_rules,
	TT_HOOK_SYSCALL | TT_HOOK_ALLSYS, TT_F_HITS_UPTO, NULL, "audit with the rules of --audit-rules FILE, "
	"records consumed by an auditd of ours");
