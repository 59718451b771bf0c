/*
 * What a run does with the results store (session.c): the drift between
 * runs its repeat intervals add, before its table and document; its record,
 * after them. Used by run, pair and experiment (cmd/session.c).
 */
#ifndef TRACETAX_STORE_SESSION_H
#define TRACETAX_STORE_SESSION_H

#include <stdbool.h>

#include "results/results.h"

/*
 * Records @r into the store at @store_opt (NULL: the default). 0, or -1
 * with one line said; a default store that cannot be had is a warning, 0.
 * @quiet: no line saying where.
 */
int store_record_run(const char *store_opt, const struct results *r, bool quiet);

/*
 * The repeat intervals of @r (results_set_repeat), tau from the first of:
 * the host's runs of this tracetax version in the store, this one with
 * them; its runs of other versions; REPEAT_PRIOR_TAU, assumed (with
 * @no_store, no store yet, one that cannot be read, or no cell of the
 * host's runs seen twice). None in a VM of --kernel, whose reruns are not
 * this host's.
 */
void store_set_repeat(const char *store_opt, bool no_store, struct results *r);

#endif
