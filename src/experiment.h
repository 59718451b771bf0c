/*
 * `tracetax experiment` and `tracetax run --plan` (cmd_experiment.c), and
 * the measurements they drive (main.c): a run of `tracetax run`, a pair of
 * `tracetax pair`, each with a hook that reads the results before they are
 * printed and released.
 */
#ifndef TRACETAX_EXPERIMENT_H
#define TRACETAX_EXPERIMENT_H

#include "cli.h"
#include "pair.h"
#include "results.h"

typedef void (*run_hook)(struct results *r, void *arg);
typedef void (*pair_hook)(const struct pair_results *r, void *arg);

/* What `tracetax run` does once its options are parsed: the exit code. */
int run_measure(const struct run_args *a, run_hook hook, void *arg);
/* The same for `tracetax pair`. */
int pair_measure(const struct pair_args *a, pair_hook hook, void *arg);

int cmd_experiment(int argc, char **argv);
/* `tracetax run ... --plan FILE ...`: argv[at] is the --plan option. */
int experiment_run_plan(int argc, char **argv, int at);

#endif
