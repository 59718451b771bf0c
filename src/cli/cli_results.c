/* Option parsing of history, show, compare, export, import and report (cli_results.h). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_results.h"
#include "cli/values.h"
#include "base/util.h"

#define FAIL(...) do { snprintf(err, errlen, __VA_ARGS__); return -1; } while (0)

/* Which options each command takes, and how many RUN arguments. */
static const struct command {
	const char *name;
	const char *opts;       /* option codes it accepts */
	int min_runs, max_runs;
} commands[] = {
	{ "history", "wtklsb", 0, 0 },
	{ "show", "sc", 1, 1 },
	{ "compare", "Hsc", 2, 2 },
	{ "export", "fos", 1, 1 },
	{ "import", "s", 1, CLI_MAX_RUNS },
	{ "report", "os", 0, CLI_MAX_RUNS },
};

static const struct option options[] = {
	{ "workload", required_argument, NULL, 'w' },
	{ "tracer", required_argument, NULL, 't' },
	{ "kernel", required_argument, NULL, 'k' },
	{ "by", required_argument, NULL, 'b' },
	{ "limit", required_argument, NULL, 'l' },
	{ "store", required_argument, NULL, 's' },
	{ "threshold", required_argument, NULL, 'H' },
	{ "format", required_argument, NULL, 'f' },
	{ "output", required_argument, NULL, 'o' },
	{ "color", required_argument, NULL, 'c' },
	{ "colour", required_argument, NULL, 'c' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static const char *option_name(int c)
{
	for (const struct option *o = options; o->name; o++)
		if (o->val == c)
			return o->name;
	return "?";
}

static const struct command *find_command(const char *name)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

static int parse_option(struct results_args *a, int c, char *err, size_t errlen)
{
	int64_t v;

	switch (c) {
	case 'w': a->workload = optarg; break;
	case 't': a->tracer = optarg; break;
	case 'k': a->kernel = optarg; break;
	case 'b':
		if (!strcmp(optarg, "host")) a->by = BY_HOST;
		else if (!strcmp(optarg, "kernel")) a->by = BY_KERNEL;
		else FAIL("invalid --by '%s' (host, kernel)", optarg);
		break;
	case 'l':
		if (parse_i64(optarg, 1, 1000000, &v))
			FAIL("invalid --limit '%s' (1 to 1000000)", optarg);
		a->limit = (int)v;
		break;
	case 's':
		if (!*optarg)
			FAIL("empty --store path");
		a->store = optarg;
		break;
	case 'H':
		if (cli_parse_pct(optarg, 0, 1000, &a->threshold))
			FAIL("invalid --threshold '%s' (a percentage, 0 to 1000)", optarg);
		break;
	case 'f':
		if (!strcmp(optarg, "csv")) a->format = FORMAT_CSV;
		else if (!strcmp(optarg, "markdown") || !strcmp(optarg, "md")) a->format = FORMAT_MARKDOWN;
		else if (!strcmp(optarg, "json")) a->format = FORMAT_JSON;
		else if (!strcmp(optarg, "prometheus")) a->format = FORMAT_PROMETHEUS;
		else FAIL("invalid --format '%s' (csv, markdown, json, prometheus)", optarg);
		break;
	case 'o':
		if (!*optarg)
			FAIL("empty output path");
		a->out = optarg;
		break;
	case 'c':
		if (cli_parse_colour(optarg, &a->colour, err, errlen))
			return -1;
		break;
	}
	return 0;
}

int cli_parse_results(int argc, char **argv, struct results_args *a, char *err, size_t errlen)
{
	const struct command *cmd;
	int c;

	memset(a, 0, sizeof(*a));
	a->limit = CLI_DEFAULT_LIMIT;
	a->threshold = -1;	/* compare's own default */
	a->colour = -1;
	if (argc < 1 || !(cmd = find_command(argv[0])))
		FAIL("'%s' is not a tracetax command", argc < 1 ? "" : argv[0]);
	a->cmd = cmd->name;
	optind = 0;	/* reset getopt, also for repeated calls in tests */
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":w:t:l:o:h", options, NULL)) != -1) {
		if (c == 'h') {
			a->help = true;
			return 0;
		}
		if (c == ':')
			FAIL("option '%s' needs a value", argv[optind - 1]);
		if (c == '?' && optopt > 0 && optopt < 256)
			FAIL("unknown option '-%c'", optopt);
		if (c == '?')
			FAIL("unknown option '%s'", argv[optind - 1]);
		if (!strchr(cmd->opts, c))
			FAIL("%s takes no --%s", cmd->name, option_name(c));
		if (parse_option(a, c, err, errlen))
			return -1;
	}
	for (; optind < argc; optind++) {
		if (a->nruns == cmd->max_runs)
			FAIL("unexpected argument '%s'", argv[optind]);
		if (!*argv[optind])
			FAIL("empty run argument");
		a->runs[a->nruns++] = argv[optind];
	}
	if (a->by && !a->tracer)
		FAIL("--by needs a tracer (-t TRACER)");
	if (a->nruns < cmd->min_runs)
		FAIL("%s needs %s", cmd->name, cmd->min_runs == 2 ? "two runs, A and B" :
		     cmd->max_runs == 1 ? "a run (an id, last, last~N, or a file)" : "a results document");
	return 0;
}
