/*
 * ftrace and audit consumers (ftrace.h). An ftrace buffer (the top level
 * or an instance) is a consumer while it has events or a tracer on; its
 * readers are the processes with a file of it open (trace_pipe,
 * per_cpu/cpuN/trace_pipe_raw); what it took is the sum over CPUs of
 * per_cpu/cpuN/stats: entries + overrun + read events (every event written,
 * whether still there, overwritten or read), and dropped events (not
 * written: the buffer was full). Audit is read over its netlink socket
 * (its state, its rules), which only lists.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tracefs.h>

#include "attach/ftrace.h"
#include "audit/audit_nl.h"
#include "base/tracefs_util.h"
#include "base/util.h"

/* The lines of a tracefs list file, "; " joined into @out */
static int list_file(const char *path, char *out, size_t len)
{
	char *line = NULL;
	size_t cap = 0, used = strlen(out);
	int n = 0;
	FILE *f = fopen(path, "re");

	if (!f)
		return 0;
	while (getline(&line, &cap, f) > 0) {
		line[strcspn(line, "\n")] = '\0';
		if (!line[0] || line[0] == '#')
			continue;
		used += (size_t)snprintf(out + used, used < len ? len - used : 0, "%s%s",
					 used ? ", " : "", line);
		if (used >= len)
			used = len - 1;
		n++;
	}
	free(line);
	fclose(f);
	return n;
}

/* written and lost over every CPU of the buffer at @dir; -1 if no CPU's stats could be read */
static int buffer_counts(const char *dir, struct att_consumer *c)
{
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	int read_any = 0;

	for (long cpu = 0; cpu < ncpu; cpu++) {
		char path[600], line[128];
		unsigned long long v;
		FILE *f;

		snprintf(path, sizeof(path), "%s/per_cpu/cpu%ld/stats", dir, cpu);
		if (!(f = fopen(path, "re")))
			continue;
		read_any = 1;
		while (fgets(line, sizeof(line), f)) {
			if (sscanf(line, "entries: %llu", &v) == 1 ||
			    sscanf(line, "read events: %llu", &v) == 1)
				c->written += v;
			else if (sscanf(line, "overrun: %llu", &v) == 1) {
				c->written += v;
				c->lost += v;
			} else if (sscanf(line, "dropped events: %llu", &v) == 1)
				c->lost += v;
		}
		fclose(f);
	}
	return read_any ? 0 : -1;
}

/* Whether @pid has @tdir/@rel mapped (a ring buffer read in place). */
static bool mapped(pid_t pid, const char *tdir, const char *rel)
{
	char path[64], want[600], *line = NULL;
	size_t cap = 0;
	bool found = false;
	FILE *m;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	snprintf(want, sizeof(want), "%s/%s", tdir, rel);
	if (!(m = fopen(path, "re")))
		return false;
	while (!found && getline(&line, &cap, m) > 0) {
		line[strcspn(line, "\n")] = '\0';
		found = strstr(line, want) != NULL;
	}
	free(line);
	fclose(m);
	return found;
}

/*
 * How a holder of @rel reads the buffer, and its rank: the text trace_pipe
 * (woken on each event, formatting each) before a mapped, spliced or read
 * trace_pipe_raw (woken per half buffer); other files are no reader.
 */
static int reader_kind(const struct att_fd *e, const char *tdir, const char *rel,
		       const char **kind)
{
	const char *base = strrchr(rel, '/') ? strrchr(rel, '/') + 1 : rel;
	struct att_proc p;

	if (!strcmp(base, "trace_pipe")) {
		*kind = "pipe";
		return 4;
	}
	if (strcmp(base, "trace_pipe_raw"))
		return 0;
	if (mapped(e->pid, tdir, rel)) {
		*kind = "mmap";
		return 3;
	}
	/* read(2) or splice(2) look the same from /proc: trace-cmd record splices */
	att_proc_read(e->pid, &p);
	*kind = !strcmp(p.comm, "trace-cmd") ? "splice" : "read";
	return (*kind)[0] == 's' ? 2 : 1;
}

static int buffer(struct att_list *l, const struct att_fds *f, const char *tdir, const char *name)
{
	char dir[512], path[600], events[400] = "", tracer[64] = "";
	struct att_consumer *c;
	size_t plen;
	int rank = 0;
	FILE *t;

	snprintf(dir, sizeof(dir), "%s%s%s", tdir, name[0] ? "/instances/" : "", name);
	snprintf(path, sizeof(path), "%s/set_event", dir);
	list_file(path, events, sizeof(events));
	snprintf(path, sizeof(path), "%s/current_tracer", dir);
	if ((t = fopen(path, "re"))) {
		if (fgets(tracer, sizeof(tracer), t))
			tracer[strcspn(tracer, "\n")] = '\0';
		fclose(t);
	}
	if (!strcmp(tracer, "nop"))
		tracer[0] = '\0';
	if (!events[0] && !tracer[0])
		return 0;
	if (!(c = att_add(l, ATT_FTRACE)))
		return -1;
	snprintf(c->key, sizeof(c->key), "ftrace %s%s", name[0] ? "instance " : "top level", name);
	snprintf(c->name, sizeof(c->name), "%s", name[0] ? name : "(top level)");
	snprintf(c->mech, sizeof(c->mech), "ftrace");
	snprintf(c->what, sizeof(c->what), "%s%s%s%s", events[0] ? "events " : "", events,
		 events[0] && tracer[0] ? "; " : "", tracer[0] ? "tracer " : "");
	if (tracer[0])
		snprintf(c->what + strlen(c->what), sizeof(c->what) - strlen(c->what), "%s", tracer);
	c->counted = !buffer_counts(dir, c);
	c->t = now_s();
	if (!c->counted)
		snprintf(c->why, sizeof(c->why), "its per-CPU stats could not be read");
	/* its readers: a file under the buffer's directory, not under an instance of the top's */
	snprintf(path, sizeof(path), "%s%s", name[0] ? "instances/" : "", name);
	plen = strlen(path);
	for (size_t i = 0; i < f->n; i++) {
		const struct att_fd *e = &f->v[i];

		if (e->type != FD_TRACEFS)
			continue;
		if (name[0] ? !strncmp(e->path, path, plen) && e->path[plen] == '/' :
			      strncmp(e->path, "instances/", 10) != 0) {
			const char *kind = "";
			int k = reader_kind(e, tdir, e->path, &kind);

			att_holder_add(c, e->pid);
			if (k > rank) {
				rank = k;
				snprintf(c->reads, sizeof(c->reads), "%s", kind);
			}
		}
	}
	if (rank)
		snprintf(c->what + strlen(c->what), sizeof(c->what) - strlen(c->what),
			 "; read through %s", c->reads[0] == 'p' ? "trace_pipe" :
			 c->reads[0] == 'm' ? "trace_pipe_raw, mapped" :
			 c->reads[0] == 's' ? "trace_pipe_raw, spliced" : "trace_pipe_raw");
	return 0;
}

int att_ftrace_scan(struct att_list *l, const struct att_fds *f)
{
	const char *tdir = tracefs_tracing_dir();
	char ours[64], path[600], group[64];
	char **inst;
	FILE *d;
	char *line = NULL;
	size_t cap = 0;
	int rc = 0;

	if (!tdir || access(tdir, R_OK | X_OK) < 0) {
		l->tracefs_unknown = true;
		return 0;
	}
	tt_instance_name(ours, sizeof(ours));
	if (buffer(l, f, tdir, ""))
		return -1;
	inst = tracefs_instances(NULL);
	for (size_t i = 0; inst && inst[i] && !rc; i++)
		if (strcmp(inst[i], ours))
			rc = buffer(l, f, tdir, inst[i]);
	tracefs_list_free(inst);
	if (rc)
		return -1;
	/* kprobes and uprobes defined in tracefs: they cost where enabled, in a buffer above */
	snprintf(group, sizeof(group), ":" TT_DYNEVENT_PREFIX "%d/", (int)getpid());
	snprintf(path, sizeof(path), "%s/dynamic_events", tdir);
	if (!(d = fopen(path, "re")))
		return 0;
	while (getline(&line, &cap, d) > 0) {
		struct att_consumer *c;

		line[strcspn(line, "\n")] = '\0';
		if (!line[0] || line[0] == '#' || strstr(line, group))
			continue;
		if (!(c = att_add(l, ATT_DYNEVENT))) {
			rc = -1;
			break;
		}
		snprintf(c->key, sizeof(c->key), "dynamic event %s", line);
		snprintf(c->mech, sizeof(c->mech), "%s", line[0] == 'p' ? "kprobe" :
			 line[0] == 'r' ? "kretprobe" : line[0] == 'e' ? "eprobe" : "dynamic event");
		snprintf(c->what, sizeof(c->what), "%s", line);
		snprintf(c->why, sizeof(c->why), "counted where it is enabled: an ftrace buffer "
			 "above, or a perf or BPF consumer");
	}
	free(line);
	fclose(d);
	return rc;
}

int att_audit_scan(struct att_list *l)
{
	struct audit_rule_data **v = NULL;
	struct audit_state st;
	char rules[512] = "", err[256];
	struct att_consumer *c;
	int fd, n = 0, auditd;
	size_t w = 0;

	/*
	 * Read only, over the kernel's own socket: AUDIT_GET and the rule list
	 * enable nothing, and need no auditctl (the auditd package is not on
	 * every box, and rules loaded over netlink by osquery or go-audit are
	 * the kernel's all the same).
	 */
	if ((fd = audit_nl_open(err, sizeof(err))) < 0) {
		snprintf(l->audit, sizeof(l->audit), errno == EPROTONOSUPPORT ?
			 "off: the kernel has no audit" : "unknown: %s", err);
		return 0;
	}
	if (audit_nl_status(fd, &st, err, sizeof(err))) {
		snprintf(l->audit, sizeof(l->audit), "unknown: %s", err);
		audit_nl_close(fd);
		return 0;
	}
	if (!st.enabled) {
		snprintf(l->audit, sizeof(l->audit), "off");
		audit_nl_close(fd);
		return 0;
	}
	/*
	 * One consumer for the rule set: every call walks the exit list, the
	 * first rule that fires makes the record (the costs are the set's, not
	 * a rule's). Audit on with no rule is one too: every call of a task
	 * with an audit context takes the slow path. Its owner: the registered
	 * auditd, else kauditd (the records go to the kernel log).
	 */
	if (!(c = att_add(l, ATT_AUDIT))) {
		audit_nl_close(fd);
		return -1;
	}
	snprintf(c->mech, sizeof(c->mech), "audit");
	n = audit_nl_list(fd, &v, err, sizeof(err));
	audit_nl_close(fd);
	for (int i = 0; i < n; i++) {
		char text[256];

		audit_rule_text(v[i], text, sizeof(text));
		if (w < sizeof(rules))
			w += (size_t)snprintf(rules + w, sizeof(rules) - w, "; %s", text);
	}
	audit_nl_list_free(v, n);
	if (n < 0) {
		snprintf(c->key, sizeof(c->key), "audit enabled");
		snprintf(c->what, sizeof(c->what), "audit on, its rules not read: %s", err);
		n = 0;
	} else {
		snprintf(c->key, sizeof(c->key), n ? "audit rules" : "audit enabled");
		if (n)
			snprintf(c->what, sizeof(c->what), "%d rule%s: %s", n, n == 1 ? "" : "s",
				 rules + 2);
		else
			snprintf(c->what, sizeof(c->what), "audit on, no rule: every call's slow path");
	}
	auditd = (int)st.pid;
	if (auditd > 0 || (auditd = audit_kauditd_pid()) > 0)
		att_holder_add(c, auditd);
	snprintf(l->audit, sizeof(l->audit), "on (enabled %u), %d rule%s, %s %d", st.enabled, n,
		 n == 1 ? "" : "s", c->nholders && !strcmp(c->holders[0].comm, "kauditd") ?
		 "no auditd: kauditd" : "auditd", auditd);
	return 0;
}
