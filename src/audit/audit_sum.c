/*
 * A rule's summary for the budget (audit_sum.h), from the rule libaudit
 * built (audit_nl.c's parser), and the decisions on one call.
 *
 * What the kernel does (kernel/auditsc.c, v6.x): at a syscall's exit,
 * audit_filter_syscall() walks the exit list; a rule whose syscall mask
 * lacks the call costs a bit test, one that has it has its fields checked
 * in order (audit_filter_rules), the first that fails ending it. A file
 * rule (-w, -F path=) is hashed by inode instead and checked only for the
 * files the call named (audit_filter_inodes); a -F dir= rule stays on the
 * exit list and matches the calls that went through its tree. -F perm=
 * narrows both to the syscalls of its classes (audit_match_perm: the
 * asm-generic/audit_{dir_write,write,read,change_attr}.h tables, open's
 * and openat's access mode, execve).
 */
#include <libaudit.h>
#include <string.h>

#include "audit/audit_sum.h"

/* The kernel's permission classes, x86-64's names (a name this arch lacks is skipped). */
static const char *const class_write[] = {
	"rename", "mkdir", "rmdir", "creat", "link", "unlink", "symlink", "mknod", "mkdirat",
	"mknodat", "unlinkat", "renameat", "linkat", "symlinkat", "renameat2",	/* dir_write */
	"acct", "swapon", "quotactl", "truncate", "ftruncate", "bind", "fallocate", NULL,
};
static const char *const class_read[] = {
	"readlink", "quotactl", "listxattr", "llistxattr", "flistxattr", "getxattr",
	"lgetxattr", "fgetxattr", "readlinkat", NULL,
};
static const char *const class_attr[] = {
	"chmod", "fchmod", "chown", "lchown", "fchown", "setxattr", "lsetxattr", "fsetxattr",
	"removexattr", "lremovexattr", "fremovexattr", "fchownat", "fchmodat", "fchmodat2",
	"link", "linkat", NULL,
};
/* by their access mode: read or write, not known before the call */
static const char *const class_open[] = { "open", "openat", "openat2", NULL };
static const char *const class_exec[] = { "execve", "execveat", NULL };

/* those that look a pathname up (x86-64's names) */
static const char *const path_calls[] = {
	"open", "openat", "openat2", "creat", "stat", "lstat", "newfstatat", "statx", "access",
	"faccessat", "faccessat2", "readlink", "readlinkat", "execve", "execveat", "chdir",
	"chroot", "mkdir", "mkdirat", "rmdir", "unlink", "unlinkat", "rename", "renameat",
	"renameat2", "link", "linkat", "symlink", "symlinkat", "mknod", "mknodat", "chmod",
	"fchmodat", "fchmodat2", "chown", "lchown", "fchownat", "truncate", "utime", "utimes",
	"utimensat", "futimesat", "statfs", "setxattr", "lsetxattr", "getxattr", "lgetxattr",
	"listxattr", "llistxattr", "removexattr", "lremovexattr", "mount", "umount2",
	"pivot_root", "swapon", "swapoff", "acct", "name_to_handle_at", "inotify_add_watch",
	"fanotify_mark", "uselib", "quotactl", NULL,
};

static void add_class(uint32_t *m, const char *const *names, int machine)
{
	for (; *names; names++) {
		int nr = audit_name_to_syscall(*names, machine);

		if (nr >= 0 && nr < AUDIT_BITMASK_SIZE * 32)
			m[nr / 32] |= 1u << (nr % 32);
	}
}

/* The syscalls of permission @perm (AUDIT_PERM_*). */
static void perm_mask(uint32_t perm, int machine, uint32_t *m)
{
	memset(m, 0, sizeof(uint32_t) * AUDIT_BITMASK_SIZE);
	if (perm & AUDIT_PERM_WRITE)
		add_class(m, class_write, machine);
	if (perm & AUDIT_PERM_READ)
		add_class(m, class_read, machine);
	if (perm & AUDIT_PERM_ATTR)
		add_class(m, class_attr, machine);
	if (perm & (AUDIT_PERM_READ | AUDIT_PERM_WRITE))
		add_class(m, class_open, machine);
	if (perm & AUDIT_PERM_EXEC)
		add_class(m, class_exec, machine);
}

bool audit_rule_task_never(const struct audit_rule_data *r)
{
	return (r->flags & ~(uint32_t)AUDIT_FILTER_PREPEND) == AUDIT_FILTER_TASK &&
	       r->action == AUDIT_NEVER && r->field_count == 0;
}

int audit_rule_summarise(const struct audit_rule_data *r, int line, int machine,
			 struct audit_rule_sum *s)
{
	unsigned native = audit_machine_to_elf(machine);
	uint32_t flags = r->flags & ~(uint32_t)AUDIT_FILTER_PREPEND;
	bool all = true;

	memset(s, 0, sizeof(*s));
	s->line = line;
	s->exit = flags == AUDIT_FILTER_EXIT;
	s->never = r->action == AUDIT_NEVER;
	s->task_never = audit_rule_task_never(r);
	s->native = true;
	memcpy(s->mask, r->mask, sizeof(s->mask));
	for (int i = 0; i < AUDIT_BITMASK_SIZE; i++)
		all &= r->mask[i] == ~0u;
	s->all = all;
	for (uint32_t i = 0; i < r->field_count && i < AUDIT_MAX_FIELDS; i++) {
		uint32_t f = r->fields[i] & ~AUDIT_OPERATORS, op = r->fieldflags[i] & AUDIT_OPERATORS;
		uint32_t v = r->values[i];

		switch (f) {
		case AUDIT_ARCH:
			s->native = op == AUDIT_NOT_EQUAL ? v != native : v == native;
			break;
		case AUDIT_FILTERKEY:
			break;
		case AUDIT_LOGINUID:
		case AUDIT_LOGINUID_SET:
			if (s->nauid == AUDIT_SUM_AUIDS) {
				s->unlikely++;
				break;
			}
			s->auid[s->nauid++] = (struct audit_sum_auid){ .op = op, .val = v,
								       .set = f == AUDIT_LOGINUID_SET };
			break;
		case AUDIT_SUCCESS:
			/* libaudit: success=1 is AUDITSC_SUCCESS (1), success=0 AUDITSC_FAILURE (2) */
			if (op == AUDIT_EQUAL && v == 1)
				s->likely++;
			else
				s->unlikely++;
			break;
		case AUDIT_PERM: {
			uint32_t pm[AUDIT_BITMASK_SIZE];

			perm_mask(v, machine, pm);
			for (int k = 0; k < AUDIT_BITMASK_SIZE; k++)
				s->mask[k] &= pm[k];
			break;
		}
		case AUDIT_WATCH:
		case AUDIT_DIR:
		case AUDIT_INODE:
			s->fs = true;
			s->unlikely++;
			break;
		default:
			s->unlikely++;	/* exit, a0..a3, uid, gid, pid, exe, a comparison... */
		}
	}
	return 0;
}

void audit_path_syscalls(uint32_t m[AUDIT_BITMASK_SIZE])
{
	memset(m, 0, sizeof(uint32_t) * AUDIT_BITMASK_SIZE);
	add_class(m, path_calls, audit_detect_machine());
}

bool audit_sum_names(const struct audit_rule_sum *s, int nr)
{
	return nr >= 0 && nr < AUDIT_BITMASK_SIZE * 32 && (s->mask[nr / 32] & (1u << (nr % 32)));
}

/* The kernel's audit_comparator on a login uid (unsigned, unset is 4294967295). */
static bool auid_passes(const struct audit_sum_auid *c, uint32_t auid)
{
	uint32_t a = c->set ? auid != AUDIT_AUID_UNSET : auid;

	switch (c->op) {
	case AUDIT_EQUAL: return a == c->val;
	case AUDIT_NOT_EQUAL: return a != c->val;
	case AUDIT_LESS_THAN: return a < c->val;
	case AUDIT_LESS_THAN_OR_EQUAL: return a <= c->val;
	case AUDIT_GREATER_THAN: return a > c->val;
	case AUDIT_GREATER_THAN_OR_EQUAL: return a >= c->val;
	case AUDIT_BIT_MASK: return (a & c->val) != 0;
	case AUDIT_BIT_TEST: return (a & c->val) == c->val;
	default: return true;
	}
}

enum audit_odds audit_sum_odds(const struct audit_rule_sum *s, int nr, uint32_t auid, bool known)
{
	int unlikely = s->unlikely;

	if (!s->exit || !s->native || !audit_sum_names(s, nr))
		return ODDS_NA;
	for (int i = 0; i < s->nauid; i++) {
		if (!known)
			unlikely++;
		else if (!auid_passes(&s->auid[i], auid))
			return ODDS_NO;
	}
	return unlikely ? ODDS_POSSIBLE : s->likely ? ODDS_LIKELY : ODDS_CERTAIN;
}

void audit_sum_records(const struct audit_rule_sum *rules, int n, int nr, uint32_t auid,
		       bool known, bool rec[AUDIT_LEVELS])
{
	/* the least odds at which a rule fires, per level: an always rule, a never rule */
	static const enum audit_odds always_at[AUDIT_LEVELS] = { ODDS_CERTAIN, ODDS_LIKELY,
								  ODDS_POSSIBLE };
	static const enum audit_odds never_at[AUDIT_LEVELS] = { ODDS_POSSIBLE, ODDS_LIKELY,
								 ODDS_CERTAIN };

	for (int l = 0; l < AUDIT_LEVELS; l++) {
		rec[l] = false;
		for (int i = 0; i < n; i++) {
			enum audit_odds o = audit_sum_odds(&rules[i], nr, auid, known);

			if (o < ODDS_POSSIBLE)
				continue;
			if (o >= (rules[i].never ? never_at[l] : always_at[l])) {
				rec[l] = !rules[i].never;
				break;
			}
		}
	}
}
