/*
 * The store's commands: recording a run, history, show, export, import;
 * and RUN arguments, which name a stored run or a document from elsewhere.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli_results.h"
#include "cmd/cmd.h"
#include "doc/write.h"
#include "output/export.h"
#include "output/table.h"
#include "store/store.h"
#include "base/util.h"

static const char usage_history[] =
	"usage: tracetax history [-w WORKLOAD] [-t PATTERN [--by host|kernel]] [--kernel PATTERN]\n"
	"                        [--limit N] [--store STORE]\n"
	"\n"
	"Lists the runs in the results store, oldest first: id, start (UTC), host,\n"
	"kernel, cells ok/skipped/failed, tracers. With -t, each run's cells of the\n"
	"tracers matching PATTERN follow it with their overhead per event: one\n"
	"tracer's cost over time. With --by, that cost per host or per kernel: the\n"
	"mean with a 95% CI (one run: its own; several: over the runs' means),\n"
	"the range of the runs' figures and their ids.\n"
	"\n"
	"  -w, --workload W       runs with cells of workload W\n"
	"  -t, --tracer PATTERN   runs with a tracer matching PATTERN ('bpf:*')\n"
	"      --by host|kernel   -t's overhead per host (hostname and machine) or kernel\n"
	"      --kernel PATTERN   runs on a kernel matching PATTERN ('6.1.*')\n"
	"  -l, --limit N          the last N runs (default 20)\n"
	"      --store STORE      the results store, a path or a postgresql:// URI\n"
	"                         (default: $TRACETAX_DB, else\n"
	"                         $XDG_DATA_HOME/tracetax/results.db, else\n"
	"                         ~/.local/share/tracetax/results.db)\n";

static const char usage_show[] =
	"usage: tracetax show RUN [--store STORE] [--color WHEN]\n"
	"\n"
	"Prints a run's table as 'tracetax run' printed it. RUN is an id from\n"
	"'tracetax history', last, last~N (N runs before the last), or the path of\n"
	"a results document (--json), from this machine or another.\n";

static const char usage_export[] =
	"usage: tracetax export RUN --format csv|markdown|json|prometheus [-o FILE] [--store STORE]\n"
	"\n"
	"Writes a run (see 'tracetax show --help' for RUN) to stdout or FILE: csv,\n"
	"one row per cell with units in the header; markdown, a table to paste\n"
	"into an issue or a mail; json, the results document; prometheus, its\n"
	"figures as gauges in seconds (the text format node_exporter reads).\n";

static const char usage_import[] =
	"usage: tracetax import FILE... [--store STORE]\n"
	"\n"
	"Records results documents (--json, from this machine or another) in the\n"
	"results store, each as a new run.\n";

static struct results_args parse(int argc, char **argv, const char *usage)
{
	struct results_args a;
	char err[256];

	if (cli_parse_results(argc, argv, &a, err, sizeof(err)))
		die_usage("%s (see 'tracetax %s --help')", err, argv[0]);
	if (a.help) {
		fputs(usage, stdout);
		exit(0);
	}
	return a;
}

static struct store *open_store(const char *opt, bool create)
{
	char path[4096], err[512];
	struct store *s;

	if (store_path(opt, path, sizeof(path), err, sizeof(err)))
		die_usage("%s", err);
	s = store_open(path, create, err, sizeof(err));
	if (!s) {
		error("%s", err);
		exit(EXIT_FAILED);
	}
	return s;
}

/* A stored run's spelling: what store_resolve() takes. */
static bool is_stored(const char *spec)
{
	return !strcmp(spec, "last") || !strncmp(spec, "last~", 5) ||
	       (*spec && spec[strspn(spec, "0123456789")] == '\0');
}

void cmd_load_run(const char *spec, const char *store_opt, struct doc *d)
{
	char err[512], *text;
	struct store *s;
	int64_t id;
	size_t len;
	int rc;

	if (!is_stored(spec)) {
		if (doc_read_file(d, spec, err, sizeof(err)))
			die_usage("%s", err);
		return;
	}
	memset(d, 0, sizeof(*d));
	s = open_store(store_opt, false);
	rc = store_resolve(s, spec, &id, err, sizeof(err));
	if (rc > 0)
		die_usage("%s", err);
	if (rc < 0 || store_document(s, id, &text, &len, err, sizeof(err))) {
		error("%s", err);
		exit(EXIT_FAILED);
	}
	store_close(s);
	d->run_id = id;
	snprintf(d->name, sizeof(d->name), "run %lld", (long long)id);
	if (doc_parse(d, text, len, err, sizeof(err)))
		die_usage("%s", err);
}

static int print_history(const struct store_run *run, const struct store_cell *c, void *arg)
{
	int *lines = arg;
	char m[24], lo[24], hi[24], cells[32];

	if (!(*lines)++)
		printf("%5s  %-20s  %-16s  %-20s  %-12s  %s\n", "id", "started (UTC)", "host", "kernel",
		       "ok/skip/fail", "tracers");
	if (!c) {
		snprintf(cells, sizeof(cells), "%d/%d/%d", run->ok, run->skipped, run->failed);
		printf("%5lld  %-20s  %-16.16s  %-20.20s  %-12s  %d: %s\n", (long long)run->id,
		       run->started, run->host, run->kernel, cells, run->ntracers, run->tracers);
		return 0;
	}
	if (strcmp(c->status, "ok")) {
		printf("%5s    %-24s %-10s %2dT  %s: %s\n", "", c->tracer, c->workload, c->threads,
		       c->status, c->reason);
		return 0;
	}
	format_ns(m, sizeof(m), c->overhead);
	format_ns(lo, sizeof(lo), c->lo);
	format_ns(hi, sizeof(hi), c->hi);
	printf("%5s    %-24s %-10s %2dT  %s [%s, %s] ns/event%s\n", "", c->tracer, c->workload,
	       c->threads, m, lo, hi, c->disturbed ? "  disturbed" : "");
	return 0;
}

int cmd_history(int argc, char **argv)
{
	struct results_args a = parse(argc, argv, usage_history);
	struct store_filter f = { a.workload, a.tracer, a.kernel, a.limit };
	struct store *s = open_store(a.store, false);
	char err[512];
	int lines = 0, ret;

	if (a.by) {
		ret = cmd_history_by(s, &a);
		store_close(s);
		return ret;
	}
	ret = store_history(s, &f, print_history, &lines, err, sizeof(err));
	store_close(s);
	if (ret) {
		error("%s", err);
		return EXIT_FAILED;
	}
	if (!lines)
		printf("no runs%s\n", a.workload || a.tracer || a.kernel ? " match" : " recorded");
	return 0;
}

int cmd_show(int argc, char **argv)
{
	struct results_args a = parse(argc, argv, usage_show);
	struct doc d;

	cmd_load_run(a.runs[0], a.store, &d);
	output_table(&d.r, stdout, cmd_want_colour(a.colour, STDOUT_FILENO));
	doc_release(&d);
	return fflush(stdout) ? EXIT_FAILED : 0;
}

int cmd_export(int argc, char **argv)
{
	struct results_args a = parse(argc, argv, usage_export);
	struct doc d;
	int ret;

	cmd_load_run(a.runs[0], a.store, &d);
	/* json: the document as it was stored or read, fields we do not know included */
	if (a.format == FORMAT_JSON) {
		/* ending in a newline, as --json writes it */
		char *text = NULL;

		if (asprintf(&text, "%s%s", d.text, d.len && d.text[d.len - 1] == '\n' ? "" : "\n") < 0)
			die("out of memory");
		ret = output_file(a.out, text, NULL, NULL);
		free(text);
	} else {
		ret = output_file(a.out, NULL, &d.r, a.format == FORMAT_CSV ? output_csv :
				  a.format == FORMAT_MARKDOWN ? output_markdown : output_prometheus);
	}
	doc_release(&d);
	return ret ? EXIT_FAILED : 0;
}

int cmd_import(int argc, char **argv)
{
	struct results_args a = parse(argc, argv, usage_import);
	struct doc d[CLI_MAX_RUNS];
	char err[512];
	struct store *s;
	int ret = 0;

	/* every document read before anything is recorded: a bad one records none */
	for (int i = 0; i < a.nruns; i++)
		if (doc_read_file(&d[i], a.runs[i], err, sizeof(err)))
			die_usage("%s", err);
	s = open_store(a.store, true);
	for (int i = 0; i < a.nruns; i++) {
		int64_t id;

		/* measured elsewhere: which machine is not known, only its hostname */
		if (!ret && store_record(s, &d[i].r, d[i].text, NULL, &id, err, sizeof(err)))
			ret = error("%s", err);
		else if (!ret)
			printf("%s: recorded as run %lld\n", a.runs[i], (long long)id);
		doc_release(&d[i]);
	}
	store_close(s);
	return ret ? EXIT_FAILED : 0;
}
