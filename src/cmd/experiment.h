/* `tracetax experiment` and `tracetax run --plan` (experiment.c). */
#ifndef TRACETAX_EXPERIMENT_H
#define TRACETAX_EXPERIMENT_H

int cmd_experiment(int argc, char **argv);
/* `tracetax run ... --plan FILE ...`: argv[at] is the --plan option. */
int experiment_run_plan(int argc, char **argv, int at);

#endif
