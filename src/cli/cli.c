/* Option parsing of `tracetax run`: strict, one clear line per mistake. */
#include <fnmatch.h>
#include <getopt.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit/audit_nl.h"
#include "base/cpus.h"
#include "base/lock.h"
#include "cli/cli.h"
#include "cli/values.h"
#include "load/tcp.h"
#include "load/workloads.h"
#include "measure/cmdload.h"
#include "load/syscalls.h"
#include "tracers/tracer.h"
#include "base/util.h"

#define CLI_OPT_AUDIT_RULES 0x101
#define CLI_OPT_ACCEPT_RESIDUE 0x102

#define FAIL(...) do { snprintf(err, errlen, __VA_ARGS__); return -1; } while (0)

/* A tracer's full name as the run lists it: family, family/variant, or
 * family:'command' for a tool that takes one. Allocated: a command may be
 * as long as the command line. */
static char *full_name(const struct tracer_ops *ops, const char *variant)
{
	char *full;

	if (asprintf(&full, !variant ? "%s" : ops->parse_arg ? "%s:%s" : "%s/%s", ops->name,
		     variant) < 0)
		die("out of memory");
	return full;
}

static int add_tracer(struct run_args *a, const char *name, char *err, size_t errlen)
{
	for (int i = 0; i < a->m.ntracers; i++)
		if (!strcmp(a->m.tracers[i], name))
			return 0;
	if (a->m.ntracers == CLI_MAX_ITEMS)
		FAIL("too many tracers (at most %d)", CLI_MAX_ITEMS);
	a->m.tracers[a->m.ntracers++] = strdup(name);
	return 0;
}

static bool has_tracer(const struct run_args *a, const char *name)
{
	for (int i = 0; i < a->m.ntracers; i++)
		if (!strcmp(a->m.tracers[i], name))
			return true;
	return false;
}

/* Every tracer name there is: families, with each variant spelt out. */
static int for_each_name(int (*fn)(const struct tracer_ops *ops, const char *name, void *arg),
			 void *arg)
{
	char name[128];

	for (int i = 0; tracer_table[i]; i++) {
		const struct tracer_ops *ops = tracer_table[i];

		if (ops->parse_arg)
			continue;	/* cmd: is nothing without its template: never a match */
		if (!ops->variants) {
			if (fn(ops, ops->name, arg))
				return 1;
			continue;
		}
		for (int v = 0; ops->variants[v]; v++) {
			snprintf(name, sizeof(name), "%s/%s", ops->name, ops->variants[v]);
			if (fn(ops, name, arg))
				return 1;
		}
	}
	return 0;
}

struct glob_arg { struct run_args *a; const char *pat; int matched; char *err; size_t errlen; };

/*
 * A pattern, "all", or a group: "@tools" (whole tools: strace, bpftrace...)
 * and "@mechanisms" (everything else, the baselines included).
 */
static int matches(const struct tracer_ops *ops, const char *pat, const char *name)
{
	/* the box's own (audit): only a pattern that names the family, 'audit:*' */
	if ((ops->flags & TT_F_OPTIN) &&
	    (*pat == '@' || !strcmp(pat, "all") || strncmp(pat, ops->name, strcspn(ops->name, ":") + 1)))
		return 0;
	if (!strcmp(pat, "@tools"))
		return (ops->flags & TT_F_TOOL) != 0;
	if (!strcmp(pat, "@mechanisms"))
		return !(ops->flags & TT_F_TOOL);
	return !strcmp(pat, "all") || !fnmatch(pat, name, 0);
}

static int add_if_match(const struct tracer_ops *ops, const char *name, void *p)
{
	struct glob_arg *g = p;

	if (!matches(ops, g->pat, name))
		return 0;
	g->matched++;
	return add_tracer(g->a, name, g->err, g->errlen) ? 1 : 0;
}

/*
 * The next item of a comma list, in place: a comma inside quotes is the
 * item's (cmd:'strace -e trace=getpid,close {cmd}'). NULL at the end.
 */
static char *next_item(char **s)
{
	char *start = *s, *p = start, quote = 0;

	if (!start)
		return NULL;
	for (; *p && (quote || *p != ','); p++)
		if ((*p == '\'' || *p == '"') && (!quote || quote == *p))
			quote = quote ? 0 : *p;
	*s = *p ? p + 1 : NULL;
	*p = '\0';
	return start;
}

int cli_add_tracers(struct run_args *a, const char *list, char *err, size_t errlen)
{
	char *copy = strdup(list), *rest = copy, *tok;
	int ret = 0;

	while (!ret && (tok = next_item(&rest))) {
		if (!*tok)
			continue;
		if (!tracer_ops_with_arg(tok) &&
		    (strpbrk(tok, "*?[") || !strcmp(tok, "all") || *tok == '@')) {
			struct glob_arg g = { a, tok, 0, err, errlen };

			if (for_each_name(add_if_match, &g))
				ret = -1;
			else if (!g.matched) {
				snprintf(err, errlen, *tok == '@' ? "unknown group '%s' (@tools, @mechanisms)" :
					 "no tracer matches '%s' (see 'tracetax list')", tok);
				ret = -1;
			}
			continue;
		}
		const char *variant;
		const struct tracer_ops *ops = tracer_ops_find(tok, &variant, err, errlen);
		char *full;

		if (!ops) {
			ret = -1;
			break;
		}
		if (ops->parse_arg && !variant) {
			snprintf(err, errlen, "tracer '%s' needs a command: %s:'strace -f {cmd}'",
				 ops->name, ops->name);
			ret = -1;
			break;
		}
		full = full_name(ops, variant);
		ret = add_tracer(a, full, err, errlen);
		free(full);
	}
	if (!*list && !ret) {
		snprintf(err, errlen, "empty tracer list");
		ret = -1;
	}
	free(copy);
	return ret;
}

/* cmd:'COMMAND' is a name of the user's: ours to copy, and to free (cli_release). */
static int add_workloads(struct run_args *a, const char *list, bool first, char *err,
			 size_t errlen)
{
	char *copy = strdup(list), *rest = copy, *tok;
	int ret = 0, before;

	if (first)
		cli_release_workloads(a);	/* the default's */
	before = a->m.nworkloads;
	while ((tok = next_item(&rest))) {
		const struct workload *w = *tok ? workload_find(tok) : NULL;
		const char *name = w && w->cmd ? tok : w ? w->name : NULL;
		int dup = 0;

		if (!*tok)
			continue;
		if (!w) {
			snprintf(err, errlen, "unknown workload '%s' (see 'tracetax list')", tok);
			ret = -1;
			break;
		}
		if (w->cmd && (ret = cmdload_check(tok, err, errlen)))
			break;
		for (int i = 0; i < a->m.nworkloads; i++)
			dup |= !strcmp(a->m.workloads[i], name);
		if (dup)
			continue;
		if (a->m.nworkloads == CLI_MAX_ITEMS) {
			snprintf(err, errlen, "too many workloads (at most %d)", CLI_MAX_ITEMS);
			ret = -1;
			break;
		}
		a->m.workloads[a->m.nworkloads++] = w->cmd ? strdup(name) : name;
	}
	free(copy);
	if (!ret && a->m.nworkloads == before) {
		snprintf(err, errlen, "empty workload list");
		ret = -1;
	}
	return ret;
}

/* --ready and --hits: an ERE, checked now rather than at the cell that uses it. */
static int check_regex(const char *opt, const char *re, char *err, size_t errlen)
{
	regex_t r;
	int rc = regcomp(&r, re, REG_EXTENDED | REG_NEWLINE);
	char msg[128];

	if (!rc) {
		regfree(&r);
		return 0;
	}
	regerror(rc, &r, msg, sizeof(msg));
	FAIL("invalid %s '%s': %s", opt, re, msg);
}

static bool has_cmd(const struct run_args *a)
{
	for (int i = 0; i < a->m.ntracers; i++)
		if (tracer_ops_with_arg(a->m.tracers[i]))
			return true;
	return false;
}

static int parse_num(const char *opt, const char *s, int64_t min, int64_t max, int64_t *out,
		     char *err, size_t errlen)
{
	if (parse_i64(s, min, max, out))
		FAIL("invalid %s '%s' (%lld to %lld)", opt, s, (long long)min, (long long)max);
	return 0;
}

static const struct option run_opts[] = {
	{ "workload", required_argument, NULL, 'w' },
	{ "tracer", required_argument, NULL, 't' },
	{ "threads", required_argument, NULL, 'T' },
	{ "reps", required_argument, NULL, 'r' },
	{ "run-ms", required_argument, NULL, 'm' },
	{ "rounds", required_argument, NULL, 'u' },
	{ "iterations", required_argument, NULL, 'n' },
	{ "seed", required_argument, NULL, 's' },
	{ "target", required_argument, NULL, 'g' },
	{ "json", required_argument, NULL, 'j' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "color", required_argument, NULL, 'c' },
	{ "colour", required_argument, NULL, 'c' },
	{ "tracer-cpu", required_argument, NULL, 'p' },
	{ "dry-run", no_argument, NULL, 'D' },
	{ "precision", required_argument, NULL, 'P' },
	{ "max-time", required_argument, NULL, 'M' },
	{ "wait", required_argument, NULL, 'W' },
	{ "no-wait", no_argument, NULL, 'N' },
	{ "store", required_argument, NULL, 'S' },
	{ "no-store", no_argument, NULL, 'O' },
	{ "kernel", required_argument, NULL, 'K' },
	{ "kernel-modules", required_argument, NULL, 'Y' },
	{ "csv", required_argument, NULL, 'V' },
	{ "markdown", required_argument, NULL, 'k' },
	{ "prometheus-textfile", required_argument, NULL, 'F' },
	{ "explain", required_argument, NULL, 'X' },
	{ "latency", no_argument, NULL, 'L' },
	{ "msg-size", required_argument, NULL, 'G' },
	{ "ready", required_argument, NULL, 'R' },
	{ "hits", required_argument, NULL, 'H' },
	{ "cmd-timeout", required_argument, NULL, 'C' },
	{ "cpus", required_argument, NULL, 'U' },
	{ "placement", required_argument, NULL, 'Z' },
	{ "audit-rules", required_argument, NULL, CLI_OPT_AUDIT_RULES },
	{ "accept-audit-residue", no_argument, NULL, CLI_OPT_ACCEPT_RESIDUE },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* Which options were given: -w, -t and -T replace the default the first time. */
struct given {
	bool tracers, workloads, threads, reps, rounds;
};

static int run_defaults(int argc, char **argv, struct run_args *a, char *err, size_t errlen)
{
	memset(a, 0, sizeof(*a));
	a->argc = argc;
	a->argv = argv;
	a->m.workloads[a->m.nworkloads++] = "getpid";
	a->m.threads[a->m.nthreads++] = 1;
	a->m.reps = PLAN_DEFAULT_REPS;
	a->m.rounds = PLAN_DEFAULT_ROUNDS;
	if (cli_wait_default(&a->wait_s, err, errlen))
		return -1;
	a->m.run_ms = PLAN_DEFAULT_RUN_MS;
	a->m.seed = 1;
	a->colour = -1;
	a->m.tracer_cpu = "same";
	a->m.msg_size = TCP_MSG_DEFAULT;
	a->m.cmd_timeout_s = CMDLOAD_TIMEOUT_S;
	return 0;
}

/* -t, -w, -T, --target, --explain: what the plan measures. 1: not one of these. */
static int what_option(int c, const char *arg, struct run_args *a, struct given *g, char *err,
		       size_t errlen)
{
	const struct tracer_ops *ops;
	const char *variant;

	switch (c) {
	case 'w': {
		bool first = !g->workloads;

		g->workloads = true;
		return add_workloads(a, arg, first, err, errlen);
	}
	case 't':
		g->tracers = true;
		return cli_add_tracers(a, arg, err, errlen);
	case 'T':
		if (!g->threads)
			a->m.nthreads = 0;
		g->threads = true;
		return cli_parse_threads(arg, a->m.threads, CLI_MAX_ITEMS, &a->m.nthreads, err, errlen);
	case 'g':
		/* a cell's target is a char[128] (plan.h, results.h): past any
		 * syscall or SYSTEM:EVENT name tracefs has */
		if (strlen(arg) > 127)
			FAIL("target '%.40s...' is too long (127 characters at most)", arg);
		if (!tt_syscall_find(arg) && !tt_tracepoint_split(arg, NULL, 0, NULL, 0))
			FAIL("unknown target syscall '%s' (see 'tracetax list'; a tracepoint "
			     "is SYSTEM:EVENT)", arg);
		a->m.target = arg;
		return 0;
	case 'X':
		if (!(ops = tracer_ops_find(arg, &variant, err, errlen)))
			return -1;
		free(a->explain);
		a->explain = full_name(ops, variant);
		return 0;
	}
	return 1;
}

/* Numbers of the plan: reps, rounds, lengths, limits. 1: not one of these. */
static int num_option(int c, const char *arg, struct run_args *a, struct given *g, char *err,
		      size_t errlen)
{
	static const struct { int c; const char *name; int64_t min, max; } nums[] = {
		{ 'r', "--reps", 1, 10000 }, { 'u', "--rounds", 1, 1000 },
		{ 'm', "--run-ms", 1, 600000 }, { 'n', "--iterations", 1, 10000000000LL },
		{ 's', "--seed", 0, INT64_MAX }, { 'M', "--max-time", 1, 86400 },
		{ 'G', "--msg-size", 1, TCP_MSG_MAX },
		{ 'C', "--cmd-timeout", 1, 86400 },
	};
	int64_t v;
	size_t i;

	for (i = 0; i < sizeof(nums) / sizeof(nums[0]) && nums[i].c != c; i++)
		;
	if (i == sizeof(nums) / sizeof(nums[0]))
		return 1;
	if (parse_num(nums[i].name, arg, nums[i].min, nums[i].max, &v, err, errlen))
		return -1;
	switch (c) {
	case 'r': a->m.reps = (int)v; g->reps = true; break;
	case 'u': a->m.rounds = (int)v; g->rounds = true; break;
	case 'm': a->m.run_ms = (int)v; break;
	case 'n': a->m.iterations = v; break;
	case 's': a->m.seed = (uint64_t)v; break;
	case 'M': a->m.max_time_s = (int)v; break;
	case 'G': a->m.msg_size = (int)v; break;
	case 'C': a->m.cmd_timeout_s = (int)v; break;
	}
	return 0;
}

/* How the plan runs and where its results go. 1: not one of these. */
static int how_option(int c, const char *arg, struct run_args *a, char *err, size_t errlen)
{
	cpu_set_t set;

	switch (c) {
	case 'q': a->quiet = true; return 0;
	case 'D': a->dry_run = true; return 0;
	case 'N': a->wait_s = LOCK_NOWAIT; return 0;
	case 'O': a->no_store = true; return 0;
	case 'L': a->m.latency = true; return 0;
	case 'c': return cli_parse_colour(arg, &a->colour, err, errlen);
	case 'W': return cli_parse_wait(arg, &a->wait_s, err, errlen);
	case 'j': return cli_path("--json", "path", arg, &a->json_path, err, errlen);
	case 'S': return cli_path("--store", "path", arg, &a->store, err, errlen);
	case 'K': return cli_path("--kernel", "path", arg, &a->kernel, err, errlen);
	case 'Y': return cli_path("--kernel-modules", "path", arg, &a->kernel_modules, err, errlen);
	case 'V': return cli_path("--csv", "path", arg, &a->csv_path, err, errlen);
	case 'k': return cli_path("--markdown", "path", arg, &a->markdown_path, err, errlen);
	case 'F': return cli_path("--prometheus-textfile", "directory", arg, &a->prom_dir, err, errlen);
	case 'p':
		if (strcmp(arg, "same") && strcmp(arg, "other") && strcmp(arg, "any"))
			FAIL("invalid --tracer-cpu '%s' (same, other, any)", arg);
		a->m.tracer_cpu = arg;
		return 0;
	case 'P':
		if (cli_parse_pct(arg, 0.1, 100, &a->m.precision))
			FAIL("invalid --precision '%s' (a percentage, 0.1 to 100)", arg);
		return 0;
	case 'R': case 'H':
		if (check_regex(c == 'R' ? "--ready" : "--hits", arg, err, errlen))
			return -1;
		*(c == 'R' ? &a->m.tool_ready : &a->m.tool_hits) = arg;
		return 0;
	case 'U':
		if (cpus_parse_list(arg, "--cpus", &set, err, errlen))
			return -1;
		a->m.cpus = arg;
		return 0;
	case 'Z':
		if (strcmp(arg, "first") && strcmp(arg, "rotate"))
			FAIL("invalid --placement '%s' (first, rotate)", arg);
		a->m.rotate = !strcmp(arg, "rotate");
		return 0;
	case CLI_OPT_AUDIT_RULES: {
		/* parsed now, as auditctl would, so that a bad file loads nothing */
		struct audit_ruleset rs;

		if (audit_rules_parse(arg, AUDIT_KEY_PREFIX "check", &rs, err, errlen))
			return -1;
		audit_rules_free(&rs);
		a->m.audit_rules = arg;
		return 0;
	}
	case CLI_OPT_ACCEPT_RESIDUE:
		a->m.accept_residue = true;
		return 0;
	}
	return 1;
}

/* What the options say together, once all are read. */
static int run_check(struct run_args *a, const struct given *g, char *err, size_t errlen)
{
	if (a->store && a->no_store)
		FAIL("--store and --no-store: give one");
	if ((a->json_path && !strcmp(a->json_path, "-")) + (a->csv_path && !strcmp(a->csv_path, "-")) +
	    (a->markdown_path && !strcmp(a->markdown_path, "-")) > 1)
		FAIL("only one of --json, --csv and --markdown can go to stdout ('-')");
	if (a->kernel_modules && !a->kernel)
		FAIL("--kernel-modules is for --kernel: give both");
	if ((a->m.tool_ready || a->m.tool_hits) && !has_cmd(a))
		FAIL("--ready and --hits are for cmd: tracers: give one with -t cmd:'...'");
	/* a round takes a pair of reps, one of each order (plan.h): asked-for rounds are all run */
	if (g->rounds && !g->reps && a->m.reps < 2 * a->m.rounds)
		a->m.reps = 2 * a->m.rounds;
	if (g->rounds && g->reps && a->m.rounds > (a->m.reps + 1) / 2)
		FAIL("--rounds %d needs --reps %d or more (a pair of reps a round)", a->m.rounds,
		     2 * a->m.rounds - 1);
	if (a->m.max_time_s && a->m.precision <= 0)
		FAIL("--max-time is the budget of --precision: give both");
	if (a->m.precision > 0 && a->m.iterations)
		FAIL("--precision calibrates each cell: it does not take --iterations");
	if (a->m.precision > 0 && !a->m.max_time_s)
		a->m.max_time_s = CLI_DEFAULT_MAX_TIME_S;
	/* tools take a second or more to start, each run: they are asked for by name */
	if (!g->tracers) {
		a->m.tracers_default = true;
		if (cli_add_tracers(a, "@mechanisms", err, errlen))
			return -1;
	}
	if (a->explain && !has_tracer(a, a->explain))
		FAIL("--explain '%s' is not a tracer of the run (add it to -t)", a->explain);
	return 0;
}

int cli_parse_run(int argc, char **argv, struct run_args *a, char *err, size_t errlen)
{
	struct given g = { 0 };
	int c, rc;

	if (run_defaults(argc, argv, a, err, errlen))
		return -1;
	optind = 0;	/* reset getopt, also for repeated calls in tests */
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":w:t:T:r:n:qh", run_opts, NULL)) != -1) {
		if (c == 'h') {
			a->help = true;
			return 0;
		}
		if (c == ':')
			FAIL("option '%s' needs a value", argv[optind - 1]);
		rc = what_option(c, optarg, a, &g, err, errlen);
		if (rc > 0)
			rc = num_option(c, optarg, a, &g, err, errlen);
		if (rc > 0)
			rc = how_option(c, optarg, a, err, errlen);
		if (rc < 0)
			return -1;
		if (rc > 0 && optopt)
			FAIL("unknown option '-%c'", optopt);
		if (rc > 0)
			FAIL("unknown option '%s'", argv[optind - 1]);
	}
	if (optind < argc)
		FAIL("unexpected argument '%s'", argv[optind]);
	return run_check(a, &g, err, errlen);
}

void cli_release_workloads(struct run_args *a)
{
	for (int i = 0; i < a->m.nworkloads; i++)
		if (!strncmp(a->m.workloads[i], "cmd:", 4))
			free((char *)a->m.workloads[i]);
	a->m.nworkloads = 0;
}

void cli_release(struct run_args *a)
{
	cli_release_workloads(a);
	for (int i = 0; i < a->m.ntracers; i++)
		free(a->m.tracers[i]);
	a->m.ntracers = 0;
	free(a->explain);
	a->explain = NULL;
}
