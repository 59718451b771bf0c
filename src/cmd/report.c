/* `tracetax report [RUN...] -o FILE`: the HTML report of runs (report.h). */
#include <stdio.h>
#include <stdlib.h>

#include "cli/cli_results.h"
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

int cmd_report(int argc, char **argv)
{
	struct results_args a;
	struct doc docs[CLI_MAX_RUNS];
	char err[256], *page = NULL;
	size_t len = 0;
	FILE *f;
	int n, ret;

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
	/* whole, then written at once: a reader never sees half a page */
	f = open_memstream(&page, &len);
	if (!f)
		die("out of memory");
	ret = report_html(f, docs, n);
	if (fclose(f) || ret)
		die("cannot build the report");
	ret = output_file(a.out, page, NULL, NULL);
	free(page);
	for (int i = 0; i < n; i++)
		doc_release(&docs[i]);
	return ret ? EXIT_FAILED : 0;
}
