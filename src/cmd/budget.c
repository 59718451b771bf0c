/*
 * tracetax budget: what tracing would cost this box now. The events each
 * tracer's hooks would see, counted for --for seconds (measure/rates.c),
 * times each tracer's cost per event, from the results store or measured
 * now by the runner (session.c); with -w cmd:'COMMAND', that prediction
 * checked against COMMAND measured under each tracer. docs/budget.md.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "base/atomic_file.h"
#include "base/audit_nl.h"
#include "base/cmdline.h"
#include "base/hostid.h"
#include "base/lock.h"
#include "base/signals.h"
#include "base/util.h"
#include "cli/cli.h"
#include "cmd/cmd.h"
#include "cmd/session.h"
#include "doc/budget.h"
#include "doc/write.h"
#include "load/syscalls.h"
#include "load/workloads.h"
#include "measure/env.h"
#include "measure/rates.h"
#include "output/budget.h"
#include "store/store.h"
#include "tracers/tracer.h"

static const char usage_budget[] =
	"usage: tracetax budget -t TRACERS [options]\n"
	"   or: tracetax budget --attached [--for SECONDS] [--json FILE]\n"
	"\n"
	"What each tracer would cost this box now: the events its hooks would see,\n"
	"counted for a while, times its measured cost per event (docs/budget.md).\n"
	"\n"
	"  -t, --tracer LIST       tracers that hook syscalls (as for run; repeatable)\n"
	"      --for SECONDS       count events for this long; default 5\n"
	"      --pid PID           only this process's events\n"
	"      --cgroup PATH       only this cgroup's (v2, with its descendants)\n"
	"      --target SYSCALL    only this syscall's events (and its cost)\n"
	"      --audit-rules FILE  for -t audit:rules: the audit rule set whose loading\n"
	"                          is predicted (auditctl -R's format; nothing is loaded\n"
	"                          but to measure its costs with --measure)\n"
	"      --measure           measure each tracer's cost now, not from the store\n"
	"      --accept-audit-residue  let --measure run audit cells on a boot that never\n"
	"                          enabled audit: every process started after them\n"
	"                          takes the syscall audit slow path until reboot\n"
	"      --max-age HOURS     a stored cost this old or newer counts; default 168\n"
	"  -w, --workload LIST     cmd:'COMMAND' workloads: predict each one's slowdown\n"
	"                          under each tracer, then measure it (implies --measure;\n"
	"                          repeatable, as -t is)\n"
	"  -r, --reps N            reps of a measurement, in pairs that rotate over\n"
	"                          the CPUs (cost per CPU); default 8\n"
	"      --run-ms N          its runs' length; default 100\n"
	"      --json FILE         write the budget document; '-': to stdout\n"
	"      --store PATH        the results store to read costs from and record in\n"
	"      --no-store          record nothing (stored costs are still read)\n"
	"      --wait SECONDS      for another measurement's lock, at most this long;\n"
	"                          default $TRACETAX_WAIT, else 600\n"
	"      --no-wait           fail at once when another measurement runs\n"
	"  -q, --quiet             no progress lines\n"
	"      --attached          what the tracing already attached costs, not -t's\n"
	"                          (tracetax budget --attached --help)\n";

struct budget_args {
	/* -t and -w add up when repeated, as run's do: each passed on to run's
	 * parser (argc of each: room for every one) */
	const char **tracers, **workloads;
	int ntracers, nworkloads;
	const char *cgroup, *target, *json, *store, *audit_rules;
	const char *audit_path_wl;  /* audit:rules' walk of a call that names a path: stat; NULL: none */
	struct audit_ruleset rs;  /* --audit-rules FILE, parsed at once (a bad file: exit 2) */
	int seconds, max_age_h, reps, run_ms, wait_s;
	pid_t pid;
	bool measure, no_store, quiet, accept_residue;
};

static void parse(int argc, char **argv, struct budget_args *a)
{
	static const struct option opts[] = {
		{ "tracer", required_argument, NULL, 't' },
		{ "workload", required_argument, NULL, 'w' },
		{ "for", required_argument, NULL, 'f' },
		{ "pid", required_argument, NULL, 'p' },
		{ "cgroup", required_argument, NULL, 'g' },
		{ "target", required_argument, NULL, 'T' },
		{ "audit-rules", required_argument, NULL, 'A' },
		{ "measure", no_argument, NULL, 'm' },
		{ "accept-audit-residue", no_argument, NULL, 'E' },
		{ "max-age", required_argument, NULL, 'a' },
		{ "reps", required_argument, NULL, 'r' },
		{ "run-ms", required_argument, NULL, 'R' },
		{ "json", required_argument, NULL, 'j' },
		{ "store", required_argument, NULL, 's' },
		{ "no-store", no_argument, NULL, 'O' },
		{ "wait", required_argument, NULL, 'W' },
		{ "no-wait", no_argument, NULL, 'N' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(a, 0, sizeof(*a));
	a->tracers = calloc((size_t)argc + 1, sizeof(*a->tracers));
	a->workloads = calloc((size_t)argc + 1, sizeof(*a->workloads));
	if (!a->tracers || !a->workloads)
		die("out of memory");
	a->seconds = 5;
	a->max_age_h = 168;
	a->reps = 8;
	a->run_ms = 100;
	a->wait_s = cmd_wait_default();
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":t:w:r:qh", opts, NULL)) != -1) {
		switch (c) {
		case 't': a->tracers[a->ntracers++] = optarg; break;
		case 'w': a->workloads[a->nworkloads++] = optarg; break;
		case 'f': a->seconds = cmd_num_arg(optarg, "--for", 1, 3600); break;
		case 'p': a->pid = cmd_num_arg(optarg, "--pid", 1, INT32_MAX); break;
		case 'g': a->cgroup = optarg; break;
		case 'T': a->target = optarg; break;
		case 'A': {
			char err[512];

			if (a->audit_rules)
				audit_rules_free(&a->rs);
			if (audit_rules_parse(optarg, AUDIT_KEY_PREFIX "budget", &a->rs, err, sizeof(err)))
				die_usage("%s", err);
			a->audit_rules = optarg;
			break;
		}
		case 'm': a->measure = true; break;
		case 'E': a->accept_residue = true; break;
		case 'a': a->max_age_h = cmd_num_arg(optarg, "--max-age", 0, 24 * 3650); break;
		case 'r': a->reps = cmd_num_arg(optarg, "--reps", 2, 1000); break;
		case 'R': a->run_ms = cmd_num_arg(optarg, "--run-ms", 10, 60000); break;
		case 'j': a->json = optarg; break;
		case 's': a->store = optarg; break;
		case 'O': a->no_store = true; break;
		case 'W': a->wait_s = cmd_num_arg(optarg, "--wait", 0, LOCK_WAIT_MAX_S); break;
		case 'N': a->wait_s = LOCK_NOWAIT; break;
		case 'q': a->quiet = true; break;
		case 'h': fputs(usage_budget, stdout); exit(0);
		case ':': cmd_die_usage("option needs a value", "tracetax budget --help");
		default: cmd_die_usage("unknown option", "tracetax budget --help");
		}
	}
	if (optind < argc)
		die_usage("unexpected argument '%s'", argv[optind]);
	if (!a->ntracers)
		die_usage("which tracers? -t TRACERS (tracetax budget --help)");
	if (a->pid && a->cgroup)
		die_usage("--pid and --cgroup exclude each other");
	if (a->pid && kill(a->pid, 0) && errno == ESRCH)
		die_usage("no process '%d' (--pid)", (int)a->pid);
	if (a->cgroup) {
		struct stat st;

		if (stat(a->cgroup, &st) || !S_ISDIR(st.st_mode))
			die_usage("no cgroup '%s' (--cgroup)", a->cgroup);
	}
	if (a->target && !tt_syscall_find(a->target))
		die_usage("unknown syscall '%s' (--target)", a->target);
	if (a->nworkloads)
		a->measure = true;
}

/* A --target hook's collateral: what a hook on close costs getpid's loop */
#define COLL_WORKLOAD "getpid"
#define COLL_TARGET "close"

/* audit:rules' prediction, and the tracer whose cost is a record's */
#define AUDIT_TRACER "audit:rules"
#define AUDIT_RECORD_TRACER "audit:rule/async"

/* Whether -t named @tracer itself (the items of each comma list). */
static bool asked(const struct budget_args *a, const char *tracer)
{
	size_t n = strlen(tracer);

	for (int i = 0; i < a->ntracers; i++)
		for (const char *p = a->tracers[i]; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
			if (!strncmp(p, tracer, n) && (p[n] == ',' || !p[n]))
				return true;
	return false;
}

/*
 * The run's options as `tracetax run` takes them: its parser checks them.
 * @lead: a workload of the load before the user's -w (NULL: none); with
 * neither, getpid.
 */
static void run_args_for(const struct budget_args *a, const char *lead, struct run_args *r)
{
	char reps[16], ms[16], err[512];
	const char **argv = calloc((size_t)(28 + 2 * (a->ntracers + a->nworkloads)), sizeof(*argv));
	int n = 0;

	if (!argv)
		die("out of memory");
	snprintf(reps, sizeof(reps), "%d", a->reps);
	snprintf(ms, sizeof(ms), "%d", a->run_ms);
	argv[n++] = "run";
	for (int i = 0; i < a->ntracers; i++) {
		argv[n++] = "-t";
		argv[n++] = a->tracers[i];
	}
	/* audit:rules' cost of a record: audit:rule's (Debian's flush), measured beside it */
	if (a->audit_rules && lead && !asked(a, AUDIT_RECORD_TRACER)) {
		argv[n++] = "-t";
		argv[n++] = AUDIT_RECORD_TRACER;
	}
	if (a->audit_rules) {
		argv[n++] = "--audit-rules";
		argv[n++] = a->audit_rules;
	}
	if (lead && a->audit_path_wl && strcmp(lead, a->audit_path_wl)) {
		argv[n++] = "-w";
		argv[n++] = a->audit_path_wl;
	}
	if (lead || !a->nworkloads) {
		argv[n++] = "-w";
		argv[n++] = lead ? lead : "getpid";
	}
	for (int i = 0; i < a->nworkloads; i++) {
		argv[n++] = "-w";
		argv[n++] = a->workloads[i];
	}
	argv[n++] = "-r";
	argv[n++] = reps;
	argv[n++] = "--run-ms";
	argv[n++] = ms;
	/* the cost on each CPU, for budget to weight by where the events happen */
	argv[n++] = "--placement";
	argv[n++] = "rotate";
	if (a->target) {
		argv[n++] = "--target";
		argv[n++] = a->target;
	}
	if (a->store) {
		argv[n++] = "--store";
		argv[n++] = a->store;
	}
	if (a->no_store)
		argv[n++] = "--no-store";
	if (a->accept_residue)
		argv[n++] = "--accept-audit-residue";
	if (a->quiet)
		argv[n++] = "-q";
	argv[n] = NULL;
	if (cli_parse_run(n, (char **)argv, r, err, sizeof(err)))
		cmd_die_usage(err, "tracetax budget --help");
	free(argv);
	r->no_table = true;
}

static const struct budget_audit *audit_of(const struct budget *b)
{
	for (int i = 0; i < b->ntracers; i++)
		if (b->tracers[i].audit)
			return b->tracers[i].audit;
	return NULL;
}

/*
 * The load's workload that matches the dominant events: the loop of the
 * most frequent syscall when the load has one, else getpid (the hook's
 * fixed cost on the cheapest syscall).
 */
static const char *cost_workload(const struct budget_args *a, const struct budget *b)
{
	const struct budget_rates *r = &b->rates;
	const struct budget_audit *au = audit_of(b);
	const char *top = a->target ? a->target : r->nnrs ? r->nrs[0].name : "getpid";
	const struct workload *pick = NULL;

	for (const struct workload *w = workloads; w->name; w++)
		if (w->syscall && w->lib == WL_NONE && !strcmp(w->syscall, top))
			pick = w;
	/*
	 * audit:rules' walk is measured on a syscall its rules do not name:
	 * the top one, else getpid, else the first of the load's loops that is
	 * not named (a set naming every syscall: getpid, its cost then a record's)
	 */
	if (au && !au->all_syscalls && (!pick || budget_audit_names(au, pick))) {
		pick = workload_find("getpid");
		for (const struct workload *w = workloads; w->name && budget_audit_names(au, pick); w++)
			if (w->syscall && w->lib == WL_NONE && !w->cmd)
				pick = w;
	}
	return pick ? pick->name : "getpid";
}

/* A -w cmd: command's calls by login uid and syscall, counted once (audit:rules' checks). */
struct cmd_mix {
	const char *workload;
	struct budget_rates r;
	char reason[512];         /* why not counted */
};

struct hook_arg {
	struct budget *b;
	const char *workload;
	const char *path_wl;      /* audit:rules' walk_path workload; NULL: none */
	struct cmd_mix *mix;
	int nmix;
};

/* A measured cell into an audit cost (the walk or a record). */
static void audit_cost_of(struct budget_audit_cost *ac, const struct cell *c, const char *au_digest)
{
	if (c->status != CELL_OK) {
		snprintf(ac->reason, sizeof(ac->reason), "measured now: %s", c->reason);
		return;
	}
	snprintf(ac->source, sizeof(ac->source), "measured");
	snprintf(ac->tracer, sizeof(ac->tracer), "%s", c->tracer);
	snprintf(ac->workload, sizeof(ac->workload), "%s", c->workload);
	ac->run_id = 0;
	ac->reps = c->nreps;
	ac->ns = c->overhead.mean;
	ac->lo = c->overhead.ci95[0];
	ac->hi = c->overhead.ci95[1];
	ac->consumer_ns = c->consumer_ns_per_event;
	ac->rules = c->audit_rules;
	ac->rules_match = c->audit_rules.file[0] && au_digest && !strcmp(c->audit_rules.digest, au_digest);
}

/* audit:rules' costs from the cells on the cost's workload, its checks from the cmd: cells. */
static bool audit_hook(struct hook_arg *h, const struct cell *c)
{
	struct budget_tracer *t = NULL;
	const struct workload *w = workload_find(c->workload);

	for (int i = 0; i < h->b->ntracers; i++)
		if (h->b->tracers[i].audit)
			t = &h->b->tracers[i];
	if (!t || c->threads != 1)
		return false;
	if (h->path_wl && !strcmp(c->workload, h->path_wl)) {
		if (!strcmp(c->tracer, AUDIT_TRACER)) {
			audit_cost_of(&t->audit->walk_path, c, t->audit->digest);
			t->audit->walk_path.consumer_ns = 0;
		} else if (!strcmp(c->tracer, AUDIT_RECORD_TRACER))
			audit_cost_of(&t->audit->record_path, c, NULL);
		if (strcmp(c->workload, h->workload))
			return !strcmp(c->tracer, AUDIT_TRACER) || !strcmp(c->tracer, AUDIT_RECORD_TRACER);
	}
	if (!strcmp(c->workload, h->workload)) {
		if (!strcmp(c->tracer, AUDIT_TRACER)) {
			audit_cost_of(&t->audit->walk, c, t->audit->digest);
			t->audit->walk.consumer_ns = 0;	/* the walk makes no record */
		}
		else if (!strcmp(c->tracer, AUDIT_RECORD_TRACER))
			audit_cost_of(&t->audit->record, c, t->audit->digest);
		return !strcmp(c->tracer, AUDIT_TRACER);
	}
	if (strcmp(c->tracer, AUDIT_TRACER) || !w || !w->cmd)
		return false;
	/* the checks come after both costs are in: budget_audit_check_fill in the second pass */
	return true;
}

static const struct cmd_mix *mix_of(const struct hook_arg *h, const char *workload)
{
	for (int i = 0; i < h->nmix; i++)
		if (!strcmp(h->mix[i].workload, workload))
			return &h->mix[i];
	return NULL;
}

static struct budget_tracer *find_tracer(struct budget *b, const char *name)
{
	for (int i = 0; i < b->ntracers; i++)
		if (!strcmp(b->tracers[i].name, name))
			return &b->tracers[i];
	return NULL;
}

static void measured_hook(struct results *r, void *arg)
{
	struct hook_arg *h = arg;

	for (int i = 0; i < r->ncells; i++) {
		const struct cell *c = &r->cells[i];
		struct budget_tracer *t = find_tracer(h->b, c->tracer);

		if (audit_hook(h, c) || !t || strcmp(c->workload, h->workload) || c->threads != 1)
			continue;
		if (c->status != CELL_OK) {
			snprintf(t->cost.reason, sizeof(t->cost.reason), "measured now: %s",
				 c->reason);
			continue;
		}
		snprintf(t->cost.source, sizeof(t->cost.source), "measured");
		snprintf(t->cost.workload, sizeof(t->cost.workload), "%s", c->workload);
		t->cost.run_id = 0;
		t->cost.reps = c->nreps;
		t->cost.events = c->events;
		t->cost.ns = c->overhead.mean;
		t->cost.lo = c->overhead.ci95[0];
		t->cost.hi = c->overhead.ci95[1];
		t->cost.consumer_ns = c->consumer_ns_per_event;
		budget_cost_per_cpu(&t->cost, c);
	}
	for (int i = 0; i < r->ncells; i++) {
		const struct cell *c = &r->cells[i];
		struct budget_tracer *t = find_tracer(h->b, c->tracer);
		struct budget_check *k;

		/* every cmd: cell, skipped or failed ones too: the check says why */
		if (!t || !workload_find(c->workload) || !workload_find(c->workload)->cmd)
			continue;
		k = budget_add_check(h->b);
		snprintf(k->tracer, sizeof(k->tracer), "%s", c->tracer);
		snprintf(k->command, sizeof(k->command), "%s", c->workload);
		if (t->audit) {
			const struct cmd_mix *m = mix_of(h, c->workload);

			budget_audit_check_fill(k, t->audit, m ? m->r.auid_nr : NULL,
						m ? m->r.nauid_nr : 0, c);
			if (m && m->reason[0] && !strcmp(k->status, "ok")) {
				snprintf(k->status, sizeof(k->status), "failed");
				snprintf(k->reason, sizeof(k->reason), "%s", m->reason);
			}
		} else
			budget_check_fill(k, &t->cost, c);
	}
}

/* A walk from the store into @ac, unless what @ac has already is as good (this set's). */
static void walk_stored(struct store *s, const struct store_cost_query *q,
			struct budget_audit_cost *ac, int max_age_h)
{
	struct budget_audit_cost got = { 0 };

	if (!cmd_stored_audit_cost(s, q, &got, max_age_h, true)) {
		got.consumer_ns = 0;	/* the walk makes no record, as when measured now */
		if (!ac->source[0] || got.rules_match)
			*ac = got;
	} else if (!ac->source[0])
		*ac = got;
}

/*
 * audit:rules' costs without --measure: a record's, audit:rule's, from the
 * store as any tracer's; the walk's, audit:rules' on @q's workload (one
 * its rules do not name) and on stat (a call that looks a path up, when
 * they do not name it), of these rules where the store has them (their
 * digest), else of another set, which the cost then says.
 */
static void stored_audit(const struct budget_args *a, struct store *s, struct budget_audit *au,
			 struct store_cost_query *q)
{
	struct store_cost_query w = *q;

	w.tracer = AUDIT_TRACER;
	w.rules_digest = au->digest;
	/* the walk of a call no rule names: on a workload whose syscall they name, a record too */
	if ((!au->walk.source[0] || !au->walk.rules_match) &&
	    !budget_audit_names(au, workload_find(q->workload)))
		walk_stored(s, &w, &au->walk, a->max_age_h);
	w.workload = "stat";
	if (!budget_audit_names(au, workload_find("stat")) &&
	    (!au->walk_path.source[0] || !au->walk_path.rules_match))
		walk_stored(s, &w, &au->walk_path, a->max_age_h);
	q->tracer = AUDIT_RECORD_TRACER;
	if (!au->record.source[0])
		cmd_stored_audit_cost(s, q, &au->record, a->max_age_h, true);
	/* a record of a call that looks a path up: audit:rule's on stat (CWD, PATH more) */
	w = *q;
	w.workload = "stat";
	if (!au->record_path.source[0])
		cmd_stored_audit_cost(s, &w, &au->record_path, a->max_age_h, true);
}

/*
 * Each tracer's cost from the store: a cell that stands for this host's
 * cost (store/stand.h: this hostname, machine and kernel, not a VM guest's,
 * not a --target collateral, ok and undisturbed), of this version, recent
 * enough.
 */
static void stored_costs(const struct budget_args *a, struct budget *b, const char *workload)
{
	char path[4096], err[512], since[32], host[32];
	struct store *s = NULL;

	utc_iso(time(NULL) - (time_t)a->max_age_h * 3600, since, sizeof(since));
	if (!store_path(a->store, path, sizeof(path), err, sizeof(err)))
		s = store_open(path, false, err, sizeof(err));
	host_id(host, sizeof(host));
	for (int i = 0; i < b->ntracers; i++) {
		struct budget_tracer *bt = &b->tracers[i];
		struct store_cost_query q = {
			.tracer = bt->name, .workload = workload, .hostname = b->env.hostname,
			.kernel = b->env.kernel, .version = b->env.tracetax_version, .host_id = host,
			.since = since,
		};
		int rc;

		if (bt->cost.source[0])
			continue;
		if (bt->audit) {
			stored_audit(a, s, bt->audit, &q);
			continue;
		}
		rc = s ? cmd_stored_cost(s, &q, &bt->cost, NULL, err, sizeof(err)) : -1;
		if (rc > 0)
			snprintf(bt->cost.reason, sizeof(bt->cost.reason), "none stored for %s on %s,"
				 " this host, kernel and version, in the last %d h: add --measure",
				 bt->name, workload, a->max_age_h);
		else if (rc < 0)
			snprintf(bt->cost.reason, sizeof(bt->cost.reason), "%s: add --measure", err);
		if (!a->target || bt->coll.source[0])
			continue;
		/* the collateral: a hook on close, on getpid's loop */
		q.workload = COLL_WORKLOAD;
		q.target = COLL_TARGET;
		rc = s ? cmd_stored_cost(s, &q, &bt->coll, NULL, err, sizeof(err)) : -1;
		if (rc)
			snprintf(bt->coll.reason, sizeof(bt->coll.reason), "%s: add --measure", rc > 0 ?
				 "no collateral cost stored (tracetax run -w getpid --target close)" : err);
	}
	store_close(s);
}

/* The collateral run's cells (--target close, on getpid) into each tracer's coll */
static void coll_hook(struct results *r, void *arg)
{
	struct budget *b = arg;

	for (int i = 0; i < r->ncells; i++) {
		const struct cell *c = &r->cells[i];
		struct budget_tracer *t = find_tracer(b, c->tracer);

		if (!t || c->threads != 1 || strcmp(c->workload, COLL_WORKLOAD))
			continue;
		if (c->status != CELL_OK) {
			snprintf(t->coll.reason, sizeof(t->coll.reason), "measured now: %s", c->reason);
			continue;
		}
		snprintf(t->coll.source, sizeof(t->coll.source), "measured");
		snprintf(t->coll.workload, sizeof(t->coll.workload), "%s", c->workload);
		t->coll.reps = c->nreps;
		t->coll.events = c->events;
		t->coll.ns = c->overhead.mean;
		t->coll.lo = c->overhead.ci95[0];
		t->coll.hi = c->overhead.ci95[1];
	}
}

/*
 * With --target: each tracer's collateral measured now, its hook on close
 * and the load's loop on getpid (what a hook costs the calls it does not
 * see); not for audit:rules, whose every call is priced already. 0,
 * 128+signal, or the run's exit code.
 */
static int measure_collateral(const struct budget_args *a, struct budget *b)
{
	struct budget_args c = *a;
	struct run_args ra;
	int ret;

	if (!a->target || a->audit_rules)
		return 0;
	c.target = COLL_TARGET;
	c.nworkloads = 0;
	run_args_for(&c, COLL_WORKLOAD, &ra);
	ret = signals_interrupted() ? 128 + signals_interrupted() : run_measure(&ra, coll_hook, b);
	cli_release(&ra);
	return ret;
}

/* audit:rules' prediction, from the rules of --audit-rules (a usage error without). */
static struct budget_audit *audit_budget(struct budget_args *a)
{
	struct budget_audit *au;

	if (!a->audit_rules)
		die_usage("which rules? -t " AUDIT_TRACER " needs --audit-rules FILE");
	au = budget_audit_new(a->rs.sum, a->rs.n);
	snprintf(au->file, sizeof(au->file), "%s", a->audit_rules);
	snprintf(au->digest, sizeof(au->digest), "%s", a->rs.digest);
	au->dropped = a->rs.dropped;
	return au;
}

/*
 * Each -w cmd: command's calls, counted once by login uid and syscall for
 * audit:rules' checks (its process, not those it starts). A command that
 * cannot be counted makes its checks fail with the reason.
 */
static struct cmd_mix *count_mixes(const struct budget_args *a, int *n)
{
	struct cmd_mix *m = calloc((size_t)a->nworkloads + 1, sizeof(*m));

	if (!m)
		die("out of memory");
	*n = 0;
	for (int i = 0; i < a->nworkloads && !signals_interrupted(); i++) {
		struct cmd_mix *x = &m[(*n)++];
		struct cmdline line;
		char err[512];
		struct rates_opts o = { .by_auid = true };

		x->workload = a->workloads[i];
		if (strncmp(x->workload, "cmd:", 4) ||
		    cmdline_split(x->workload + 4, &line, err, sizeof(err)) || !line.n) {
			snprintf(x->reason, sizeof(x->reason), "cannot split '%s'", x->workload);
			continue;
		}
		o.argv = line.w;
		if (!a->quiet)
			fprintf(stderr, "counting the calls of %s...\n", x->workload);
		if (rates_count(&o, &x->r, err, sizeof(err)))
			snprintf(x->reason, sizeof(x->reason), "its calls by syscall not counted: %s", err);
	}
	return m;
}

/* The budget document into the store, beside the runs (report shows it). */
static int record_budget(const struct budget_args *a, const struct budget *b)
{
	char path[4096], err[512], *doc;
	struct store *s;
	int64_t id;
	int ret;

	if (store_path(a->store, path, sizeof(path), err, sizeof(err)))
		return error("cannot record the budget: %s", err);
	s = store_open(path, true, err, sizeof(err));
	if (!s)
		return error("cannot record the budget: %s", err);
	doc = doc_budget_json(b);
	ret = store_record_budget(s, doc, &id, err, sizeof(err));
	if (ret)
		error("%s", err);
	else if (!a->quiet)
		fprintf(stderr, "budget recorded as %lld in '%s' (tracetax report shows it)\n",
			(long long)id, store_name(s));	/* a URI's password redacted */
	free(doc);
	store_close(s);
	return ret;
}

int cmd_budget(int argc, char **argv)
{
	struct budget_args a;
	struct budget *b = calloc(1, sizeof(*b));
	struct rates_opts ro;
	struct run_args ra;
	char err[512];
	const char *workload;
	int ret = 0;

	if (!b)
		die("out of memory");
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--attached")) {
			free(b);
			return cmd_budget_attached(argc, argv);
		}
	parse(argc, argv, &a);
	/* the tracers, checked and expanded as run does */
	run_args_for(&a, NULL, &ra);
	for (int i = 0; i < ra.m.nworkloads; i++)
		if (a.nworkloads && !workload_find(ra.m.workloads[i])->cmd)
			die_usage("budget checks cmd:'COMMAND' workloads only, not '%s' (-w)",
				  ra.m.workloads[i]);
	for (int i = 0; i < ra.m.ntracers; i++) {
		struct budget_tracer *t = budget_add_tracer(b);
		const char *variant;
		const struct tracer_ops *ops = tracer_ops_find(ra.m.tracers[i], &variant, err,
							       sizeof(err));

		snprintf(t->name, sizeof(t->name), "%s", ra.m.tracers[i]);
		if (ops && !(ops->hooks & TT_HOOK_SYSCALL))
			die_usage("tracer '%s' hooks no syscall: budget counts syscalls only", t->name);
		t->cost.tool = ops && (ops->flags & TT_F_TOOL);
		if (!strcmp(t->name, AUDIT_TRACER))
			t->audit = audit_budget(&a);
	}
	/* --measure would run audit cells: before the count, not after it */
	if (a.measure)
		cmd_refuse_residue(ra.m.tracers, ra.m.ntracers, a.accept_residue);
	cli_release(&ra);
	if (a.audit_rules && !audit_of(b))
		die_usage("--audit-rules '%s' is for -t " AUDIT_TRACER, a.audit_rules);
	if (a.json && atomic_file_check(a.json, err, sizeof(err)))
		die_usage("%s", err);
	/* before the lock: what budget needs, said in one line (not a usage error) */
	if (rates_allowed(err, sizeof(err))) {
		error("%s", err);
		ret = EXIT_FAILED;
		goto out;
	}
	/* the lock as run takes it: --no-wait before the signal thread, waiting after */
	if (a.wait_s == LOCK_NOWAIT)
		cmd_take_lock(LOCK_NOWAIT);
	cmd_signals_once();
	if (a.wait_s != LOCK_NOWAIT)
		cmd_take_lock(a.wait_s);
	environment_collect(&b->env);
	b->max_age_h = a.max_age_h;
	ro = (struct rates_opts){ .seconds = a.seconds, .pid = a.pid, .cgroup = a.cgroup,
				  .target = a.target, .by_auid = audit_of(b) != NULL };
	if (!a.quiet)
		fprintf(stderr, "counting events for %d s...\n", a.seconds);
	ret = rates_count(&ro, &b->rates, err, sizeof(err));
	if (ret >= 128) {
		error("interrupted by signal %d: the counter detached, no results", ret - 128);
		goto out;
	}
	if (ret) {
		error("%s", err);
		ret = EXIT_FAILED;
		goto out;
	}
	workload = cost_workload(&a, b);
	if (!a.measure) {
		stored_costs(&a, b, workload);
		if (strcmp(workload, "getpid"))
			stored_costs(&a, b, "getpid");
	} else {
		struct hook_arg h = { b, workload, NULL, NULL, 0 };
		const struct budget_audit *au = audit_of(b);

		/* a call that names a path walks at its own cost: stat's, unless the rules name it */
		if (au && !budget_audit_names(au, workload_find("stat")))
			h.path_wl = a.audit_path_wl = "stat";

		if (audit_of(b))
			h.mix = count_mixes(&a, &h.nmix);
		run_args_for(&a, workload, &ra);
		/* 3, a disturbed run, stays 3 whatever fails after it (exit_worst) */
		ret = signals_interrupted() ? 128 + signals_interrupted() :
			run_measure(&ra, measured_hook, &h);
		cli_release(&ra);
		for (int i = 0; i < h.nmix; i++)
			free(h.mix[i].r.per_cpu), free(h.mix[i].r.auid_nr);
		free(h.mix);
		if (ret < 128) {
			int rc = measure_collateral(&a, b);

			ret = rc >= 128 ? rc : exit_worst(ret, rc);
		}
		if (ret >= 128)
			goto out;
	}
	budget_finish(b);
	for (int i = 0; i < b->ntracers; i++)
		output_budget_verdict(b, &b->tracers[i], b->tracers[i].verdict,
				      sizeof(b->tracers[i].verdict));
	if (!a.json || strcmp(a.json, "-"))
		output_budget(b, stdout);
	if (a.json && doc_budget_write(b, a.json))
		ret = exit_worst(ret, EXIT_FAILED);
	if (!a.no_store && record_budget(&a, b))
		ret = exit_worst(ret, EXIT_FAILED);
out:
	budget_release(b);
	free(b);
	free(a.tracers);
	free(a.workloads);
	if (a.audit_rules)
		audit_rules_free(&a.rs);
	signals_reraise();
	return ret;
}
