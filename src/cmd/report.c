/* `tracetax report [RUN...] -o FILE`: the HTML report of runs (report.h). */
#include <stdio.h>
#include <stdlib.h>

#include <unistd.h>

#include "cli/cli_results.h"
#include "doc/budget.h"
#include "store/store.h"
#include "cmd/cmd.h"
#include "output/export.h"
#include "report/report.h"
#include "base/util.h"

static const char usage_report[] =
	"usage: tracetax report [RUN...] [-o FILE] [--store STORE]\n"
	"\n"
	"Writes one self-contained HTML page (no external script, style, font or\n"
	"image: it can be mailed or attached to a bug) to FILE or stdout: the\n"
	"overhead per event of every cell as bars with their 95% intervals, what\n"
	"was skipped or failed and why, thread scaling, the environment, the\n"
	"method, and the results documents themselves. With two runs or more,\n"
	"each later one is compared with the first, as 'tracetax compare' does.\n"
	"RUN: an id, last, last~N, or a results document; default last.\n";

#define REPORT_BUDGETS 5

struct budget_walk {
	struct budget_brief *b;
	int n;
};

static int add_budget(int64_t id, const char *doc, size_t len, void *arg)
{
	struct budget_walk *w = arg;
	char err[256];

	if (doc_read_budget(doc, len, &w->b[w->n], err, sizeof(err))) {
		warning("budget %lld in the store: %s: left out", (long long)id, err);
		return 0;
	}
	w->b[w->n++].id = id;
	return 0;
}

/*
 * The store's last budgets, for their section; none when there is no
 * store. Opened without create: a missing SQLite file stays missing, and a
 * PostgreSQL URI is no file to access() (its budgets were never shown).
 */
static struct budget_brief *load_budgets(const char *store_opt, int *n)
{
	struct budget_walk w = { calloc(REPORT_BUDGETS, sizeof(struct budget_brief)), 0 };
	char path[4096], err[512];
	struct store *s;

	if (!w.b)
		die("out of memory");
	if (store_path(store_opt, path, sizeof(path), err, sizeof(err)) ||
	    !(s = store_open(path, false, err, sizeof(err)))) {
		*n = 0;
		return w.b;
	}
	if (store_budgets(s, REPORT_BUDGETS, add_budget, &w, err, sizeof(err)))
		warning("%s: no budgets in the report", err);
	store_close(s);
	*n = w.n;
	return w.b;
}

int cmd_report(int argc, char **argv)
{
	struct results_args a;
	struct doc docs[CLI_MAX_RUNS];
	char err[256], *page = NULL;
	size_t len = 0;
	FILE *f;
	int n, ret, nb = 0;
	struct budget_brief *budgets;

	if (cli_parse_results(argc, argv, &a, err, sizeof(err)))
		die_usage("%s (see 'tracetax report --help')", err);
	if (a.help) {
		fputs(usage_report, stdout);
		return 0;
	}
	if (!a.nruns)
		a.runs[a.nruns++] = "last";
	for (n = 0; n < a.nruns; n++)
		cmd_load_run(a.runs[n], a.store, &docs[n]);
	budgets = load_budgets(a.store, &nb);
	/* whole, then written at once: a reader never sees half a page */
	f = open_memstream(&page, &len);
	if (!f)
		die("out of memory");
	ret = report_html_budgets(f, docs, n, budgets, nb);
	if (fclose(f) || ret)
		die("cannot build the report");
	ret = output_file(a.out, page, NULL, NULL);
	free(page);
	for (int i = 0; i < nb; i++)
		doc_budget_brief_release(&budgets[i]);
	free(budgets);
	for (int i = 0; i < n; i++)
		doc_release(&docs[i]);
	return ret ? EXIT_FAILED : 0;
}
