/*
 * The kernel's audit subsystem through libaudit's netlink calls: its state
 * read, set and restored, rules added and removed by their key, rule files
 * parsed as auditctl parses them, and what a killed tracetax left there.
 *
 * Audit is global and is the box's security record: tracetax saves the
 * state before it changes anything (audit_state_save() also writes it into
 * its working directory, where `tracetax cleanup` finds it after a
 * SIGKILL), marks every rule it adds with its own key ("tracetax-<pid>")
 * and removes only those.
 */
#ifndef TRACETAX_AUDIT_NL_H
#define TRACETAX_AUDIT_NL_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "audit/audit_sum.h"
#include "base/owner.h"

#define AUDIT_KEY_PREFIX "tracetax-"     /* + the pid of the tracetax that added the rule */
/*
 * The saved state of tracetax <pid>: AUDIT_STATE_DIR/AUDIT_STATE_PREFIX<pid>.state.
 * Not in a working directory: a tracetax built before the audit cells would
 * remove that without putting the box back. /run is emptied at boot, as
 * the kernel's audit state is.
 */
#define AUDIT_STATE_DIR "/run"
#define AUDIT_STATE_PREFIX "tracetax-audit-"

/* AUDIT_GET: what the box set, and the kernel's counters. */
struct audit_state {
	uint32_t enabled;            /* 0, 1, or 2 (immutable) */
	uint32_t failure;
	uint32_t pid;                /* the registered auditd, 0: none */
	uint32_t rate_limit;
	uint32_t backlog_limit;
	uint32_t backlog_wait_time;
	/* counters: not state, never restored */
	uint32_t lost;
	uint32_t backlog;
	uint32_t backlog_wait_time_actual;
};

/* A netlink socket to the kernel's audit: fd, or -1 and @err. */
int audit_nl_open(char *err, size_t len);
void audit_nl_close(int fd);
int audit_nl_status(int fd, struct audit_state *st, char *err, size_t len);
/*
 * Sets the box's state to @st's fields but pid and the counters: the limits
 * first, the enabled flag last. 0, or -1 and @err naming what refused.
 */
int audit_nl_set_state(int fd, const struct audit_state *st, char *err, size_t len);
int audit_nl_set_enabled(int fd, uint32_t enabled, char *err, size_t len);
/* The fields of the state tracetax sets, in the order they are put back: enabled last. */
enum audit_field { AF_RATE, AF_BACKLOG, AF_WAIT, AF_FAILURE, AF_ENABLED, AF_N };
const char *audit_field_name(enum audit_field f);
uint32_t audit_field_get(const struct audit_state *st, enum audit_field f);
int audit_nl_set_field(int fd, enum audit_field f, uint32_t v, char *err, size_t len);
/* The backlog limit alone (tracetax rate's steps); the saved state puts it back. */
int audit_nl_set_backlog(int fd, uint32_t limit, char *err, size_t len);

/*
 * The keys of tracetax <pid>'s own rules: "tracetax-<pid>" on the rules a
 * cell measures (a rule file's), and two of its family: "-task" on the
 * `-a never,task` that spares the untraced runs (a key of its own: a
 * file's own `-a never,task` is then another rule, not a duplicate), and
 * "-mark" on a rule that never matches (`-a never,task -F pid=0`), loaded
 * from the first change to the restore: gone, someone flushed the rules
 * (`auditctl -D`, auditd's start) and audit is someone's now.
 */
#define AUDIT_KEY_TASK "-task"
#define AUDIT_KEY_MARK "-mark"

/* The rules loaded now, by whose they are. */
struct audit_rule_count {
	int ours;        /* of @key and its family (NULL: of any tracetax) */
	int marker;      /* @key's marker among them */
	int box_never;   /* the box's unkeyed `-a never,task`: tracetax's own advice, tolerated */
	int others;      /* the rest: the box's */
};
int audit_nl_count_rules(int fd, const char *key, struct audit_rule_count *c, char *err, size_t len);

/* The rules loaded now, read only, copied: *@out (audit_nl_list_free); their number, or -1 and @err. */
int audit_nl_list(int fd, struct audit_rule_data ***out, char *err, size_t len);
void audit_nl_list_free(struct audit_rule_data **v, int n);
/*
 * A rule as auditctl's syntax says it ("-a always,exit -F arch=b64 -S
 * getpid -k k"), into @buf, cut at @len, with no control character.
 */
void audit_rule_text(const struct audit_rule_data *r, char *buf, size_t len);
/*
 * The rules loaded now, read only (auditctl -l's list), each summarised for
 * the budget (audit_sum.h; its line: its place in the list, from 1) into
 * *@out (malloc'd): their number, or -1 and @err.
 */
int audit_nl_rule_sums(int fd, struct audit_rule_sum **out, char *err, size_t len);
/*
 * A rule set's identity (AUDIT_DIGEST_LEN - 1 hex digits): 64-bit FNV-1a of
 * its rules as the kernel walks them, each list in its order, every field
 * but the keys (ours replaces the file's, and a key costs no walk), the
 * syscall classes' bits of the mask left out (the kernel expands them). A
 * file's comments, blank lines, spacing, control lines and keys do not
 * change it; the same rules loaded and listed back give the same one.
 */
#define AUDIT_DIGEST_LEN 17
/*
 * The digest of the rules loaded now (read only), leaving out tracetax's own
 * (a key of AUDIT_KEY_PREFIX: a measurement's, not the box's): into @out,
 * their number in *@n. 0, or -1 and @err.
 */
int audit_nl_rules_digest(int fd, char out[AUDIT_DIGEST_LEN], int *n, char *err, size_t len);
/* The digest of the rules @v in that order (a parsed file's, in the kernel's order). */
void audit_rules_digest_of(struct audit_rule_data *const *v, int n, char out[AUDIT_DIGEST_LEN]);
/* The digest of the rules loaded now whose key is @key alone (not its family): their number in *@n. */
int audit_nl_key_digest(int fd, const char *key, char out[AUDIT_DIGEST_LEN], int *n, char *err,
			size_t len);
/*
 * Deletes every rule whose key is @key or of its family, but its marker
 * (@key AUDIT_KEY_MARK) when @keep_mark: how many in *@deleted. 0, or -1
 * and @err.
 */
int audit_nl_delete_key(int fd, const char *key, bool keep_mark, int *deleted, char *err,
			size_t len);

/* A user message with @text, through the kernel to the auditd: a marker in its log. */
int audit_nl_mark(int fd, const char *text, char *err, size_t len);

/* A set of rules, built as auditctl builds them, each marked with one key. */
struct audit_ruleset {
	struct audit_rule_data **rules;
	int *line;                   /* each rule's line in the file */
	struct audit_rule_sum *sum;  /* each rule as the budget sees it (audit_sum.h) */
	int n;
	int refused;                 /* rules the kernel refused for a path not here (audit_rules_add) */
	int first_refused;           /* the line of the first */
	int dropped;                 /* control lines (-D, -b, -e, -f...) left out */
	/* the syscalls each rule names, for the budget: NULL when a rule names all */
	int nsys;
	int *sys;                    /* syscall numbers of the native arch, any rule */
	int all_syscalls;            /* a rule names every syscall (-S all, or a watch) */
	char digest[AUDIT_DIGEST_LEN]; /* the set's identity (audit_nl_rules_digest's) */
};

/* A rule file's size and line's, at most: Debian's largest sets are some 40 KiB. */
#define AUDIT_RULES_MAX (1u << 20)
#define AUDIT_LINE_MAX 8192
/*
 * Parses @path (auditctl -R's format; a regular file, at most AUDIT_RULES_MAX) into @rs with every rule's keys
 * replaced by @key. Control lines are counted in rs->dropped and left out:
 * tracetax owns the state while it measures. -1 and @err, one line in git's
 * style naming the file and line, for a file that cannot be read or a rule
 * auditctl would refuse to build; nothing is loaded either way.
 */
int audit_rules_parse(const char *path, const char *key, struct audit_ruleset *rs, char *err,
		      size_t len);
void audit_rules_free(struct audit_ruleset *rs);
/*
 * Adds each rule of @rs. A rule on a path that does not exist here (ENOENT:
 * a -F dir= of another distribution) is left out, as `auditctl -R` with -i
 * leaves it, and counted in rs->refused. -1 and @err at the first other
 * refusal (what was added stays: delete by key).
 */
int audit_rules_add(int fd, struct audit_ruleset *rs, char *err, size_t len);
/*
 * One exit rule added (@add) or deleted: -a always,exit -F arch=b64 -S @sys
 * [-F @field] -k @key, @field as "pid=123" or NULL (@sys < 0: a task rule,
 * -a never,task [-F @field] [-k @key]: @key NULL, a rule with no key).
 */
int audit_rule_one(int fd, int add, int sys, const char *field, const char *key, char *err,
		   size_t len);

/*
 * What tracetax keeps of the box while it measures: written to this
 * process's state file before the first change and whenever what it set
 * changes, where `tracetax cleanup` (and every run's start) finds it after
 * a SIGKILL.
 */
struct audit_saved {
	struct audit_state box;      /* the box's state before tracetax changed it */
	struct audit_state set;      /* what tracetax set last: a field goes back only while it holds this */
	bool set_known;              /* false: a state file of an older tracetax, no "set" in it */
	uint32_t set_backlog_was;    /* while tracetax moves its backlog limit from one value of
				      * its own to another: the one before (0: none), also its */
	int box_never;               /* the box's unkeyed -a never,task (taken out around a traced fork) */
	char key[32];
	pid_t auditd;                /* ours, started with -c @dir; 0: none */
	char dir[PATH_MAX];
};
int audit_state_save(const struct audit_saved *sv, char *err, size_t len);
/* This process's state file removed, once the box is put back. */
void audit_state_forget(void);
/*
 * Puts the box back as @sv says, as far as it is still tracetax's: our
 * rules (of @sv->key and its family) deleted, our auditd stopped, the
 * box's `-a never,task` put back if it is not there. Then, unless audit
 * is someone's now (an auditd registered, rules of the box loaded, or our
 * marker rule gone: someone flushed the rules) or immutable (-e 2: nothing
 * can change until reboot), each field that still holds what tracetax set
 * gets the box's value again, enabled last. Whatever is left as it is is
 * said (a warning). 0: done or left; -1 and @err: the kernel refused.
 */
int audit_state_restore(int fd, const struct audit_saved *sv, char *err, size_t len);
/* Called by audit_state_restore once it has deleted the rules (TRACETAX_FAULT's restore-kill). */
extern void (*audit_restore_hook)(void);
/*
 * For cleanup: the state files of a tracetax that is gone (owner_gone()),
 * the box restored from each and the file removed. @removed counts them;
 * @kept (may be NULL) hears of each one kept, and why. 0, or -1 when one
 * could not be restored (said with error(); its file stays).
 */
int audit_cleanup_stale(int *removed, owner_kept_fn kept);

/*
 * The kernel thread that sends the audit records to the registered auditd
 * (kauditd, started at boot by audit_init): a process whose comm is
 * "kauditd" and whose flags have PF_KTHREAD. 0 when there is none (a
 * kernel without audit, or a /proc that hides it).
 */
pid_t audit_kauditd_pid(void);

#endif
