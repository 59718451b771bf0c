/*
 * What a run does with the results store (session.h): the repeat
 * intervals' drift between runs, then its record.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "base/hostid.h"
#include "base/util.h"
#include "doc/write.h"
#include "store/db.h"
#include "store/session.h"
#include "store/store.h"

/*
 * A store the user named (--store, TRACETAX_DB) that cannot record costs
 * the run its exit code (1); the default one, which a user who never asked
 * for a store may not be able to have (no HOME, HOME=/nonexistent), costs
 * one warning: the measurement decides the exit code.
 */
static int record_failed(bool named, const char *what, const char *err)
{
	if (named)
		return error("%s%s", what, err);
	warning("%s%s (the default store; --store PATH or TRACETAX_DB names one)", what, err);
	return 0;
}

int store_record_run(const char *store_opt, const struct results *r, bool quiet)
{
	char path[4096], err[512], *doc, host[32];
	const char *env = getenv("TRACETAX_DB");
	bool named = store_opt || (env && *env);
	struct store *s;
	int64_t id;
	int ret;

	if (store_path(store_opt, path, sizeof(path), err, sizeof(err)))
		return record_failed(named, "cannot record the run: ", err);
	s = store_open(path, true, err, sizeof(err));
	if (!s)
		return record_failed(named, "cannot record the run: ", err);
	doc = output_json_string(r);
	host_id(host, sizeof(host));
	ret = store_record(s, r, doc, host, &id, err, sizeof(err));
	if (ret)
		ret = record_failed(named, "", err);
	else if (!quiet)
		fprintf(stderr, "recorded as run %lld in '%s' (tracetax show %lld)\n", (long long)id,
			store_name(s), (long long)id);
	free(doc);
	store_close(s);
	return ret;
}

/* No run of this host to learn from: the documented prior, and why. */
static void assume(struct results *r, const char *why)
{
	results_set_repeat(r, REPEAT_ASSUMED, REPEAT_PRIOR_TAU, 0, 0, why);
}

/* tau from the host's runs of this version, or of any: whether any cell gave one. */
static bool from_runs(struct store *s, struct results *r, const char *host, bool any_version,
		      bool *failed)
{
	char err[512];
	double tau;
	int runs, cells;

	if (store_repeat_drift(s, r, host, any_version, &tau, &runs, &cells, err, sizeof(err))) {
		warning("the repeat interval's drift: %s", err);
		*failed = true;
		return false;
	}
	if (!cells)
		return false;
	results_set_repeat(r, any_version ? REPEAT_OTHER_VERSIONS : REPEAT_THIS_VERSION, tau, runs,
			   cells, tau > 0 ? "" : "this run and the earlier ones agree within their noise");
	return true;
}

void store_set_repeat(const char *store_opt, bool no_store, struct results *r)
{
	char path[4096], err[512], host[32];
	bool failed = false;
	struct store *s;

	if (*r->env.vm) {
		results_drop_repeat(r, "measured in a VM of --kernel: no drift between its runs known");
		return;
	}
	if (no_store) {
		assume(r, "--no-store: the store not read");
		return;
	}
	if (store_path(store_opt, path, sizeof(path), err, sizeof(err))) {
		assume(r, "no results store to read");
		return;
	}
	/*
	 * No store yet (this run makes it), or one that cannot be opened: the
	 * record after the table says why, once
	 */
	if (!(s = store_open(path, false, err, sizeof(err)))) {
		assume(r, db_is_pg(path) || !access(path, F_OK) ? "the results store could not be read" :
		       "a first run: no earlier run of this host");
		return;
	}
	host_id(host, sizeof(host));
	if (!from_runs(s, r, host, false, &failed) && !failed &&
	    !from_runs(s, r, host, true, &failed))
		assume(r, failed ? "the results store could not be read" :
		       "no earlier run of this host gave a cell seen twice: a first run, or "
		       "runs of other cells");
	store_close(s);
}
