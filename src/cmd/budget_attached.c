/*
 * tracetax budget --attached: what the tracing already attached to this box
 * takes now, and whose it is. Every tracing consumer is found read-only
 * (base/attached.c), its events counted over --for seconds
 * (measure/attached.c), then listed per consumer and per owner.
 * docs/budget.md, "What is attached".
 *
 * -t with --attached is a usage error: -t asks what a tracer would cost if
 * attached, --attached what is attached; a combined view would add a
 * prediction to a measurement of something else.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/atomic_file.h"
#include "base/hostid.h"
#include "base/lock.h"
#include "base/signals.h"
#include "base/util.h"
#include "cli/cli.h"
#include "cmd/budget_args.h"
#include "cmd/cmd.h"
#include "cmd/session.h"
#include "doc/attached.h"
#include "doc/read.h"
#include "load/syscalls.h"
#include "load/workloads.h"
#include "measure/attached.h"
#include "measure/env.h"
#include "output/attached.h"
#include "results/budget.h"
#include "store/store.h"

static const char usage_attached[] =
	"usage: tracetax budget --attached [options]\n"
	"\n"
	"What the tracing already attached to this box takes now: every BPF\n"
	"program, ftrace buffer, perf event, ptrace or seccomp supervisor and\n"
	"audit rule set, its events over a window, per consumer and per owner,\n"
	"with each owner's own CPU beside it (docs/budget.md, \"What is\n"
	"attached\"). Read only; needs root.\n"
	"\n"
	"      --attached          this view (-t is then a usage error)\n"
	"      --for SECONDS       count events for this long; default 5\n"
	"      --measure           measure each mechanism's cost now, not from the store\n"
	"      --max-age HOURS     a stored cost this old or newer counts; default 168\n"
	"  -r, --reps N            reps of a measurement; default 8\n"
	"      --run-ms N          its runs' length; default 100\n"
	"      --json FILE         write the attached document; '-': to stdout\n"
	"      --prometheus-textfile DIR  write DIR/tracetax-attached.prom (node_exporter)\n"
	"      --store PATH        the results store to read costs from and record in\n"
	"      --no-store          record nothing (stored costs are still read)\n"
	"      --wait SECONDS      for another measurement's lock, at most this long;\n"
	"                          default $TRACETAX_WAIT, else 600\n"
	"      --no-wait           fail at once when another measurement runs\n"
	"  -q, --quiet             no progress lines\n";

struct attached_args {
	BUDGET_COMMON;
	const char *prom_dir;
};

/*
 * The workload of a mechanism's cost when its consumers hook no syscall
 * whose loop the load has: the cheapest syscall, its hook's fixed cost.
 * Its collateral is measured there too, with the hook on close: what a
 * hook on another syscall costs getpid (run -w getpid -t TRACER --target
 * close, docs/method.md "collateral").
 */
#define COST_WORKLOAD "getpid"

static void parse(int argc, char **argv, struct attached_args *a)
{
	static const struct option opts[] = {
		BUDGET_COMMON_OPTIONS,
		{ "attached", no_argument, NULL, 'A' },
		{ "prometheus-textfile", required_argument, NULL, 'P' },
		{ "tracer", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(a, 0, sizeof(*a));
	budget_common_init(&a->common);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":t:r:qh", opts, NULL)) != -1) {
		if (budget_common_opt(c, optarg, &a->common))
			continue;
		switch (c) {
		case 'A': break;
		case 'P': a->prom_dir = optarg; break;
		case 't':
			die_usage("--attached measures what is attached: -t '%s' asks what a tracer "
				  "would cost (run them apart)", optarg);
		case 'h': fputs(usage_attached, stdout); exit(0);
		case ':': cmd_die_usage("option needs a value", "tracetax budget --help");
		default: cmd_die_usage("option not taken with --attached", "tracetax budget --help");
		}
	}
	if (optind < argc)
		die_usage("unexpected argument '%s'", argv[optind]);
}

/* The load's loop of syscall @s (syscall(2) straight from the loop); NULL: none */
static const char *loop_of(const struct tt_syscall *s)
{
	for (const struct workload *w = workloads; s && w->name; w++)
		if (w->syscall && !w->cmd && w->lib == WL_NONE && !strcmp(w->syscall, s->name))
			return w->name;
	return NULL;
}

/* A syscall by its name or its tracepoint's ("getuid", "newstat") */
static const struct tt_syscall *syscall_named(const char *name)
{
	char ev[96];

	snprintf(ev, sizeof(ev), "sys_enter_%s", name);
	for (const struct tt_syscall *s = tt_syscalls; s->name; s++)
		if (!strcmp(s->name, name) || !strcmp(s->event, ev))
			return s;
	return NULL;
}

/*
 * The workloads whose cell may stand for @r's events, best first (at most
 * @max): the loop of the syscall it hooks; for a consumer of every syscall
 * (raw_syscalls, perf trace, ptrace, seccomp), the loops of the box's most
 * frequent syscalls, in order; getpid last, the hook's fixed cost on the
 * cheapest syscall. One cell is taken, with its own interval (never a mean
 * over workloads: an interval bounded by the widest of them says nothing).
 */
static int cost_workloads(const struct att_row *r, const struct budget_rates *rt,
			  const char **out, int max)
{
	char name[64];
	int n = 0;

	if (attached_syscall_of(r, name, sizeof(name))) {
		if (name[0] && loop_of(syscall_named(name)))
			out[n++] = loop_of(syscall_named(name));
		for (int i = 0; !name[0] && i < rt->nnrs && n < max - 1; i++) {
			const char *wl = loop_of(tt_syscall_by_nr(rt->nrs[i].nr));

			if (wl && strcmp(wl, COST_WORKLOAD))
				out[n++] = wl;
		}
	}
	out[n++] = COST_WORKLOAD;
	return n;
}

static void row_cell_cost(struct att_row *r, const char *source, int64_t run_id, double ns,
			  double lo, double hi, double prog_ns, const char *wl, bool weighted)
{
	struct att_cost *c = &r->cost;

	snprintf(c->source, sizeof(c->source), "%s", source);
	c->run_id = run_id;
	c->cell_ns = ns;
	c->cell_lo = lo;
	c->cell_hi = hi;
	c->cell_prog_ns = prog_ns;
	snprintf(c->workloads, sizeof(c->workloads), "%s", wl);
	c->nworkloads = 1;
	c->per_cpu_weighted = weighted;
	c->why[0] = '\0';
}

static void row_coll_cost(struct att_row *r, const char *tracer, const char *source,
			  int64_t run_id, double ns, double lo, double hi)
{
	struct att_collateral *k = &r->coll;

	snprintf(k->tracer, sizeof(k->tracer), "%s", tracer);
	snprintf(k->source, sizeof(k->source), "%s", source);
	snprintf(k->workload, sizeof(k->workload), ATT_COLL_WORKLOAD);
	snprintf(k->target, sizeof(k->target), ATT_COLL_TARGET);
	k->run_id = run_id;
	k->cell_ns = ns;
	k->cell_lo = lo;
	k->cell_hi = hi;
	k->why[0] = '\0';
}

static double prog_ns_of(const struct prog_time *p)
{
	return !p->bpf ? 0 : p->measured ? p->ns_per_run : NAN;
}

struct hook_arg {
	struct attached *at;
	bool collateral;          /* the --target run: the cells are collaterals */
};

static void measured_hook(struct results *r, void *arg)
{
	struct hook_arg *h = arg;
	struct attached *at = h->at;

	for (int i = 0; i < r->ncells; i++) {
		const struct cell *c = &r->cells[i];

		if (c->status != CELL_OK || c->threads != 1)
			continue;
		for (int k = 0; k < at->nrows; k++) {
			struct att_row *w = &at->rows[k];
			const char *wl[BUDGET_TOP_NRS + 2];

			if (strcmp(w->cost.tracer, c->tracer))
				continue;
			if (h->collateral) {
				if (attached_box_slow_path(w) && !w->coll.source[0])
					row_coll_cost(w, c->tracer, "measured", 0, c->overhead.mean,
						      c->overhead.ci95[0], c->overhead.ci95[1]);
				continue;
			}
			cost_workloads(w, &at->rates, wl, BUDGET_TOP_NRS + 2);
			if (!w->cost.source[0] && !strcmp(wl[0], c->workload))
				row_cell_cost(w, "measured", 0, c->overhead.mean, c->overhead.ci95[0],
					      c->overhead.ci95[1], prog_ns_of(&c->prog), c->workload,
					      false);
		}
	}
}

/* @list ","-joined, @s added unless there */
static void list_add(char *list, size_t len, const char *s)
{
	size_t n = strlen(s);

	for (const char *p = list; *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : p + strlen(p))
		if (!strncmp(p, s, n) && (p[n] == ',' || !p[n]))
			return;
	snprintf(list + strlen(list), len - strlen(list), "%s%s", *list ? "," : "", s);
}

/*
 * The distinct tracers of the rows that have events to cost, and the
 * first workload of each (@coll: those of the rows with a collateral),
 * ","-joined; whether there is any
 */
static bool tracers_wanted(const struct attached *at, bool coll, char *buf, size_t len,
			   char *wls, size_t wlen)
{
	buf[0] = wls[0] = '\0';
	for (int i = 0; i < at->nrows; i++) {
		const struct att_row *r = &at->rows[i];
		const char *t = r->cost.tracer, *wl[BUDGET_TOP_NRS + 2];

		/* audit:rules needs the rule file: the live set's costs come from the store */
		if (!t[0] || !isfinite(r->rate) || !strcmp(t, "audit:rules") ||
		    (coll && !attached_box_slow_path(r)))
			continue;
		cost_workloads(r, &at->rates, wl, BUDGET_TOP_NRS + 2);
		list_add(wls, wlen, coll ? ATT_COLL_WORKLOAD : wl[0]);
		list_add(buf, len, t);
	}
	return buf[0] != '\0';
}

static int measure_run(const struct attached_args *a, struct attached *at, bool coll)
{
	char tracers[1024], wls[256], reps[16], ms[16], err[512];
	const char *argv[20];
	struct hook_arg h = { at, coll };
	struct run_args ra;
	int n = 0, ret;

	if (!tracers_wanted(at, coll, tracers, sizeof(tracers), wls, sizeof(wls)))
		return 0;
	snprintf(reps, sizeof(reps), "%d", a->reps);
	snprintf(ms, sizeof(ms), "%d", a->run_ms);
	argv[n++] = "run";
	argv[n++] = "-t";
	argv[n++] = tracers;
	argv[n++] = "-w";
	argv[n++] = wls;
	if (coll) {
		argv[n++] = "--target";
		argv[n++] = ATT_COLL_TARGET;
	}
	argv[n++] = "-r";
	argv[n++] = reps;
	argv[n++] = "--run-ms";
	argv[n++] = ms;
	if (a->store) {
		argv[n++] = "--store";
		argv[n++] = a->store;
	}
	if (a->no_store)
		argv[n++] = "--no-store";
	if (a->quiet)
		argv[n++] = "-q";
	argv[n] = NULL;
	if (cli_parse_run(n, (char **)argv, &ra, err, sizeof(err)))
		die("cannot measure the costs: %s", err);
	ra.no_table = true;
	ret = run_measure(&ra, measured_hook, &h);
	cli_release(&ra);
	return ret;
}

/* Each mechanism's cost on its consumers' workloads, then its collateral (--target) */
static int measure_costs(const struct attached_args *a, struct attached *at)
{
	int ret = measure_run(a, at, false);

	return ret >= 128 ? ret : measure_run(a, at, true);
}

/*
 * @tracer's cost from the store on the first syscall workload @named (or
 * not) by @au's rules; with q.rules_digest, the first of that rule set,
 * else the first of any
 */
static bool audit_stored(struct store *s, struct store_cost_query q, const struct budget_audit *au,
			 bool named, const char *only, struct budget_audit_cost *ac, int max_age_h)
{
	bool found = false;

	for (const struct workload *w = workloads; s && w->name; w++) {
		struct budget_audit_cost got = { 0 };

		if (!w->syscall || w->cmd || budget_audit_names(au, w) != named ||
		    (only && strcmp(w->name, only)))
			continue;
		q.workload = w->name;
		if (cmd_stored_audit_cost(s, &q, &got, max_age_h, false))
			continue;
		if (!found || got.rules_match)
			*ac = got;
		found = true;
		if (!q.rules_digest || got.rules_match)
			break;
	}
	return found;
}

/*
 * The live rule set's costs, from the store (audit:rules needs its rule
 * file to be measured): a record's, audit:rule/async on a syscall the rules
 * name (else any), and on stat for a call that looks a path up; the walk's, audit:rules on a syscall they do not name,
 * and on stat for a call that looks a path up (c2098b1's walk_path): of
 * this set (its digest, read back from the kernel) where the store has
 * it, else of another set, which the walk's cost says.
 */
static void audit_costs(const struct attached_args *a, struct attached *at, struct store *s,
			struct store_cost_query q)
{
	struct budget_audit *au = at->audit_set;
	struct att_row *r = NULL;

	for (int i = 0; i < at->nrows && !r; i++)
		if (!strcmp(at->rows[i].cost.tracer, "audit:rules"))
			r = &at->rows[i];
	if (!r)
		return;
	if (!au) {
		snprintf(r->cost.why, sizeof(r->cost.why), "the rules could not be read: %s",
			 at->audit_why[0] ? at->audit_why : "audit changed during the window");
		return;
	}
	q.tracer = "audit:rule/async";
	if (!audit_stored(s, q, au, true, NULL, &au->record, a->max_age_h) &&
	    !audit_stored(s, q, au, false, NULL, &au->record, a->max_age_h))
		snprintf(au->record.reason, sizeof(au->record.reason), "no cost of audit:rule/async "
			 "stored for this host, kernel and version in the last %d h (store one: tracetax "
			 "run -t audit:rule/async -w getpid)", a->max_age_h);
	/* a record of a call that looks a path up: audit:rule's on stat (CWD, PATH more) */
	q.workload = "stat";
	cmd_stored_audit_cost(s, &q, &au->record_path, a->max_age_h, false);
	q.tracer = "audit:rules";
	q.rules_digest = au->digest[0] ? au->digest : NULL;
	if (!audit_stored(s, q, au, false, NULL, &au->walk, a->max_age_h))
		snprintf(au->walk.reason, sizeof(au->walk.reason), "no cost of audit:rules stored on a "
			 "syscall these rules do not name, for this host, kernel and version in the last"
			 " %d h (store one: tracetax run -t audit:rules --audit-rules FILE -w getpid)",
			 a->max_age_h);
	if (!budget_audit_names(au, workload_find("stat")))
		audit_stored(s, q, au, false, "stat", &au->walk_path, a->max_age_h);
	if (a->measure)
		snprintf(at->audit_walk_how, sizeof(at->audit_walk_how), "--measure leaves audit:rules"
			 " to the store: it needs the rule file");
	if (au->walk.source[0] && au->record.source[0])
		snprintf(r->cost.source, sizeof(r->cost.source), "store");
	r->cost.run_id = au->walk.run_id;
}

/*
 * @r's cost from the store (cmd_stored_cost: the store's rule, this host,
 * kernel and version, newer than --max-age): the cell of the first of its
 * workloads (cost_workloads) that the store has, with that cell's own
 * interval, weighted by the box's syscalls per CPU where the cell has
 * costs per CPU. 0, 1 none stored, -1 @err.
 */
static int stored_cost(struct store *s, struct store_cost_query q, struct att_row *r,
		       const struct budget_rates *rt, char *err, size_t len)
{
	const char *wl[BUDGET_TOP_NRS + 2];
	int n = cost_workloads(r, rt, wl, BUDGET_TOP_NRS + 2), rc = 1;

	for (int i = 0; i < n && rc > 0; i++) {
		struct budget_cost bc = { 0 };
		double p, ns, lo, hi;
		bool weighted;

		q.workload = wl[i];
		if ((rc = cmd_stored_cost(s, &q, &bc, &p, err, len)))
			continue;
		weighted = budget_cost_weighted(&bc, rt->per_cpu, rt->ncpu, &ns, &lo, &hi);
		row_cell_cost(r, "store", bc.run_id, ns, lo, hi, p, wl[i], weighted);
	}
	if (rc > 0)
		snprintf(err, len, "on %s%s", wl[0], n > 1 ? " nor getpid" : "");
	return rc;
}

/* @r's collateral cost from the store: its tracer's --target close cell on getpid */
static int stored_coll(struct store *s, struct store_cost_query q, struct att_row *r, char *err,
		       size_t len)
{
	struct budget_cost bc = { 0 };
	int rc;

	q.workload = ATT_COLL_WORKLOAD;
	q.target = ATT_COLL_TARGET;
	rc = cmd_stored_cost(s, &q, &bc, NULL, err, len);
	if (!rc)
		row_coll_cost(r, q.tracer, "store", bc.run_id, bc.ns, bc.lo, bc.hi);
	return rc;
}

/* Each row's cost and collateral cost from the store, where not measured now */
static void stored_costs(const struct attached_args *a, struct attached *at,
			 const struct environment *env)
{
	char path[4096], err[512], since[32], host[32];
	struct store *s = NULL;
	int rc;

	utc_iso(time(NULL) - (time_t)a->max_age_h * 3600, since, sizeof(since));
	if (!store_path(a->store, path, sizeof(path), err, sizeof(err)))
		s = store_open(path, false, err, sizeof(err));
	host_id(host, sizeof(host));
	audit_costs(a, at, s, (struct store_cost_query){
		.hostname = env->hostname, .kernel = env->kernel, .version = env->tracetax_version,
		.host_id = host, .since = since });
	for (int i = 0; i < at->nrows; i++) {
		struct att_row *r = &at->rows[i];
		struct att_cost *c = &r->cost;
		struct store_cost_query q = {
			.tracer = c->tracer, .hostname = env->hostname, .kernel = env->kernel,
			.version = env->tracetax_version, .host_id = host, .since = since,
		};
		char e2[512];

		if (!c->tracer[0] || c->why[0] || !strcmp(c->tracer, "audit:rules"))
			continue;
		if (!c->source[0] && (rc = s ? stored_cost(s, q, r, &at->rates, e2, sizeof(e2)) : -1))
			snprintf(c->why, sizeof(c->why), rc > 0 ? "no cost of %s %s stored for this host, "
				 "kernel and version in the last %d h: add --measure" : "%s%s: add --measure",
				 rc > 0 ? c->tracer : s ? e2 : err, rc > 0 ? e2 : "", a->max_age_h);
		if (!attached_box_slow_path(r) || r->coll.source[0])
			continue;
		if ((rc = s ? stored_coll(s, q, r, e2, sizeof(e2)) : -1))
			snprintf(r->coll.why, sizeof(r->coll.why), rc > 0 ? "no collateral cost of %s "
				 "stored (tracetax run -w getpid -t %s --target close) for this host, "
				 "kernel and version in the last %d h: add --measure" : "%s%s: add --measure",
				 rc > 0 ? c->tracer : s ? e2 : err, rc > 0 ? c->tracer : "", a->max_age_h);
	}
	store_close(s);
}

static int emit_json(FILE *f, void *arg)
{
	return fputs(arg, f) < 0 || fputc('\n', f) < 0 ? -1 : 0;
}

/* Beside the budgets in the store: report shows the last ones */
static int record(const struct attached_args *a, const char *doc)
{
	char path[4096], err[512];
	struct store *s;
	int64_t id;
	int ret;

	if (store_path(a->store, path, sizeof(path), err, sizeof(err)))
		return error("cannot record the attached view: %s", err);
	if (!(s = store_open(path, true, err, sizeof(err))))
		return error("cannot record the attached view: %s", err);
	ret = store_record_budget(s, doc, &id, err, sizeof(err));
	if (ret)
		error("%s", err);
	else if (!a->quiet)
		fprintf(stderr, "recorded as budget %lld in '%s' (tracetax report shows it)\n",
			(long long)id, store_name(s));	/* a URI's password redacted */
	store_close(s);
	return ret;
}

struct prom_arg {
	const struct attached *a;
	const struct environment *env;
};

static int emit_prom(FILE *f, void *arg)
{
	const struct prom_arg *p = arg;

	return output_attached_prometheus(p->a, p->env, f);
}

int cmd_budget_attached(int argc, char **argv)
{
	struct attached_args a;
	struct attached at;
	struct environment env;
	struct attached_opts o;
	char err[512];
	int ret;

	parse(argc, argv, &a);
	if (geteuid() != 0) {
		error("budget --attached needs root: other processes' fds, BPF programs and their "
		      "stats, tracefs and audit are root's to read");
		return EXIT_FAILED;
	}
	if (a.json && atomic_file_check(a.json, err, sizeof(err)))
		die_usage("%s", err);
	if (a.prom_dir && access(a.prom_dir, W_OK | X_OK))
		die_usage("cannot write into '%s' (--prometheus-textfile): %s", a.prom_dir,
			  strerror(errno));
	/* the lock as run takes it: --no-wait before the signal thread, waiting after */
	if (a.wait_s == LOCK_NOWAIT)
		cmd_take_lock(LOCK_NOWAIT);
	cmd_signals_once();
	if (a.wait_s != LOCK_NOWAIT)
		cmd_take_lock(a.wait_s);
	environment_collect(&env);
	o = (struct attached_opts){ .seconds = a.seconds };
	if (!a.quiet)
		fprintf(stderr, "counting the attached consumers' events for %d s...\n", a.seconds);
	ret = attached_measure(&o, &at, err, sizeof(err));
	if (ret >= 128) {
		error("interrupted by signal %d: BPF stats off again, no results", ret - 128);
		goto out;
	}
	if (ret) {
		error("%s", err);
		ret = EXIT_FAILED;
		goto out;
	}
	if (a.measure) {
		ret = measure_costs(&a, &at);
		if (ret >= 128)
			goto out;
		ret = 0;	/* a cell that failed leaves its rows without a cost, and says why */
	}
	stored_costs(&a, &at, &env);
	for (int i = 0; i < at.nrows; i++)
		if (!at.rows[i].cost.tracer[0] && isfinite(at.rows[i].rate))
			snprintf(at.rows[i].cost.why, sizeof(at.rows[i].cost.why),
				 "no tracer of tracetax measures the dispatch of %s on this kernel",
				 at.rows[i].c.mech);
	attached_costs(&at);
	attached_owners(&at);
	if (!a.json || strcmp(a.json, "-"))
		output_attached(&at, stdout);
	if (a.json || !a.no_store) {
		char *text = attached_json_string(&at, &env);

		if (a.json && !strcmp(a.json, "-"))
			ret = emit_json(stdout, text) ? EXIT_FAILED : 0;
		else if (a.json && atomic_file_write(a.json, emit_json, text))
			ret = EXIT_FAILED;
		if (!a.no_store && record(&a, text))
			ret = EXIT_FAILED;
		free(text);
	}
	if (a.prom_dir) {
		char path[4096];
		struct prom_arg p = { &at, &env };

		snprintf(path, sizeof(path), "%s/tracetax-attached.prom", a.prom_dir);
		if (atomic_file_write(path, emit_prom, &p))
			ret = EXIT_FAILED;
	}
out:
	attached_release(&at);
	signals_reraise();
	return ret;
}
