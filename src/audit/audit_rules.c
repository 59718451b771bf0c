/*
 * Rules built as auditctl builds them (audit_nl.h): a rule file parsed
 * line by line into libaudit's rules, each with tracetax's key, in the
 * order the kernel will walk them; the file's rules added; one rule of
 * tracetax's own added or deleted.
 */
#include <ctype.h>
#include <errno.h>
#include <libaudit.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "audit/audit_nl.h"
#include "base/util.h"

/* libaudit's rule-building state, as auditctl resets it for each rule (not in libaudit.h). */
extern int _audit_elf, _audit_syscalladded, _audit_permadded, _audit_archadded,
	_audit_exeadded, _audit_filterfsadded;

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

/* One line being built into a rule: where it is, and what its options said so far. */
struct rule_line {
	const char *path;
	int lineno;
	char *err;
	size_t len;
	struct audit_rule_data *r;
	int flags, action;           /* the list (no PREPEND) and action; -1: none yet */
	bool prepend;                /* -A: first in its list, as the kernel puts it */
	bool watch;
	int perms;
};

static int line_fail(struct rule_line *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int line_fail(struct rule_line *x, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(x->err, x->len, "rule file '%s' line %d: ", x->path, x->lineno);

	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < x->len)
		vsnprintf(x->err + n, x->len - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

/* The words of @line, its comment cut: their number, or -1 (too many). */
static int split_words(char *line, char **tok, int max)
{
	char *save = NULL, *p;
	int n = 0;

	if ((p = strchr(line, '#')) && (p == line || isspace((unsigned char)p[-1])))
		*p = '\0';
	for (p = strtok_r(line, " \t\r\n", &save); p; p = strtok_r(NULL, " \t\r\n", &save)) {
		if (n == max)
			return -1;
		tok[n++] = p;
	}
	return n;
}

/* -w PATH: a watch, on the exit list (AUDIT_DIR for a directory, as auditctl). @a is writable. */
static int opt_watch(struct rule_line *x, char *a)
{
	struct stat sb;
	int type;

	if (x->flags >= 0)
		return line_fail(x, "a watch cannot be given with a syscall rule");
	if (a[0] != '/')
		return line_fail(x, "watch '%s' is not an absolute path", a);
	/* as auditctl: "/etc/sudoers.d/" is "/etc/sudoers.d" */
	for (size_t l = strlen(a); l > 1 && a[l - 1] == '/'; l--)
		a[l - 1] = '\0';
	type = !stat(a, &sb) && S_ISDIR(sb.st_mode) ? AUDIT_DIR : AUDIT_WATCH;
	if (audit_add_watch_dir(type, &x->r, a))
		return line_fail(x, "cannot watch '%s'", a);
	x->flags = AUDIT_FILTER_EXIT, x->action = AUDIT_ALWAYS, x->watch = true;
	_audit_syscalladded = 1;
	return 0;
}

/* -S NAME[,NAME...]: the syscalls of an exit list's rule. */
static int opt_syscalls(struct rule_line *x, const char *a)
{
	char *copy, *s2 = NULL;
	int ret = 0;

	if (x->flags != AUDIT_FILTER_EXIT && x->flags != AUDIT_FILTER_URING_EXIT)
		return line_fail(x, "syscalls need an exit list before them");
	if (!_audit_elf)
		_audit_elf = (int)audit_machine_to_elf(audit_detect_machine());
	if (!(copy = strdup(a)))
		return line_fail(x, "out of memory");
	for (char *sc = strtok_r(copy, ",", &s2); sc && !ret; sc = strtok_r(NULL, ",", &s2))
		if (audit_rule_syscallbyname_data(x->r, sc))
			ret = line_fail(x, "unknown syscall '%s'", sc);
	free(copy);
	_audit_syscalladded = 1;
	return ret;
}

/* One option @o with its value @a (NULL: the line's last word) into @x. */
static int parse_option(struct rule_line *x, const char *o, char *a)
{
	int rc;

	if (o[0] != '-' || !o[1] || o[2])
		return line_fail(x, "'%s' is not an option of a rule", o);
	if (!a)
		return line_fail(x, "option '%s' needs a value", o);
	switch (o[1]) {
	case 'a': case 'A':
		if (x->flags >= 0)
			return line_fail(x, "two lists in one rule");
		if (list_action(a, &x->flags, &x->action))
			return line_fail(x, "bad list or action '%s'", a);
		x->prepend = o[1] == 'A';
		return 0;
	case 'w':
		return opt_watch(x, a);
	case 'p':
		if (!x->watch || (x->perms = perms_of(a)) < 0)
			return line_fail(x, "bad permission '%s' (rwxa, after -w)", a);
		return 0;
	case 'S':
		return opt_syscalls(x, a);
	case 'F':
		if (x->flags < 0)
			return line_fail(x, "a field needs a list before it");
		if (!strncmp(a, "key=", 4))
			return 0;	/* the user's key: ours replaces it */
		if ((rc = audit_rule_fieldpair_data(&x->r, a, x->flags)))
			return line_fail(x, "bad field '%s' (libaudit error %d)", a, rc);
		return 0;
	case 'C':
		if (x->flags < 0 || audit_rule_interfield_comp_data(&x->r, a, x->flags))
			return line_fail(x, "bad comparison '%s'", a);
		return 0;
	case 'k':
		return 0;	/* replaced by ours */
	default:
		return line_fail(x, "option '%s' is not one tracetax loads", o);
	}
}

/* The rule's mask and key as auditctl ends a rule: no -S or a watch is every syscall. */
static int finish_rule(struct rule_line *x, const char *key)
{
	char kf[AUDIT_MAX_KEY_LEN + 8];

	if (x->flags < 0)
		return line_fail(x, "no list: not a rule");
	if (x->watch)
		audit_update_watch_perms(x->r, x->perms >= 0 ? x->perms :
					 AUDIT_PERM_READ | AUDIT_PERM_WRITE | AUDIT_PERM_EXEC |
					 AUDIT_PERM_ATTR);
	if ((x->flags == AUDIT_FILTER_EXIT && !_audit_syscalladded) || x->watch)
		for (int i = 0; i < AUDIT_BITMASK_SIZE; i++)
			x->r->mask[i] = ~0u;
	snprintf(kf, sizeof(kf), "key=%s", key);
	if (audit_rule_fieldpair_data(&x->r, kf, x->flags))
		return line_fail(x, "cannot add the key");
	x->r->flags = (uint32_t)x->flags | (x->prepend ? AUDIT_FILTER_PREPEND : 0);
	x->r->action = (uint32_t)x->action;
	return 0;
}

/* The native arch's syscalls an exit rule names, into @rs: a 32-bit rule names none of ours. */
static int note_syscalls(struct rule_line *x, struct audit_ruleset *rs)
{
	unsigned native = audit_machine_to_elf(audit_detect_machine());
	int all = 1;

	if (x->flags != AUDIT_FILTER_EXIT || (_audit_elf && (unsigned)_audit_elf != native))
		return 0;
	for (int i = 0; i < AUDIT_BITMASK_SIZE; i++)
		all &= x->r->mask[i] == ~0u;
	if (all) {
		rs->all_syscalls = 1;
		return 0;
	}
	for (int b = 0; b < AUDIT_BITMASK_SIZE * 32; b++)
		if (x->r->mask[b / 32] & (1u << (b % 32)) && add_sys(rs, b))
			return line_fail(x, "out of memory");
	return 0;
}

/* The built rule appended to @rs (which owns it then). */
static int keep_rule(struct rule_line *x, struct audit_ruleset *rs)
{
	struct audit_rule_data **v = realloc(rs->rules, sizeof(*v) * (size_t)(rs->n + 1));
	int *l = v ? realloc(rs->line, sizeof(*l) * (size_t)(rs->n + 1)) : NULL;
	struct audit_rule_sum *sm = l ? realloc(rs->sum, sizeof(*sm) * (size_t)(rs->n + 1)) : NULL;

	if (v)
		rs->rules = v;
	if (l)
		rs->line = l;
	if (!sm)
		return line_fail(x, "out of memory");
	rs->sum = sm;
	audit_rule_summarise(x->r, x->lineno, audit_detect_machine(), &rs->sum[rs->n]);
	rs->line[rs->n] = x->lineno;
	rs->rules[rs->n++] = x->r;
	x->r = NULL;
	return 0;
}

/* One line of a rule file into @rs: 0 (a rule, or nothing to load), -1 and @err. */
static int parse_line(char *line, const char *path, int lineno, const char *key,
		      struct audit_ruleset *rs, char *err, size_t len)
{
	struct rule_line x = { .path = path, .lineno = lineno, .err = err, .len = len,
			       .flags = -1, .action = -1, .perms = -1 };
	char *tok[128];
	int ntok = split_words(line, tok, (int)(sizeof(tok) / sizeof(*tok))), ret = 0;

	if (ntok < 0)
		return line_fail(&x, "too many words");
	if (!ntok)
		return 0;
	if (control_option(tok[0])) {
		rs->dropped++;
		return 0;
	}
	reset_builder();
	if (!(x.r = audit_rule_create_data()))
		return line_fail(&x, "out of memory");
	for (int i = 0; !ret && i < ntok; i += 2)
		ret = parse_option(&x, tok[i], i + 1 < ntok ? tok[i + 1] : NULL);
	if (!ret)
		ret = finish_rule(&x, key) || note_syscalls(&x, rs) || keep_rule(&x, rs) ? -1 : 0;
	if (x.r)
		audit_rule_free_data(x.r);
	return ret;
}

/*
 * The order the kernel walks @rs in once audit_rules_add has added it:
 * each -A rule went first in its list, so the last -A first; then the -a
 * rules in the file's order. Into @order (rs->n).
 */
static void kernel_order(const struct audit_ruleset *rs, int *order)
{
	int k = 0;

	for (int i = rs->n - 1; i >= 0; i--)
		if (rs->rules[i]->flags & AUDIT_FILTER_PREPEND)
			order[k++] = i;
	for (int i = 0; i < rs->n; i++)
		if (!(rs->rules[i]->flags & AUDIT_FILTER_PREPEND))
			order[k++] = i;
}

/* rs->sum in the kernel's order (the budget walks it as the kernel does), and the set's digest. */
static int order_and_digest(struct audit_ruleset *rs, char *err, size_t len)
{
	int *order = malloc(sizeof(*order) * (size_t)rs->n);
	struct audit_rule_sum *sum = malloc(sizeof(*sum) * (size_t)rs->n);
	struct audit_rule_data **v = malloc(sizeof(*v) * (size_t)rs->n);

	if (!order || !sum || !v) {
		free(order), free(sum), free(v);
		snprintf(err, len, "out of memory");
		return -1;
	}
	kernel_order(rs, order);
	for (int i = 0; i < rs->n; i++) {
		sum[i] = rs->sum[order[i]];
		v[i] = rs->rules[order[i]];
	}
	memcpy(rs->sum, sum, sizeof(*sum) * (size_t)rs->n);
	audit_rules_digest_of(v, rs->n, rs->digest);
	free(order), free(sum), free(v);
	return 0;
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
	if (!ret)
		ret = order_and_digest(rs, err, len);
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
	snprintf(kv, sizeof(kv), "key=%s", key ? key : "");
	snprintf(pv, sizeof(pv), "%s", field ? field : "");
	if (sys >= 0) {
		if (sys >= AUDIT_BITMASK_SIZE * 32 || audit_rule_fieldpair_data(&r, arch, flags) ||
		    (*pv && audit_rule_fieldpair_data(&r, pv, flags))) {
			snprintf(err, len, "cannot build the audit rule on syscall %d", sys);
			goto out;
		}
		r->mask[sys / 32] |= 1u << (sys % 32);
	} else if (*pv && audit_rule_fieldpair_data(&r, pv, flags)) {
		snprintf(err, len, "cannot build the audit task rule '%s'", pv);
		goto out;
	}
	/* libaudit takes a key after a syscall only; the kernel takes it on a task rule too */
	_audit_syscalladded = 1;
	if (key && audit_rule_fieldpair_data(&r, kv, flags)) {
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

