/*
 * What `tracetax budget -t audit:rules` needs of a rule (audit_sum.c): the
 * syscalls through which it can make a record on this box, and which of
 * its filters can be decided before the call. The kernel walks the exit
 * list on every syscall (a bit test on each rule's syscall mask), checks
 * the fields of a rule whose mask has the syscall, and makes a record at
 * the first rule whose fields all match (none for a `never` rule).
 */
#ifndef TRACETAX_AUDIT_SUM_H
#define TRACETAX_AUDIT_SUM_H

#include <stdbool.h>
#include <stdint.h>

#include <linux/audit.h>

struct audit_rule_data;

#define AUDIT_SUM_AUIDS 4
#define AUDIT_AUID_UNSET 4294967295u   /* loginuid never set: (uid_t)-1 */

struct audit_rule_sum {
	int line;                  /* in the rule file */
	bool exit;                 /* on the syscall-exit list: a syscall rule, -F dir=, a watch */
	bool never;                /* action never: a match stops the walk, no record */
	bool task_never;           /* the box's `-a never,task` (no field, no key): a task forked
	                              since it was loaded has no audit context (audit_alloc) */
	bool native;               /* no arch field, or this box's (a b32 rule records none of ours) */
	bool fs;                   /* a watch (-w, -F path=) or a tree (-F dir=): needs that file */
	bool all;                  /* its mask is every syscall (-S all, no -S, a watch) */
	int likely;                /* filters most calls pass: success=1 */
	int unlikely;              /* filters budget cannot decide (exit, success=0, a0..a3,
	                              uid, a file, a permission...) */
	int nauid;                 /* auid filters, decided on each call's login uid */
	struct audit_sum_auid {
		uint32_t op, val;      /* AUDIT_EQUAL...; the value */
		bool set;              /* the loginuid_set field (val 0 or 1) */
	} auid[AUDIT_SUM_AUIDS];
	/* the syscalls it can record: its -S ones; a file rule's, cut to the
	 * syscalls of its permission classes (the kernel's audit_match_perm) */
	uint32_t mask[AUDIT_BITMASK_SIZE];
};

/* How a rule can fire on one call: NA (not its syscall), or its odds. */
enum audit_odds { ODDS_NA, ODDS_NO, ODDS_POSSIBLE, ODDS_LIKELY, ODDS_CERTAIN };
/* The estimates: every filter budget cannot decide fails; success=1 passes; all pass. */
enum audit_level { AUDIT_LOWER, AUDIT_POINT, AUDIT_UPPER, AUDIT_LEVELS };

/*
 * @r's summary into @s (line @line); the syscalls of the native arch
 * (@machine, libaudit's). 0, or -1 (a syscall name of the class tables
 * libaudit does not know: never here).
 */
int audit_rule_summarise(const struct audit_rule_data *r, int line, int machine,
			 struct audit_rule_sum *s);

/*
 * Whether @r is an unkeyed task-list never rule with no field (`-a
 * never,task`, tracetax's own advice): every task forked after it is
 * loaded gets no audit context, so none of its calls walks the rules or
 * makes a record; the tasks already running keep theirs.
 */
bool audit_rule_task_never(const struct audit_rule_data *r);

/*
 * The syscalls that take a pathname (this box's numbers into @m): with an
 * audit context, the kernel keeps each name the call looks up (getname,
 * audit_inode) and checks the inode-hashed file rules against it at exit,
 * a cost a call without a name (getpid) does not pay.
 */
void audit_path_syscalls(uint32_t m[AUDIT_BITMASK_SIZE]);

/* Whether rule @s names syscall @nr in its mask. */
bool audit_sum_names(const struct audit_rule_sum *s, int nr);
/* The odds that @s fires on syscall @nr made with login uid @auid (@known: readable). */
enum audit_odds audit_sum_odds(const struct audit_rule_sum *s, int nr, uint32_t auid, bool known);
/*
 * Whether a call of @nr by @auid makes a record at each level (@rec), the
 * rules walked in order: the first that fires decides (a never rule: no
 * record). The lower level counts a rule only when it surely fires, and
 * a never rule that may; the upper the reverse.
 */
void audit_sum_records(const struct audit_rule_sum *rules, int n, int nr, uint32_t auid,
		       bool known, bool rec[AUDIT_LEVELS]);

#endif
