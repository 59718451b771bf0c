/*
 * tracetax budget --attached: what the tracing already attached to this box
 * takes now, and whose it is. Every tracing consumer is found read-only
 * (base/attached.c), its events counted over --for seconds
 * (measure/attached.c), then listed per consumer and per owner.
 * docs/budget.md, "What is attached".
 *
 * -t with --attached is a usage error: -t asks what a tracer would cost if
 * attached, --attached what is attached; a combined view would add a
 * prediction to a measurement of something else.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/atomic_file.h"
#include "base/signals.h"
#include "base/util.h"
#include "cmd/cmd.h"
#include "doc/attached.h"
#include "measure/attached.h"
#include "measure/env.h"
#include "output/attached.h"

static const char usage_attached[] =
	"usage: tracetax budget --attached [options]\n"
	"\n"
	"What the tracing already attached to this box takes now: every BPF\n"
	"program, ftrace buffer, perf event, ptrace or seccomp supervisor and\n"
	"audit rule, its events over a window, per consumer and per owner\n"
	"(docs/budget.md, \"What is attached\"). Read only; needs root.\n"
	"\n"
	"      --attached          this view (-t is then a usage error)\n"
	"      --for SECONDS       count events for this long; default 5\n"
	"      --json FILE         write the attached document; '-': to stdout\n"
	"  -q, --quiet             no progress lines\n";

struct attached_args {
	int seconds;
	const char *json;
	bool quiet;
};

static void parse(int argc, char **argv, struct attached_args *a)
{
	static const struct option opts[] = {
		{ "attached", no_argument, NULL, 'A' },
		{ "for", required_argument, NULL, 'f' },
		{ "json", required_argument, NULL, 'j' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "tracer", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;
	int64_t v;

	memset(a, 0, sizeof(*a));
	a->seconds = 5;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":t:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'A': break;
		case 'f':
			if (parse_i64(optarg, 1, 3600, &v))
				die_usage("invalid --for '%s' (1 to 3600)", optarg);
			a->seconds = (int)v;
			break;
		case 'j': a->json = optarg; break;
		case 'q': a->quiet = true; break;
		case 't':
			die_usage("--attached measures what is attached: -t '%s' asks what a tracer "
				  "would cost (run them apart)", optarg);
		case 'h': fputs(usage_attached, stdout); exit(0);
		case ':': cmd_die_usage("option needs a value", "tracetax budget --help");
		default: cmd_die_usage("option not taken with --attached", "tracetax budget --help");
		}
	}
	if (optind < argc)
		die_usage("unexpected argument '%s'", argv[optind]);
}

static int emit_json(FILE *f, void *arg)
{
	return fputs(arg, f) < 0 || fputc('\n', f) < 0 ? -1 : 0;
}

int cmd_budget_attached(int argc, char **argv)
{
	struct attached_args a;
	struct attached at;
	struct environment env;
	struct attached_opts o;
	char err[512];
	int ret;

	parse(argc, argv, &a);
	if (geteuid() != 0) {
		error("budget --attached needs root: other processes' fds, BPF programs and their "
		      "stats, tracefs and audit are root's to read");
		return EXIT_FAILED;
	}
	if (a.json && atomic_file_check(a.json, err, sizeof(err)))
		die_usage("%s", err);
	cmd_signals_once();
	cmd_take_lock(cmd_wait_default());
	environment_collect(&env);
	o = (struct attached_opts){ .seconds = a.seconds };
	if (!a.quiet)
		fprintf(stderr, "counting the attached consumers' events for %d s...\n", a.seconds);
	ret = attached_measure(&o, &at, err, sizeof(err));
	if (ret >= 128) {
		error("interrupted by signal %d: BPF stats off again, no results", ret - 128);
		goto out;
	}
	if (ret) {
		error("%s", err);
		ret = EXIT_FAILED;
		goto out;
	}
	if (!a.json || strcmp(a.json, "-"))
		output_attached(&at, stdout);
	if (a.json) {
		char *text = attached_json_string(&at, &env);

		if (!strcmp(a.json, "-"))
			ret = emit_json(stdout, text) ? EXIT_FAILED : 0;
		else if (atomic_file_write(a.json, emit_json, text))
			ret = EXIT_FAILED;
		free(text);
	}
out:
	attached_release(&at);
	signals_reraise();
	return ret;
}
