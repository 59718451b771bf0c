/* What every command shares: the load's path, colour, usage hints, the lock, signals. */
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/lock.h"
#include "base/signals.h"
#include "base/util.h"
#include "cmd/cmd.h"
#include "doc/read.h"
#include "measure/slowpath.h"
#include "results/budget.h"
#include "store/store.h"
#include "tracers/tracer.h"

/*
 * tracetax-load lives next to tracetax in the build, and in
 * PREFIX/lib/tracetax (a program of tracetax's, not of the user's PATH)
 * once installed, with the libraries it brings beside it; relative to our
 * own executable, so that an installed tree can move (DESTDIR, another
 * PREFIX). TRACETAX_LOAD overrides.
 */
const char *cmd_find_load(void)
{
	static const char *const rel[] = { "/tracetax-load", "/../lib/tracetax/tracetax-load" };
	static char path[PATH_MAX];
	const char *env = getenv("TRACETAX_LOAD");
	char exe[PATH_MAX - 64], *dir;
	ssize_t n;

	if (env && *env)
		return env;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n < 0)
		die("cannot find own executable: readlink /proc/self/exe failed");
	exe[n] = '\0';
	dir = dirname(exe);
	for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
		char joined[PATH_MAX];

		snprintf(joined, sizeof(joined), "%s%s", dir, rel[i]);
		/* canonical: the libraries are looked for beside it */
		if (realpath(joined, path) && !access(path, X_OK))
			return path;
	}
	die("cannot find workload binary 'tracetax-load' in '%s' or '%s/../lib/tracetax' "
	    "(set TRACETAX_LOAD)", dir, dir);
}

bool cmd_want_colour(int setting, int fd)
{
	if (setting >= 0)
		return setting;
	return isatty(fd) && !getenv("NO_COLOR");
}

/* One hint per error line: the parser's own "(see ...)" wins over ours. */
__attribute__((__noreturn__)) void cmd_die_usage(const char *err, const char *hint)
{
	if (strstr(err, "(see '"))
		die_usage("%s", err);
	die_usage("%s (see '%s')", err, hint);
}

/*
 * One measurement at a time on the machine. Waiting is the default: two
 * CI jobs that meet on one runner both get correct figures, the second
 * later, instead of the second failing for its neighbour. The wait is
 * bounded (--wait, LOCK_WAIT_DEFAULT_S): any local user can hold the lock,
 * so it must not stall us forever; past it, or at once with --no-wait,
 * exit 2 naming the holder. Interrupted while waiting, tracetax dies of the
 * signal.
 */
void cmd_take_lock(int wait_s)
{
	char err[320];

	if (!lock_acquire(wait_s, signals_interrupted, err, sizeof(err)))
		return;
	if (signals_interrupted()) {
		error("%s", err);
		signals_reraise();
	}
	die_usage("%s%s", err, wait_s == LOCK_NOWAIT ? " (--no-wait)" : " (--wait)");
}

int cmd_wait_default(void)
{
	int w = lock_wait_default();

	if (w < 0)
		die_usage("invalid " TT_WAIT_ENV " '%s' (0 to %d seconds)", getenv(TT_WAIT_ENV),
			  LOCK_WAIT_MAX_S);
	return w;
}

/* --wait SECONDS and --no-wait of list and clocks, as run has them; -1: bad value. */
int cmd_parse_wait(const char *s, int *wait_s)
{
	int64_t v;

	if (parse_i64(s, 0, LOCK_WAIT_MAX_S, &v))
		return -1;
	*wait_s = (int)v;
	return 0;
}

/* Signal handling once per process: an experiment measures several times. */
void cmd_signals_once(void)
{
	static bool ready;

	if (!ready && signals_init())
		die("cannot set up signal handling");
	ready = true;
}

int cmd_num_arg(const char *s, const char *opt, int64_t min, int64_t max)
{
	int64_t v;

	if (parse_i64(s, min, max, &v))
		die_usage("invalid %s '%s' (%" PRId64 " to %" PRId64 ")", opt, s, min, max);
	return (int)v;
}

int cmd_stored_cost(struct store *s, const struct store_cost_query *q, struct budget_cost *out,
		    double *prog_ns, char *err, size_t len)
{
	struct store_cost sc;
	struct doc d;
	char derr[512], *text;
	size_t tlen;
	int rc = store_find_cost(s, q, &sc, err, len);

	if (rc)
		return rc;
	snprintf(out->source, sizeof(out->source), "store");
	snprintf(out->workload, sizeof(out->workload), "%s", q->workload);
	snprintf(out->started, sizeof(out->started), "%s", sc.started);
	out->run_id = sc.run_id;
	out->reps = sc.reps;
	out->events = sc.events;
	out->ns = sc.ns;
	out->lo = sc.lo;
	out->hi = sc.hi;
	out->consumer_ns = isfinite(sc.consumer_ns) ? sc.consumer_ns : 0;
	out->ncpu = 0;
	if (prog_ns)
		*prog_ns = NAN;
	if (store_document(s, sc.run_id, &text, &tlen, derr, sizeof(derr)))
		return 0;
	memset(&d, 0, sizeof(d));
	d.run_id = sc.run_id;
	snprintf(d.name, sizeof(d.name), "run %lld", (long long)sc.run_id);
	/* the cell the store's rule took (store/stand.h), not another of its run */
	if (!doc_parse(&d, text, tlen, derr, sizeof(derr)) && sc.idx >= 0 && sc.idx < d.r.ncells &&
	    !strcmp(d.r.cells[sc.idx].tracer, q->tracer)) {
		const struct cell *c = &d.r.cells[sc.idx];

		budget_cost_per_cpu(out, c);
		if (prog_ns)
			*prog_ns = !c->prog.bpf ? 0 : c->prog.measured ? c->prog.ns_per_run : NAN;
	}
	doc_release(&d);
	return 0;
}

int cmd_stored_audit_cost(struct store *s, const struct store_cost_query *q,
			  struct budget_audit_cost *ac, int max_age_h, bool measure_hint)
{
	struct store_cost sc;
	char err[512];
	const char *hint = measure_hint ? ": add --measure" : "";
	int ret = s ? store_find_cost(s, q, &sc, err, sizeof(err)) : -1;

	if (ret > 0)
		snprintf(ac->reason, sizeof(ac->reason), "none stored for %s on %s, this host, kernel "
			 "and version, in the last %d h%s", q->tracer, q->workload, max_age_h, hint);
	else if (ret < 0)
		snprintf(ac->reason, sizeof(ac->reason), "%s%s", s ? err : "no store", hint);
	if (ret)
		return ret;
	*ac = (struct budget_audit_cost){ .run_id = sc.run_id, .reps = sc.reps, .ns = sc.ns,
					  .lo = sc.lo, .hi = sc.hi, .rules = sc.rules,
					  .rules_match = sc.rules_match,
					  .consumer_ns = isfinite(sc.consumer_ns) ? sc.consumer_ns : 0 };
	snprintf(ac->source, sizeof(ac->source), "store");
	snprintf(ac->tracer, sizeof(ac->tracer), "%s", q->tracer);
	snprintf(ac->workload, sizeof(ac->workload), "%s", q->workload);
	snprintf(ac->started, sizeof(ac->started), "%s", sc.started);
	return 0;
}

void cmd_refuse_residue(char *const *tracers, int n, bool accepted)
{
	char err[512], msg[768];

	for (int i = 0; i < n && !accepted; i++) {
		const char *variant;
		const struct tracer_ops *ops = tracer_ops_find(tracers[i], &variant, err, sizeof(err));

		if (ops && (ops->flags & TT_F_RESIDUE)) {
			if (slowpath_residue_refused(tracers[i], msg, sizeof(msg)))
				die_usage("%s", msg);
			return;	/* one answer for the box: every such tracer leaves the same */
		}
	}
}
