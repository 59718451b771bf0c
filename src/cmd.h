/*
 * The commands that keep and read results (cmd_results.c, cmd_compare.c,
 * cmd_report.c): each takes argv with argv[0] its name and returns the
 * exit code. Bad input is one line and exit 2; a store that fails, exit 1.
 */
#ifndef TRACETAX_CMD_H
#define TRACETAX_CMD_H

#include <stdbool.h>

#include "doc_read.h"
#include "results.h"

int cmd_history(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_report(int argc, char **argv);

/*
 * `tracetax run`'s recording: @r into the store at @store_opt (NULL: the
 * default). 0, or -1 with one line said. @quiet: no line saying where.
 */
int cmd_record_run(const char *store_opt, const struct results *r, bool quiet);

/*
 * RUN: an id, "last", "last~N" (from the store at @store_opt), or the path
 * of a results document. Exits 2 on a bad RUN or document, 1 on a store
 * that fails.
 */
void cmd_load_run(const char *spec, const char *store_opt, struct doc *d);

/* Whether colour is wanted on @fd for --color @setting (-1: auto). */
bool cmd_want_colour(int setting, int fd);

#endif
