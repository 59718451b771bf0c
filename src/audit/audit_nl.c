/* The kernel's audit subsystem through libaudit: its state, the rules loaded, their digest. */
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
#include "audit/audit_nl.h"
#include "base/proc.h"
#include "base/util.h"

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

static const char *const field_names[AF_N] = {
	"rate_limit", "backlog_limit", "backlog_wait_time", "failure", "enabled",
};

const char *audit_field_name(enum audit_field f)
{
	return field_names[f];
}

uint32_t audit_field_get(const struct audit_state *st, enum audit_field f)
{
	switch (f) {
	case AF_RATE: return st->rate_limit;
	case AF_BACKLOG: return st->backlog_limit;
	case AF_WAIT: return st->backlog_wait_time;
	case AF_FAILURE: return st->failure;
	default: return st->enabled;
	}
}

int audit_nl_set_field(int fd, enum audit_field f, uint32_t v, char *err, size_t len)
{
	int rc;

	switch (f) {
	case AF_RATE: rc = audit_set_rate_limit(fd, v); break;
	case AF_BACKLOG: rc = audit_set_backlog_limit(fd, v); break;
	case AF_WAIT: rc = audit_set_backlog_wait_time(fd, v); break;
	case AF_FAILURE: rc = audit_set_failure(fd, v); break;
	default: rc = audit_set_enabled(fd, v); break;
	}
	return set_one(rc, field_names[f], v, err, len);
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

/*
 * Whether one of @r's keys (separated by AUDIT_KEY_SEPARATOR) is @key, or
 * with @family one of its own ("@key-task", "@key-mark"); of our prefix
 * when @key is NULL.
 */
static int has_key(const struct audit_rule_data *r, const char *key, bool family)
{
	size_t kl = key ? strlen(key) : 0, pl = strlen(AUDIT_KEY_PREFIX);
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

				if (key ? (l == kl || (family && l > kl && p[kl] == '-')) &&
					  !memcmp(p, key, kl) :
				    l > pl && !memcmp(p, AUDIT_KEY_PREFIX, pl))
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
 * @v's digest, each list's rules in @v's order (the kernel's walk). Of the
 * rules whose key is @only (NULL: any), tracetax's own left out with
 * @skip_ours. Their number in *@counted.
 */
static void rules_digest(struct audit_rule_data *const *v, int n, const char *only, bool skip_ours,
			 char out[AUDIT_DIGEST_LEN], int *counted)
{
	uint64_t h = 0xcbf29ce484222325ull;

	*counted = 0;
	fnv_add(&h, "tracetax-rules-1", 16);
	for (uint32_t list = 0; list < AUDIT_NR_FILTERS; list++)
		for (int i = 0; i < n; i++) {
			if ((v[i]->flags & ~(uint32_t)AUDIT_FILTER_PREPEND) != list ||
			    (skip_ours && has_key(v[i], NULL, false)) ||
			    (only && !has_key(v[i], only, false)))
				continue;
			digest_rule(&h, v[i]);
			(*counted)++;
		}
	snprintf(out, AUDIT_DIGEST_LEN, "%016llx", (unsigned long long)h);
}

void audit_rules_digest_of(struct audit_rule_data *const *v, int n, char out[AUDIT_DIGEST_LEN])
{
	int counted;

	rules_digest(v, n, NULL, false, out, &counted);
}

int audit_nl_rules_digest(int fd, char out[AUDIT_DIGEST_LEN], int *n, char *err, size_t len)
{
	struct audit_rule_data **v;
	int nv = list_rules(fd, &v, err, len);

	if (nv < 0)
		return -1;
	rules_digest(v, nv, NULL, true, out, n);
	free_list(v, nv);
	return 0;
}

int audit_nl_key_digest(int fd, const char *key, char out[AUDIT_DIGEST_LEN], int *n, char *err,
			size_t len)
{
	struct audit_rule_data **v;
	int nv = list_rules(fd, &v, err, len);

	if (nv < 0)
		return -1;
	rules_digest(v, nv, key, false, out, n);
	free_list(v, nv);
	return 0;
}

int audit_nl_count_rules(int fd, const char *key, struct audit_rule_count *c, char *err, size_t len)
{
	struct audit_rule_data **v;
	int n = list_rules(fd, &v, err, len);

	if (n < 0)
		return -1;
	memset(c, 0, sizeof(*c));
	for (int i = 0; i < n; i++) {
		if (has_key(v[i], key, true))
			c->ours++;
		else if (audit_rule_task_never(v[i]))
			c->box_never++;
		else
			c->others++;
		if (key && has_key(v[i], key, false) == 0 && has_key(v[i], key, true)) {
			/* one of the family: is it the marker? */
			char mark[64];

			snprintf(mark, sizeof(mark), "%s" AUDIT_KEY_MARK, key);
			if (has_key(v[i], mark, false))
				c->marker++;
		}
	}
	free_list(v, n);
	return 0;
}

int audit_nl_delete_key(int fd, const char *key, bool keep_mark, int *deleted, char *err, size_t len)
{
	struct audit_rule_data **v;
	char mark[64];
	int n = list_rules(fd, &v, err, len), ret = 0;

	*deleted = 0;
	if (n < 0)
		return -1;
	snprintf(mark, sizeof(mark), "%s" AUDIT_KEY_MARK, key);
	for (int i = 0; i < n; i++) {
		int rc;

		if (!has_key(v[i], key, true) || (keep_mark && has_key(v[i], mark, false)))
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

static bool is_kauditd(pid_t pid, const struct proc_stat *st, void *arg)
{
	(void)pid; (void)arg;
	return !strcmp(st->comm, "kauditd") && (st->flags & PROC_PF_KTHREAD);
}

pid_t audit_kauditd_pid(void)
{
	return proc_find(is_kauditd, NULL);
}
