/* The kernel's audit subsystem through libaudit: state, rules, rule files, leftovers. */
#include <ctype.h>
#include <stdint.h>
#include <dirent.h>
#include <errno.h>
#include <libaudit.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/atomic_file.h"
#include "base/audit_nl.h"
#include "base/proc.h"
#include "base/util.h"

/* libaudit's rule-building state, as auditctl resets it for each rule (not in libaudit.h). */
extern int _audit_elf, _audit_syscalladded, _audit_permadded, _audit_archadded,
	_audit_exeadded, _audit_filterfsadded;

int audit_nl_open(char *err, size_t len)
{
	int fd;

	set_aumessage_mode(MSG_QUIET, DBG_NO);
	fd = audit_open();
	if (fd < 0)
		snprintf(err, len, "cannot open the kernel's audit socket: %s", strerror(errno));
	return fd;
}

void audit_nl_close(int fd)
{
	if (fd >= 0)
		audit_close(fd);
}

int audit_nl_status(int fd, struct audit_state *st, char *err, size_t len)
{
	struct audit_reply rep;

	if (audit_request_status(fd) <= 0) {
		snprintf(err, len, "cannot ask the kernel's audit status: %s", strerror(errno));
		return -1;
	}
	for (int i = 0; i < 100; i++) {
		int rc = audit_get_reply(fd, &rep, GET_REPLY_BLOCKING, 0);

		if (rc <= 0)
			break;
		if (rep.type == NLMSG_ERROR && rep.error->error) {
			snprintf(err, len, "the kernel refused AUDIT_GET: %s", strerror(-rep.error->error));
			return -1;
		}
		if (rep.type != AUDIT_GET)
			continue;
		memset(st, 0, sizeof(*st));
		st->enabled = rep.status->enabled;
		st->failure = rep.status->failure;
		st->pid = rep.status->pid;
		st->rate_limit = rep.status->rate_limit;
		st->backlog_limit = rep.status->backlog_limit;
		st->backlog_wait_time = rep.status->backlog_wait_time;
		st->lost = rep.status->lost;
		st->backlog = rep.status->backlog;
		st->backlog_wait_time_actual = rep.status->backlog_wait_time_actual;
		return 0;
	}
	snprintf(err, len, "no audit status from the kernel");
	return -1;
}

static int set_one(int rc, const char *what, uint32_t v, char *err, size_t len)
{
	if (rc > 0)
		return 0;
	snprintf(err, len, "the kernel refused audit %s %u: %s", what, v,
		 strerror(rc < 0 ? -rc : errno));
	return -1;
}

int audit_nl_set_enabled(int fd, uint32_t enabled, char *err, size_t len)
{
	return set_one(audit_set_enabled(fd, enabled), "enabled", enabled, err, len);
}

int audit_nl_set_state(int fd, const struct audit_state *st, char *err, size_t len)
{
	int ret = 0;

	/* every step is tried: a box half put back is worse than one named failure */
	if (set_one(audit_set_rate_limit(fd, st->rate_limit), "rate_limit", st->rate_limit, err, len))
		ret = -1;
	if (set_one(audit_set_backlog_limit(fd, st->backlog_limit), "backlog_limit",
		    st->backlog_limit, ret ? NULL : err, ret ? 0 : len))
		ret = -1;
	if (set_one(audit_set_backlog_wait_time(fd, st->backlog_wait_time), "backlog_wait_time",
		    st->backlog_wait_time, ret ? NULL : err, ret ? 0 : len))
		ret = -1;
	if (set_one(audit_set_failure(fd, st->failure), "failure", st->failure,
		    ret ? NULL : err, ret ? 0 : len))
		ret = -1;
	if (audit_nl_set_enabled(fd, st->enabled, ret ? NULL : err, ret ? 0 : len))
		ret = -1;
	return ret;
}

int audit_nl_set_backlog(int fd, uint32_t limit, char *err, size_t len)
{
	return set_one(audit_set_backlog_limit(fd, limit), "backlog_limit", limit, err, len);
}

int audit_nl_mark(int fd, const char *text, char *err, size_t len)
{
	if (audit_log_user_message(fd, AUDIT_TRUSTED_APP, text, NULL, NULL, NULL, 1) > 0)
		return 0;
	snprintf(err, len, "cannot send a message to the audit log: %s", strerror(errno));
	return -1;
}

/* Fields whose value is a string in the rule's buffer (the kernel's audit_unpack_string). */
static int string_field(uint32_t f)
{
	return (f >= AUDIT_SUBJ_USER && f <= AUDIT_SUBJ_CLR) ||
	       (f >= AUDIT_OBJ_USER && f <= AUDIT_OBJ_LEV_HIGH) ||
	       f == AUDIT_WATCH || f == AUDIT_DIR || f == AUDIT_FILTERKEY || f == AUDIT_EXE;
}

/* Whether one of @r's keys (separated by AUDIT_KEY_SEPARATOR) is @key, or of our prefix when NULL. */
static int has_key(const struct audit_rule_data *r, const char *key)
{
	uint32_t off = 0;

	for (uint32_t i = 0; i < r->field_count && i < AUDIT_MAX_FIELDS; i++) {
		uint32_t n = r->values[i];

		if (!string_field(r->fields[i]))
			continue;
		if (off + n > r->buflen)
			return 0;
		if (r->fields[i] == AUDIT_FILTERKEY) {
			const char *p = r->buf + off, *end = p + n;

			while (p < end) {
				const char *q = memchr(p, AUDIT_KEY_SEPARATOR, (size_t)(end - p));
				size_t l = (size_t)((q ? q : end) - p);

				if (key ? l == strlen(key) && !memcmp(p, key, l) :
				    l > strlen(AUDIT_KEY_PREFIX) &&
				    !memcmp(p, AUDIT_KEY_PREFIX, strlen(AUDIT_KEY_PREFIX)))
					return 1;
				p += l + 1;
			}
		}
		off += n;
	}
	return 0;
}

/* Every rule loaded now, copied: *@out (free each, then it); their number, or -1 and @err. */
static int list_rules(int fd, struct audit_rule_data ***out, char *err, size_t len)
{
	struct audit_reply rep;
	struct audit_rule_data **v = NULL;
	int n = 0;

	*out = NULL;
	if (audit_request_rules_list_data(fd) <= 0) {
		snprintf(err, len, "cannot list the audit rules: %s", strerror(errno));
		return -1;
	}
	for (;;) {
		int rc = audit_get_reply(fd, &rep, GET_REPLY_BLOCKING, 0);

		if (rc <= 0) {
			snprintf(err, len, "no end to the audit rule list: %s", strerror(errno));
			goto fail;
		}
		if (rep.type == NLMSG_DONE)
			break;
		if (rep.type == NLMSG_ERROR) {
			if (!rep.error->error)
				continue;
			snprintf(err, len, "the kernel refused to list audit rules: %s",
				 strerror(-rep.error->error));
			goto fail;
		}
		if (rep.type != AUDIT_LIST_RULES)
			continue;
		size_t sz = sizeof(struct audit_rule_data) + rep.ruledata->buflen;
		struct audit_rule_data **nv = realloc(v, sizeof(*v) * (size_t)(n + 1));

		if (!nv)
			goto oom;
		v = nv;
		if (!(v[n] = malloc(sz)))
			goto oom;
		memcpy(v[n++], rep.ruledata, sz);
	}
	*out = v;
	return n;
oom:
	snprintf(err, len, "out of memory listing audit rules");
fail:
	while (n--)
		free(v[n]);
	free(v);
	return -1;
}

static void free_list(struct audit_rule_data **v, int n)
{
	for (int i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

int audit_nl_rule_sums(int fd, struct audit_rule_sum **out, char *err, size_t len)
{
	struct audit_rule_data **v;
	int n = list_rules(fd, &v, err, len), machine = audit_detect_machine();

	*out = NULL;
	if (n < 0)
		return -1;
	if (!(*out = calloc((size_t)n + 1, sizeof(**out)))) {
		free_list(v, n);
		snprintf(err, len, "out of memory listing audit rules");
		return -1;
	}
	for (int i = 0; i < n; i++)
		audit_rule_summarise(v[i], i + 1, machine, &(*out)[i]);
	free_list(v, n);
	return n;
}

int audit_nl_list(int fd, struct audit_rule_data ***out, char *err, size_t len)
{
	return list_rules(fd, out, err, len);
}

void audit_nl_list_free(struct audit_rule_data **v, int n)
{
	free_list(v, n);
}

/* Appends to @buf (of @len, @o used): snprintf's, never past its end. */
static size_t put(char *buf, size_t len, size_t o, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static size_t put(char *buf, size_t len, size_t o, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (o >= len)
		return o;
	va_start(ap, fmt);
	n = vsnprintf(buf + o, len - o, fmt, ap);
	va_end(ap);
	return n < 0 ? o : o + (size_t)n > len - 1 ? len - 1 : o + (size_t)n;
}

void audit_rule_text(const struct audit_rule_data *r, char *buf, size_t len)
{
	uint32_t list = r->flags & ~(uint32_t)AUDIT_FILTER_PREPEND, off = 0;
	const char *ln = audit_flag_to_name((int)list), *an = audit_action_to_name((int)r->action);
	int machine = audit_detect_machine(), all = 1, nsys = 0;
	size_t o = 0;

	buf[0] = '\0';
	o = put(buf, len, o, "-%c %s,%s", r->flags & AUDIT_FILTER_PREPEND ? 'A' : 'a',
		ln ? ln : "?", an ? an : "?");
	for (uint32_t i = 0; i < r->field_count && i < AUDIT_MAX_FIELDS; i++)
		if (r->fields[i] == AUDIT_ARCH) {
			int m = audit_elf_to_machine(r->values[i]);

			if (m >= 0)
				machine = m;
		}
	for (int i = 0; i < AUDIT_BITMASK_SIZE - 1; i++)
		all &= r->mask[i] == ~0u;
	if (list == AUDIT_FILTER_EXIT || list == AUDIT_FILTER_URING_EXIT) {
		if (all)
			o = put(buf, len, o, " -S all");
		else
			for (int b = 0; b < (AUDIT_BITMASK_SIZE - 1) * 32; b++) {
				const char *sc;

				if (!(r->mask[b / 32] & (1u << (b % 32))))
					continue;
				sc = audit_syscall_to_name(b, machine);
				o = sc ? put(buf, len, o, "%s%s", nsys++ ? "," : " -S ", sc) :
					 put(buf, len, o, "%s%d", nsys++ ? "," : " -S ", b);
			}
	}
	for (uint32_t i = 0; i < r->field_count && i < AUDIT_MAX_FIELDS; i++) {
		const char *fn = audit_field_to_name((int)r->fields[i]);
		const char *op = audit_operator_to_symbol((int)r->fieldflags[i]);
		uint32_t v = r->values[i];

		if (!fn)
			fn = "?";
		if (!op)
			op = "?";
		if (string_field(r->fields[i])) {
			if (off + v > r->buflen)
				break;
			if (r->fields[i] == AUDIT_FILTERKEY)
				o = put(buf, len, o, " -k %.*s", (int)v, r->buf + off);
			else
				o = put(buf, len, o, " -F %s%s%.*s", fn, op, (int)v, r->buf + off);
			off += v;
		} else if (r->fields[i] == AUDIT_ARCH) {
			const char *mn = audit_machine_to_name(machine);

			o = put(buf, len, o, " -F arch%s%s", op, mn ? mn : "?");
		} else {
			o = put(buf, len, o, " -F %s%s%u", fn, op, v);
		}
	}
	/* the box's words, printed on a terminal: none of its control characters */
	for (char *p = buf; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
}

static void fnv_add(uint64_t *h, const void *p, size_t n)
{
	for (const unsigned char *c = p; n--; c++)
		*h = (*h ^ *c) * 0x100000001b3ull;	/* FNV-1a 64 */
}

static void fnv_u32(uint64_t *h, uint32_t v)
{
	unsigned char b[4] = { v & 0xff, (v >> 8) & 0xff, (v >> 16) & 0xff, v >> 24 };

	fnv_add(h, b, sizeof(b));
}

/* One rule into @h: its list, action, mask and every field but the keys. */
static void digest_rule(uint64_t *h, const struct audit_rule_data *r)
{
	uint32_t off = 0;

	fnv_u32(h, r->flags & ~(uint32_t)AUDIT_FILTER_PREPEND);
	fnv_u32(h, r->action);
	for (int i = 0; i < AUDIT_BITMASK_SIZE; i++) {
		uint32_t m = r->mask[i];

		/* the class bits (the mask's last AUDIT_SYSCALL_CLASSES): the kernel expands them */
		if (i == AUDIT_BITMASK_SIZE - 1)
			m &= ~(uint32_t)0 >> AUDIT_SYSCALL_CLASSES;
		fnv_u32(h, m);
	}
	for (uint32_t i = 0; i < r->field_count && i < AUDIT_MAX_FIELDS; i++) {
		bool str = string_field(r->fields[i]);
		uint32_t n = str ? r->values[i] : 0;

		if (str && off + n > r->buflen)
			break;
		if (r->fields[i] != AUDIT_FILTERKEY) {
			fnv_u32(h, r->fields[i]);
			fnv_u32(h, r->fieldflags[i]);
			fnv_u32(h, r->values[i]);
			if (str)
				fnv_add(h, r->buf + off, n);
		}
		off += n;
	}
	fnv_u32(h, 0xffffffffu);	/* the rule's end */
}

/*
 * @v's digest, each list's rules in @v's order: the kernel's (its walk's),
 * or a file's (audit_rules_add adds them in that order; a -A rule too).
 * @skip_ours: tracetax's own rules left out. Their number in *@counted.
 */
static void rules_digest(struct audit_rule_data *const *v, int n, bool skip_ours,
			 char out[AUDIT_DIGEST_LEN], int *counted)
{
	uint64_t h = 0xcbf29ce484222325ull;

	*counted = 0;
	fnv_add(&h, "tracetax-rules-1", 16);
	for (uint32_t list = 0; list < AUDIT_NR_FILTERS; list++)
		for (int i = 0; i < n; i++) {
			if ((v[i]->flags & ~(uint32_t)AUDIT_FILTER_PREPEND) != list ||
			    (skip_ours && has_key(v[i], NULL)))
				continue;
			digest_rule(&h, v[i]);
			(*counted)++;
		}
	snprintf(out, AUDIT_DIGEST_LEN, "%016llx", (unsigned long long)h);
}

int audit_nl_rules_digest(int fd, char out[AUDIT_DIGEST_LEN], int *n, char *err, size_t len)
{
	struct audit_rule_data **v;
	int nv = list_rules(fd, &v, err, len);

	if (nv < 0)
		return -1;
	rules_digest(v, nv, true, out, n);
	free_list(v, nv);
	return 0;
}

int audit_nl_count_rules(int fd, const char *key, int *ours, int *others, char *err, size_t len)
{
	struct audit_rule_data **v;
	int n = list_rules(fd, &v, err, len);

	if (n < 0)
		return -1;
	*ours = *others = 0;
	for (int i = 0; i < n; i++)
		(*(has_key(v[i], key) ? ours : others))++;
	free_list(v, n);
	return 0;
}

int audit_nl_delete_key(int fd, const char *key, int *deleted, char *err, size_t len)
{
	struct audit_rule_data **v;
	int n = list_rules(fd, &v, err, len), ret = 0;

	*deleted = 0;
	if (n < 0)
		return -1;
	for (int i = 0; i < n; i++) {
		int rc;

		if (!has_key(v[i], key))
			continue;
		rc = audit_delete_rule_data(fd, v[i], (int)v[i]->flags, (int)v[i]->action);
		if (rc <= 0) {
			if (!ret)
				snprintf(err, len, "cannot delete audit rule of key '%s': %s", key,
					 strerror(rc < 0 ? -rc : errno));
			ret = -1;
			continue;
		}
		(*deleted)++;
	}
	free_list(v, n);
	return ret;
}

/* ---- rule files ---- */

static void reset_builder(void)
{
	_audit_elf = 0;
	_audit_syscalladded = _audit_permadded = _audit_archadded = 0;
	_audit_exeadded = _audit_filterfsadded = 0;
}

/* "list,action" or "action,list": 0, or -1. */
static int list_action(const char *s, int *flags, int *action)
{
	char buf[64], *comma;

	*flags = *action = -1;
	if (snprintf(buf, sizeof(buf), "%s", s) >= (int)sizeof(buf) || !(comma = strchr(buf, ',')))
		return -1;
	*comma = '\0';
	for (const char *w = buf; w; w = w == buf ? comma + 1 : NULL) {
		int f = audit_name_to_flag(w), a = audit_name_to_action(w);

		if (f >= 0 && *flags < 0 && strcmp(w, "entry"))
			*flags = f;
		else if (a >= 0 && *action < 0 && a != AUDIT_POSSIBLE)
			*action = a;
		else
			return -1;
	}
	return *flags >= 0 && *action >= 0 ? 0 : -1;
}

static int perms_of(const char *s)
{
	int p = 0;

	if (!*s || strlen(s) > 4)
		return -1;
	for (; *s; s++)
		switch (*s) {
		case 'r': p |= AUDIT_PERM_READ; break;
		case 'w': p |= AUDIT_PERM_WRITE; break;
		case 'x': p |= AUDIT_PERM_EXEC; break;
		case 'a': p |= AUDIT_PERM_ATTR; break;
		default: return -1;
		}
	return p;
}

static int add_sys(struct audit_ruleset *rs, int nr)
{
	int *v;

	for (int i = 0; i < rs->nsys; i++)
		if (rs->sys[i] == nr)
			return 0;
	if (!(v = realloc(rs->sys, sizeof(*v) * (size_t)(rs->nsys + 1))))
		return -1;
	rs->sys = v;
	rs->sys[rs->nsys++] = nr;
	return 0;
}

/* The control options of auditctl: they set the state, which is tracetax's while it measures. */
static int control_option(const char *o)
{
	static const char *const ctl[] = { "-D", "-b", "-e", "-f", "-r", "-c", "-i", "-d", "-W",
					   "--backlog_wait_time", "--loginuid-immutable",
					   "--reset-lost", "--reset_backlog_wait_time_actual", NULL };

	for (int i = 0; ctl[i]; i++)
		if (!strcmp(o, ctl[i]))
			return 1;
	return 0;
}

#define FAIL_AT(...) do { snprintf(err, len, "rule file '%s' line %d: " __VA_ARGS__); goto bad; } while (0)

/* One line of a rule file into @rs: 0 (a rule, or nothing to load), -1 and @err. */
static int parse_line(char *line, const char *path, int lineno, const char *key,
		      struct audit_ruleset *rs, char *err, size_t len)
{
	char *tok[128], *save = NULL, *p;
	int ntok = 0, flags = -1, action = -1, watch = 0, perms = -1;
	struct audit_rule_data *r = NULL;

	if ((p = strchr(line, '#')) && (p == line || isspace((unsigned char)p[-1])))
		*p = '\0';
	for (p = strtok_r(line, " \t\r\n", &save); p; p = strtok_r(NULL, " \t\r\n", &save)) {
		if (ntok == (int)(sizeof(tok) / sizeof(*tok)))
			FAIL_AT("too many words", path, lineno);
		tok[ntok++] = p;
	}
	if (!ntok)
		return 0;
	if (control_option(tok[0])) {
		rs->dropped++;
		return 0;
	}
	reset_builder();
	if (!(r = audit_rule_create_data()))
		FAIL_AT("out of memory", path, lineno);
	for (int i = 0; i < ntok; i++) {
		const char *o = tok[i], *a = i + 1 < ntok ? tok[i + 1] : NULL;
		int rc;

		if (o[0] != '-' || !o[1] || o[2])
			FAIL_AT("'%s' is not an option of a rule", path, lineno, o);
		if (!a && o[1] != 'k')
			FAIL_AT("option '%s' needs a value", path, lineno, o);
		switch (o[1]) {
		case 'a': case 'A':
			if (flags >= 0)
				FAIL_AT("two lists in one rule", path, lineno);
			if (list_action(a, &flags, &action))
				FAIL_AT("bad list or action '%s'", path, lineno, a);
			break;
		case 'w':
			if (flags >= 0)
				FAIL_AT("a watch cannot be given with a syscall rule", path, lineno);
			if (a[0] != '/')
				FAIL_AT("watch '%s' is not an absolute path", path, lineno, a);
			/* as auditctl: "/etc/sudoers.d/" is "/etc/sudoers.d" */
			for (size_t l = strlen(a); l > 1 && a[l - 1] == '/'; l--)
				tok[i + 1][l - 1] = '\0';
			{
				struct stat sb;
				int type = !stat(a, &sb) && S_ISDIR(sb.st_mode) ? AUDIT_DIR : AUDIT_WATCH;

				if (audit_add_watch_dir(type, &r, a))
					FAIL_AT("cannot watch '%s'", path, lineno, a);
			}
			flags = AUDIT_FILTER_EXIT, action = AUDIT_ALWAYS, watch = 1;
			_audit_syscalladded = 1;
			break;
		case 'p':
			if (!watch || (perms = perms_of(a)) < 0)
				FAIL_AT("bad permission '%s' (rwxa, after -w)", path, lineno, a);
			break;
		case 'S':
			if (flags < 0 || (flags != AUDIT_FILTER_EXIT && flags != AUDIT_FILTER_URING_EXIT))
				FAIL_AT("syscalls need an exit list before them", path, lineno);
			if (!_audit_elf)
				_audit_elf = (int)audit_machine_to_elf(audit_detect_machine());
			{
				char *copy = strdup(a), *s2 = NULL;

				for (char *sc = strtok_r(copy, ",", &s2); sc; sc = strtok_r(NULL, ",", &s2)) {
					if (audit_rule_syscallbyname_data(r, sc)) {
						snprintf(err, len, "rule file '%s' line %d: unknown syscall '%s'",
							 path, lineno, sc);
						free(copy);
						goto bad;
					}
				}
				free(copy);
			}
			_audit_syscalladded = 1;
			break;
		case 'F':
			if (flags < 0)
				FAIL_AT("a field needs a list before it", path, lineno);
			if (!strncmp(a, "key=", 4))
				break;	/* the user's key: ours replaces it */
			if ((rc = audit_rule_fieldpair_data(&r, a, flags)))
				FAIL_AT("bad field '%s' (libaudit error %d)", path, lineno, a, rc);
			break;
		case 'C':
			if (flags < 0 || (rc = audit_rule_interfield_comp_data(&r, a, flags)))
				FAIL_AT("bad comparison '%s'", path, lineno, a);
			break;
		case 'k':
			if (!a)
				FAIL_AT("option '-k' needs a value", path, lineno);
			break;	/* replaced by ours */
		default:
			FAIL_AT("option '%s' is not one tracetax loads", path, lineno, o);
		}
		i++;
	}
	if (flags < 0)
		FAIL_AT("no list: not a rule", path, lineno);
	if (watch)
		audit_update_watch_perms(r, perms >= 0 ? perms :
					 AUDIT_PERM_READ | AUDIT_PERM_WRITE | AUDIT_PERM_EXEC |
					 AUDIT_PERM_ATTR);
	/* an exit rule without -S is on every syscall, as auditctl makes it */
	if (flags == AUDIT_FILTER_EXIT && !_audit_syscalladded)
		for (int i = 0; i < AUDIT_BITMASK_SIZE; i++)
			r->mask[i] = ~0u;
	if (watch)
		for (int i = 0; i < AUDIT_BITMASK_SIZE; i++)
			r->mask[i] = ~0u;
	{
		char kf[AUDIT_MAX_KEY_LEN + 8];

		snprintf(kf, sizeof(kf), "key=%s", key);
		if (audit_rule_fieldpair_data(&r, kf, flags))
			FAIL_AT("cannot add the key", path, lineno);
	}
	r->flags = (uint32_t)flags;
	r->action = (uint32_t)action;
	if (flags == AUDIT_FILTER_EXIT) {
		/* the native arch's syscalls the rule names: a 32-bit rule names none of ours */
		unsigned native = audit_machine_to_elf(audit_detect_machine());
		int all = 1;

		for (int i = 0; i < AUDIT_BITMASK_SIZE; i++)
			all &= r->mask[i] == ~0u;
		if (!_audit_elf || (unsigned)_audit_elf == native) {
			if (all)
				rs->all_syscalls = 1;
			else
				for (int b = 0; b < AUDIT_BITMASK_SIZE * 32; b++)
					if (r->mask[b / 32] & (1u << (b % 32)) && add_sys(rs, b))
						FAIL_AT("out of memory", path, lineno);
		}
	}
	{
		struct audit_rule_data **v = realloc(rs->rules, sizeof(*v) * (size_t)(rs->n + 1));
		int *l = v ? realloc(rs->line, sizeof(*l) * (size_t)(rs->n + 1)) : NULL;
		struct audit_rule_sum *sm = l ? realloc(rs->sum, sizeof(*sm) * (size_t)(rs->n + 1)) : NULL;

		if (v)
			rs->rules = v;
		if (l)
			rs->line = l;
		if (!sm)
			FAIL_AT("out of memory", path, lineno);
		rs->sum = sm;
		audit_rule_summarise(r, lineno, audit_detect_machine(), &rs->sum[rs->n]);
		rs->line[rs->n] = lineno;
		rs->rules[rs->n++] = r;
	}
	return 0;
bad:
	if (r)
		audit_rule_free_data(r);
	return -1;
}

int audit_rules_parse(const char *path, const char *key, struct audit_ruleset *rs, char *err,
		      size_t len)
{
	char *text, *line, *next;
	size_t n;
	int lineno = 0, ret = 0;

	memset(rs, 0, sizeof(*rs));
	if (read_user_file("rule file", path, AUDIT_RULES_MAX, &text, &n, err, len))
		return -1;
	if (strlen(text) != n) {
		snprintf(err, len, "rule file '%s' is not text (a NUL byte)", path);
		free(text);
		return -1;
	}
	for (line = text; !ret && line && *line; line = next) {
		if ((next = strchr(line, '\n')))
			*next++ = '\0';
		lineno++;
		if (strlen(line) >= AUDIT_LINE_MAX) {
			snprintf(err, len, "rule file '%s' line %d: longer than %d bytes", path, lineno,
				 AUDIT_LINE_MAX);
			ret = -1;
			break;
		}
		ret = parse_line(line, path, lineno, key, rs, err, len);
	}
	free(text);
	reset_builder();
	if (!ret && !rs->n) {
		snprintf(err, len, "rule file '%s' has no rule", path);
		ret = -1;
	}
	if (!ret) {
		int nd;

		rules_digest(rs->rules, rs->n, false, rs->digest, &nd);
	}
	if (ret)
		audit_rules_free(rs);
	return ret;
}

void audit_rules_free(struct audit_ruleset *rs)
{
	for (int i = 0; i < rs->n; i++)
		audit_rule_free_data(rs->rules[i]);
	free(rs->rules);
	free(rs->line);
	free(rs->sum);
	free(rs->sys);
	memset(rs, 0, sizeof(*rs));
}

int audit_rules_add(int fd, struct audit_ruleset *rs, char *err, size_t len)
{
	rs->refused = 0;
	for (int i = 0; i < rs->n; i++) {
		int rc = audit_add_rule_data(fd, rs->rules[i], (int)rs->rules[i]->flags,
					     (int)rs->rules[i]->action);

		if (rc == -ENOENT) {
			if (!rs->refused++)
				rs->first_refused = rs->line[i];
			continue;
		}
		if (rc <= 0) {
			snprintf(err, len, "the kernel refused the rule of line %d: %s", rs->line[i],
				 strerror(rc < 0 ? -rc : errno));
			return -1;
		}
	}
	return 0;
}

int audit_rule_one(int fd, int add, int sys, const char *field, const char *key, char *err,
		   size_t len)
{
	struct audit_rule_data *r = audit_rule_create_data();
	/* libaudit writes into the pairs it parses: no literals */
	char kv[AUDIT_MAX_KEY_LEN + 8], pv[64], arch[] = "arch=b64";
	int flags = sys < 0 ? AUDIT_FILTER_TASK : AUDIT_FILTER_EXIT;
	int action = sys < 0 ? AUDIT_NEVER : AUDIT_ALWAYS, rc = -1;

	if (!r) {
		snprintf(err, len, "out of memory");
		return -1;
	}
	reset_builder();
	snprintf(kv, sizeof(kv), "key=%s", key);
	if (sys >= 0) {
		snprintf(pv, sizeof(pv), "%s", field ? field : "");
		if (sys >= AUDIT_BITMASK_SIZE * 32 || audit_rule_fieldpair_data(&r, arch, flags) ||
		    (*pv && audit_rule_fieldpair_data(&r, pv, flags))) {
			snprintf(err, len, "cannot build the audit rule on syscall %d", sys);
			goto out;
		}
		r->mask[sys / 32] |= 1u << (sys % 32);
	}
	/* libaudit takes a key after a syscall only; the kernel takes it on a task rule too */
	_audit_syscalladded = 1;
	if (audit_rule_fieldpair_data(&r, kv, flags)) {
		snprintf(err, len, "cannot build the audit rule's key '%s'", key);
		goto out;
	}
	rc = add ? audit_add_rule_data(fd, r, flags, action) : audit_delete_rule_data(fd, r, flags, action);
	if (rc <= 0) {
		snprintf(err, len, "the kernel refused to %s the audit rule: %s", add ? "add" : "delete",
			 strerror(rc < 0 ? -rc : errno));
		rc = -1;
	} else
		rc = 0;
out:
	reset_builder();
	audit_rule_free_data(r);
	return rc;
}

/* ---- the saved state, on disk for cleanup ---- */

static void state_path(pid_t pid, char *buf, size_t len)
{
	snprintf(buf, len, AUDIT_STATE_DIR "/" AUDIT_STATE_PREFIX "%d.state", (int)pid);
}

int audit_state_save(const struct audit_state *st, const char *key, pid_t auditd,
		     const char *dir, char *err, size_t len)
{
	char path[PATH_MAX], text[PATH_MAX + 512];

	state_path(getpid(), path, sizeof(path));
	snprintf(text, sizeof(text),
		 "key %s\nenabled %u\nfailure %u\nrate_limit %u\nbacklog_limit %u\n"
		 "backlog_wait_time %u\nauditd %d\nauditd_dir %s\n", key, st->enabled, st->failure,
		 st->rate_limit, st->backlog_limit, st->backlog_wait_time, (int)auditd,
		 dir && *dir ? dir : "-");
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

int audit_state_restore(int fd, const struct audit_state *st, const char *key, pid_t auditd,
			char *err, size_t len)
{
	int ret = 0, deleted;
	char e[256];

	/* rules first: their deletion's records still go to our auditd, not the kernel's log */
	if (audit_nl_delete_key(fd, key, &deleted, e, sizeof(e)))
		ret = -1, snprintf(err, len, "%s", e);
	stop_auditd(fd, auditd);
	if (audit_nl_set_state(fd, st, e, sizeof(e)) && !ret)
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

/* Restores the box from the state file @path. 0, or -1 (said with error()). */
static int restore_from(const char *path)
{
	char text[PATH_MAX + 512] = "\n", key[64], dir[PATH_MAX], err[256], *p;
	struct audit_state st;
	long en, fa, rl, bl, bw, ad;
	int fd, ret;

	if (read_file_str(path, text + 1, sizeof(text) - 1))
		return error("cannot read the saved audit state '%s': %s", path, strerror(errno));
	if (sscanf(text, "\nkey %63s", key) != 1 ||
	    strncmp(key, AUDIT_KEY_PREFIX, strlen(AUDIT_KEY_PREFIX)) ||
	    state_field(text, "enabled", &en) || state_field(text, "failure", &fa) ||
	    state_field(text, "rate_limit", &rl) || state_field(text, "backlog_limit", &bl) ||
	    state_field(text, "backlog_wait_time", &bw) || state_field(text, "auditd", &ad) ||
	    !(p = strstr(text, "\nauditd_dir ")) || sscanf(p, "\nauditd_dir %4095s", dir) != 1)
		return error("cannot read the saved audit state '%s': put audit back by hand", path);
	memset(&st, 0, sizeof(st));
	st.enabled = (uint32_t)en, st.failure = (uint32_t)fa, st.rate_limit = (uint32_t)rl;
	st.backlog_limit = (uint32_t)bl, st.backlog_wait_time = (uint32_t)bw;
	if ((fd = audit_nl_open(err, sizeof(err))) < 0)
		return error("%s: the audit state saved in '%s' is not restored", err, path);
	/* a pid that runs but is not our auditd was reused: not ours to stop */
	if (ad > 0 && !kill((pid_t)ad, 0) && !our_auditd((pid_t)ad, dir))
		ad = 0;
	ret = audit_state_restore(fd, &st, key, (pid_t)ad, err, sizeof(err));
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

static bool is_kauditd(pid_t pid, const struct proc_stat *st, void *arg)
{
	(void)pid; (void)arg;
	return !strcmp(st->comm, "kauditd") && (st->flags & PROC_PF_KTHREAD);
}

pid_t audit_kauditd_pid(void)
{
	return proc_find(is_kauditd, NULL);
}
