/*
 * The box's audit state while tracetax measures (audit_nl.h): saved before
 * the first change, put back after, as far as it is still tracetax's. A
 * tracetax SIGKILLed in an audit cell leaves its state file; the box may
 * then become someone's (auditd.service started: `-D`, its rules, `-e 1`,
 * perhaps `-e 2`), and the next run's cleanup must not switch their audit
 * off, nor fail forever on a box made immutable.
 */
#include <dirent.h>
#include <errno.h>
#include <libaudit.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/atomic_file.h"
#include "audit/audit_nl.h"
#include "base/util.h"

static void state_path(pid_t pid, char *buf, size_t len)
{
	snprintf(buf, len, AUDIT_STATE_DIR "/" AUDIT_STATE_PREFIX "%d.state", (int)pid);
}

int audit_state_save(const struct audit_saved *sv, char *err, size_t len)
{
	char path[PATH_MAX], text[PATH_MAX + 1024];
	size_t o;

	state_path(getpid(), path, sizeof(path));
	o = (size_t)snprintf(text, sizeof(text), "key %s\nauditd %d\nauditd_dir %s\nbox_never %d\n",
			     sv->key, (int)sv->auditd, sv->dir[0] ? sv->dir : "-", sv->box_never);
	/* without "set": nothing of the state is tracetax's to check (no marker either) */
	for (int f = 0; f < AF_N && o < sizeof(text); f++)
		o += (size_t)snprintf(text + o, sizeof(text) - o, sv->set_known ? "%s %u\nset_%s %u\n" :
				      "%s %u\n", audit_field_name(f), audit_field_get(&sv->box, f),
				      audit_field_name(f), audit_field_get(&sv->set, f));
	if (sv->set_known && sv->set_backlog_was && o < sizeof(text))
		snprintf(text + o, sizeof(text) - o, "set_was_backlog_limit %u\n", sv->set_backlog_was);
	if (atomic_file_text(path, text)) {
		snprintf(err, len, "cannot save the audit state in '%s': %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

void audit_state_forget(void)
{
	char path[PATH_MAX];

	state_path(getpid(), path, sizeof(path));
	unlink(path);
}

/* Whether @pid is an auditd started with -c @dir (ours, not the box's). */
static int our_auditd(pid_t pid, const char *dir)
{
	char path[64], buf[PATH_MAX + 64];
	FILE *f;
	size_t n;

	if (pid <= 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	if (!(f = fopen(path, "r")))
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	for (size_t i = 0; i + 1 < n; i++)
		if (!buf[i])
			buf[i] = ' ';
	return strstr(buf, "auditd") && (!dir || strstr(buf, dir));
}

/* Stops our auditd: SIGTERM, then SIGKILL; waits until the kernel forgot it. */
static void stop_auditd(int fd, pid_t pid)
{
	struct audit_state st;
	char e[128];

	if (pid > 0 && !kill(pid, 0)) {
		kill(pid, SIGTERM);
		for (int i = 0; i < 500 && !kill(pid, 0); i++) {
			/* our child: reap it; anyone else's: wait for it to go */
			if (waitpid(pid, NULL, WNOHANG) == pid)
				break;
			usleep(10000);
		}
		if (!kill(pid, 0)) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
		}
	}
	/* an auditd that died without saying so stays registered until the kernel sends to it */
	for (int i = 0; i < 100; i++) {
		if (audit_nl_status(fd, &st, e, sizeof(e)) || !st.pid || st.pid != (uint32_t)pid)
			return;
		audit_log_user_message(fd, AUDIT_TRUSTED_APP, "op=tracetax-auditd-gone", NULL, NULL,
				       NULL, 1);
		usleep(10000);
	}
}

/* "enabled 1, failure 1, rate_limit 0, ..." of @st into @buf. */
static void state_words(const struct audit_state *st, char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = '\0';
	for (int f = AF_N - 1; f >= 0 && o < len; f--)
		o += (size_t)snprintf(buf + o, len - o, "%s%s %u", o ? ", " : "", audit_field_name(f),
				      audit_field_get(st, f));
}

/* Why audit is someone's now (into @why), or "" when it is still as tracetax left it. */
static void whose(const struct audit_saved *sv, const struct audit_state *now,
		  const struct audit_rule_count *c, char *why, size_t len)
{
	why[0] = '\0';
	if (now->pid)
		snprintf(why, len, "an auditd (pid %u) is registered", now->pid);
	else if (c->others)
		snprintf(why, len, "%d audit rule(s) of the box are loaded", c->others);
	else if (sv->set_known && !c->marker)
		snprintf(why, len, "the rules tracetax loaded are gone (flushed: auditctl -D, "
			 "an auditd's start)");
}

/* Each field that still holds what tracetax set gets the box's value; the others said in @left. */
static int put_fields(int fd, const struct audit_saved *sv, const struct audit_state *now,
		      char *left, size_t llen, char *err, size_t len)
{
	size_t o = 0;
	int ret = 0;

	left[0] = '\0';
	for (int f = 0; f < AF_N; f++) {
		uint32_t v = audit_field_get(now, f), want = audit_field_get(&sv->box, f);
		char e[256];

		bool ours = v == audit_field_get(&sv->set, f) ||
			    (f == AF_BACKLOG && sv->set_backlog_was && v == sv->set_backlog_was);

		if (sv->set_known && !ours) {
			if (v != want && o < llen)
				o += (size_t)snprintf(left + o, llen - o, "%s%s %u (tracetax set %u, "
						      "the box had %u)", o ? ", " : "",
						      audit_field_name(f), v,
						      audit_field_get(&sv->set, f), want);
			continue;
		}
		if (v != want && audit_nl_set_field(fd, f, want, e, sizeof(e)) && !ret)
			ret = -1, snprintf(err, len, "%s", e);
	}
	return ret;
}

void (*audit_restore_hook)(void);

int audit_state_restore(int fd, const struct audit_saved *sv, char *err, size_t len)
{
	struct audit_rule_count c;
	struct audit_state now;
	char why[160], was[256], is[256], left[512], e[256], mark[64];
	int ret = 0, deleted;

	if (audit_nl_status(fd, &now, err, len))
		return -1;
	if (now.enabled == 2) {
		/* nothing changes until reboot: said once, the state file goes */
		warning("audit is immutable now (-e 2): what tracetax %s set (its rules too) stays "
			"until reboot", sv->key + strlen(AUDIT_KEY_PREFIX));
		return 0;
	}
	if (audit_nl_count_rules(fd, sv->key, &c, err, len))
		return -1;
	/*
	 * Rules first: their deletion's records still go to our auditd, not
	 * the kernel's log. The marker last of all, once the fields are back:
	 * it is what tells the next restore, after a SIGKILL in this one, that
	 * audit is still tracetax's (without it, "flushed by someone": the
	 * fields left as tracetax set them, enabled 1 among them).
	 */
	if (audit_nl_delete_key(fd, sv->key, true, &deleted, e, sizeof(e)))
		ret = -1, snprintf(err, len, "%s", e);
	if (audit_restore_hook)
		audit_restore_hook();
	stop_auditd(fd, sv->auditd);
	/* the box's own -a never,task, out for a traced run's fork when tracetax was killed */
	if (sv->box_never && !c.box_never &&
	    audit_rule_one(fd, 1, -1, NULL, NULL, e, sizeof(e)) && !ret)
		ret = -1, snprintf(err, len, "%s", e);
	if (audit_nl_status(fd, &now, e, sizeof(e))) {
		if (!ret)
			snprintf(err, len, "%s", e);
		return -1;
	}
	whose(sv, &now, &c, why, sizeof(why));
	/* all back already (a kill after the restore, before the state file went): nothing to say */
	bool back = true;

	for (int f = 0; f < AF_N; f++)
		back = back && audit_field_get(&now, f) == audit_field_get(&sv->box, f);
	if (!back && why[0]) {
		state_words(&now, is, sizeof(is));
		state_words(&sv->box, was, sizeof(was));
		warning("audit left as it is, %s: %s (before tracetax %s: %s)", why, is,
			sv->key + strlen(AUDIT_KEY_PREFIX), was);
	} else if (!back) {
		if (put_fields(fd, sv, &now, left, sizeof(left), e, sizeof(e)) && !ret)
			ret = -1, snprintf(err, len, "%s", e);
		if (left[0])
			warning("audit: left as someone set it since tracetax %s: %s",
				sv->key + strlen(AUDIT_KEY_PREFIX), left);
	}
	snprintf(mark, sizeof(mark), "%s" AUDIT_KEY_MARK, sv->key);
	if (audit_nl_delete_key(fd, mark, false, &deleted, e, sizeof(e)) && !ret)
		ret = -1, snprintf(err, len, "%s", e);
	return ret;
}

static int state_field(const char *text, const char *name, long *v)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), "\n%s ", name);
	if (!(p = strstr(text, pat)))
		return -1;
	*v = strtol(p + strlen(pat), NULL, 10);
	return 0;
}

/* The state file's text into @sv: 0, or -1. */
static int parse_saved(const char *text, struct audit_saved *sv)
{
	const char *p;
	long v, ad, bn = 0;

	memset(sv, 0, sizeof(*sv));
	if (sscanf(text, "\nkey %31s", sv->key) != 1 ||
	    strncmp(sv->key, AUDIT_KEY_PREFIX, strlen(AUDIT_KEY_PREFIX)) ||
	    state_field(text, "auditd", &ad) || !(p = strstr(text, "\nauditd_dir ")) ||
	    sscanf(p, "\nauditd_dir %4095s", sv->dir) != 1)
		return -1;
	sv->auditd = (pid_t)ad;
	state_field(text, "box_never", &bn);
	sv->box_never = (int)bn;
	if (!state_field(text, "set_was_backlog_limit", &v))
		sv->set_backlog_was = (uint32_t)v;
	sv->set_known = true;
	for (int f = 0; f < AF_N; f++) {
		char name[64];
		uint32_t *b, *s;

		switch (f) {
		case AF_RATE: b = &sv->box.rate_limit, s = &sv->set.rate_limit; break;
		case AF_BACKLOG: b = &sv->box.backlog_limit, s = &sv->set.backlog_limit; break;
		case AF_WAIT: b = &sv->box.backlog_wait_time, s = &sv->set.backlog_wait_time; break;
		case AF_FAILURE: b = &sv->box.failure, s = &sv->set.failure; break;
		default: b = &sv->box.enabled, s = &sv->set.enabled; break;
		}
		if (state_field(text, audit_field_name(f), &v))
			return -1;
		*b = (uint32_t)v;
		snprintf(name, sizeof(name), "set_%s", audit_field_name(f));
		/* an older tracetax's file: what it set is not known */
		if (state_field(text, name, &v))
			sv->set_known = false;
		else
			*s = (uint32_t)v;
	}
	if (!strcmp(sv->dir, "-"))
		sv->dir[0] = '\0';
	return 0;
}

/* Restores the box from the state file @path. 0, or -1 (said with error()). */
static int restore_from(const char *path)
{
	char text[PATH_MAX + 1024] = "\n", err[256];
	struct audit_saved sv;
	int fd, ret;

	if (read_file_str(path, text + 1, sizeof(text) - 1))
		return error("cannot read the saved audit state '%s': %s", path, strerror(errno));
	if (parse_saved(text, &sv))
		return error("cannot read the saved audit state '%s': put audit back by hand", path);
	if ((fd = audit_nl_open(err, sizeof(err))) < 0)
		return error("%s: the audit state saved in '%s' is not restored", err, path);
	/* a pid that runs but is not our auditd was reused: not ours to stop */
	if (sv.auditd > 0 && !kill(sv.auditd, 0) && !our_auditd(sv.auditd, sv.dir[0] ? sv.dir : NULL))
		sv.auditd = 0;
	ret = audit_state_restore(fd, &sv, err, sizeof(err));
	audit_nl_close(fd);
	if (ret)
		return error("%s: the audit state saved in '%s' is not fully restored", err, path);
	return 0;
}

int audit_cleanup_stale(int *removed, owner_kept_fn kept)
{
	DIR *d = opendir(AUDIT_STATE_DIR);
	struct dirent *e;
	int ret = 0;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		char path[PATH_MAX], why[160], what[PATH_MAX + 64], *end;
		long pid;

		if (strncmp(e->d_name, AUDIT_STATE_PREFIX, strlen(AUDIT_STATE_PREFIX)))
			continue;
		pid = strtol(e->d_name + strlen(AUDIT_STATE_PREFIX), &end, 10);
		if (pid <= 0 || pid > INT32_MAX || strcmp(end, ".state"))
			continue;
		snprintf(path, sizeof(path), AUDIT_STATE_DIR "/%s", e->d_name);
		if (!owner_gone((pid_t)pid, why, sizeof(why))) {
			if (kept) {
				snprintf(what, sizeof(what), "saved audit state '%s'", path);
				kept(what, why);
			}
			continue;
		}
		if (restore_from(path)) {
			ret = -1;
			continue;
		}
		unlink(path);
		(*removed)++;
	}
	closedir(d);
	return ret;
}
