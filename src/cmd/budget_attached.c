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
#include "cmd/cmd.h"
#include "cmd/session.h"
#include "doc/attached.h"
#include "doc/read.h"
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
	int seconds, max_age_h, reps, run_ms, wait_s;
	const char *json, *store, *prom_dir;
	bool quiet, measure, no_store;
};

/* The workload each mechanism's cost is measured on: the cheapest syscall, its hook's fixed cost */
#define COST_WORKLOAD "getpid"

static void parse(int argc, char **argv, struct attached_args *a)
{
	static const struct option opts[] = {
		{ "attached", no_argument, NULL, 'A' },
		{ "for", required_argument, NULL, 'f' },
		{ "measure", no_argument, NULL, 'm' },
		{ "max-age", required_argument, NULL, 'a' },
		{ "reps", required_argument, NULL, 'r' },
		{ "run-ms", required_argument, NULL, 'R' },
		{ "store", required_argument, NULL, 's' },
		{ "no-store", no_argument, NULL, 'O' },
		{ "json", required_argument, NULL, 'j' },
		{ "prometheus-textfile", required_argument, NULL, 'P' },
		{ "wait", required_argument, NULL, 'W' },
		{ "no-wait", no_argument, NULL, 'N' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "tracer", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(a, 0, sizeof(*a));
	a->seconds = 5;
	a->max_age_h = 168;
	a->reps = 8;
	a->run_ms = 100;
	a->wait_s = cmd_wait_default();
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":t:r:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'A': break;
		case 'f': a->seconds = cmd_num_arg(optarg, "--for", 1, 3600); break;
		case 'a': a->max_age_h = cmd_num_arg(optarg, "--max-age", 0, 24 * 3650); break;
		case 'r': a->reps = cmd_num_arg(optarg, "--reps", 2, 1000); break;
		case 'R': a->run_ms = cmd_num_arg(optarg, "--run-ms", 10, 60000); break;
		case 'm': a->measure = true; break;
		case 'W': a->wait_s = cmd_num_arg(optarg, "--wait", 0, LOCK_WAIT_MAX_S); break;
		case 'N': a->wait_s = LOCK_NOWAIT; break;
		case 's': a->store = optarg; break;
		case 'O': a->no_store = true; break;
		case 'j': a->json = optarg; break;
		case 'P': a->prom_dir = optarg; break;
		case 'q': a->quiet = true; break;
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

/* A tracer's overhead (over @wl) and its own program time into every row whose dispatch it stands for */
static void cell_cost(struct attached *at, const char *tracer, const char *source, int64_t run_id,
		      double ns, double lo, double hi, double prog_ns, const char *wl, int nwl,
		      bool weighted)
{
	for (int i = 0; i < at->nrows; i++) {
		struct att_cost *c = &at->rows[i].cost;

		if (strcmp(c->tracer, tracer) || c->source[0])
			continue;
		snprintf(c->source, sizeof(c->source), "%s", source);
		c->run_id = run_id;
		c->cell_ns = ns;
		c->cell_lo = lo;
		c->cell_hi = hi;
		c->cell_prog_ns = prog_ns;
		snprintf(c->workloads, sizeof(c->workloads), "%s", wl);
		c->nworkloads = nwl;
		c->per_cpu_weighted = weighted;
	}
}

static double prog_ns_of(const struct prog_time *p)
{
	return !p->bpf ? 0 : p->measured ? p->ns_per_run : NAN;
}

static void measured_hook(struct results *r, void *arg)
{
	for (int i = 0; i < r->ncells; i++) {
		const struct cell *c = &r->cells[i];

		if (c->status == CELL_OK && c->threads == 1 && !strcmp(c->workload, COST_WORKLOAD))
			cell_cost(arg, c->tracer, "measured", 0, c->overhead.mean, c->overhead.ci95[0],
				  c->overhead.ci95[1], prog_ns_of(&c->prog), COST_WORKLOAD, 1, false);
	}
}

/* The distinct tracers of the rows that have events to cost, ","-joined; how many */
static int tracers_wanted(const struct attached *at, char *buf, size_t len)
{
	int n = 0;

	buf[0] = '\0';
	for (int i = 0; i < at->nrows; i++) {
		const char *t = at->rows[i].cost.tracer;
		bool seen = false;

		/* audit:rules needs the rule file: the live set's costs come from the store */
		if (!t[0] || !isfinite(at->rows[i].rate) || !strcmp(t, "audit:rules"))
			continue;
		for (int k = 0; k < i && !seen; k++)
			seen = isfinite(at->rows[k].rate) && !strcmp(at->rows[k].cost.tracer, t);
		if (!seen) {
			snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", n ? "," : "", t);
			n++;
		}
	}
	return n;
}

static int measure_costs(const struct attached_args *a, struct attached *at)
{
	char tracers[1024], reps[16], ms[16], err[512];
	const char *argv[16];
	struct run_args ra;
	int n = 0, ret;

	if (!tracers_wanted(at, tracers, sizeof(tracers)))
		return 0;
	snprintf(reps, sizeof(reps), "%d", a->reps);
	snprintf(ms, sizeof(ms), "%d", a->run_ms);
	argv[n++] = "run";
	argv[n++] = "-t";
	argv[n++] = tracers;
	argv[n++] = "-w";
	argv[n++] = COST_WORKLOAD;
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
	ret = run_measure(&ra, measured_hook, at);
	cli_release(&ra);
	return ret;
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
 * Each row's tracer's cost from the store, on every syscall workload that
 * has one (cmd_stored_cost: the store's rule, this host, kernel and
 * version, newer than --max-age): their mean, bounded by the lowest and
 * highest of their intervals. Each workload's cost is weighted by the
 * box's syscalls per CPU where its cell has costs per CPU.
 */
static void stored_costs(const struct attached_args *a, struct attached *at,
			 const struct environment *env)
{
	char path[4096], err[512], since[32], host[32];
	struct store *s = NULL;

	utc_iso(time(NULL) - (time_t)a->max_age_h * 3600, since, sizeof(since));
	if (!store_path(a->store, path, sizeof(path), err, sizeof(err)))
		s = store_open(path, false, err, sizeof(err));
	host_id(host, sizeof(host));
	audit_costs(a, at, s, (struct store_cost_query){
		.hostname = env->hostname, .kernel = env->kernel, .version = env->tracetax_version,
		.host_id = host, .since = since });
	for (int i = 0; i < at->nrows; i++) {
		struct att_cost *c = &at->rows[i].cost;
		struct store_cost_query q = {
			.tracer = c->tracer, .hostname = env->hostname, .kernel = env->kernel,
			.version = env->tracetax_version, .host_id = host, .since = since,
		};
		double ns = 0, lo = INFINITY, hi = -INFINITY, prog = 0;
		char wl[96] = "";
		int64_t run_id = 0;
		int n = 0, nweighted = 0, rc = s ? 1 : -1;

		if (!c->tracer[0] || c->source[0] || c->why[0] || !strcmp(c->tracer, "audit:rules"))
			continue;
		for (const struct workload *w = workloads; s && w->name && rc >= 0; w++) {
			struct budget_cost bc = { 0 };
			double p, wn, wlo, whi;

			if (!w->syscall || w->cmd)
				continue;
			q.workload = w->name;
			rc = cmd_stored_cost(s, &q, &bc, &p, err, sizeof(err));
			if (rc)
				continue;
			nweighted += budget_cost_weighted(&bc, at->rates.per_cpu, at->rates.ncpu,
							  &wn, &wlo, &whi);
			ns += wn;
			lo = fmin(lo, wlo);
			hi = fmax(hi, whi);
			prog += p;
			snprintf(wl + strlen(wl), sizeof(wl) - strlen(wl), "%s%s", n ? ", " : "", w->name);
			if (!run_id)
				run_id = bc.run_id;
			n++;
		}
		if (rc < 0 || !n) {
			for (int k = i; k < at->nrows; k++)
				if (!strcmp(at->rows[k].cost.tracer, c->tracer))
					snprintf(at->rows[k].cost.why, sizeof(c->why), rc >= 0 ?
						 "no cost of %s stored for this host, kernel and version in "
						 "the last %d h: add --measure" : "%s: add --measure",
						 rc >= 0 ? c->tracer : err, a->max_age_h);
			continue;
		}
		cell_cost(at, c->tracer, "store", run_id, ns / n, lo, hi, prog / n, wl, n,
			  nweighted == n);
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
			(long long)id, path);
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
