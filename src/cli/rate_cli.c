/* Options of `tracetax rate`: strict, one clear line per mistake, as cli.c's. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/lock.h"
#include "base/util.h"
#include "cli/values.h"
#include "load/workloads.h"
#include "measure/rate.h"

#define FAIL(...) do { snprintf(err, len, __VA_ARGS__); return -1; } while (0)

/* The default climb: 1-2-5 a decade, from SYNC's tens a second to what a loop can make. */
static const int64_t default_rates[] = { 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000,
					 50000, 100000, 200000 };

/* "20000", "20k", "1.5k", "1M": events a second. */
static int parse_rate(const char *s, int64_t *out)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s)
		return -1;
	if (*end == 'k' || *end == 'K')
		v *= 1e3, end++;
	else if (*end == 'M' || *end == 'm')
		v *= 1e6, end++;
	if (*end || !(v >= 1 && v <= 1e8))
		return -1;
	*out = (int64_t)(v + 0.5);
	return 0;
}

static int parse_rates(struct rate_args *a, const char *list, char *err, size_t len)
{
	char copy[512], *save = NULL;

	snprintf(copy, sizeof(copy), "%s", list);
	a->nrates = 0;
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		int64_t r;

		if (parse_rate(t, &r))
			FAIL("invalid rate '%s' (events a second: 20000, 20k, 1M)", t);
		if (a->nrates && r <= a->rates[a->nrates - 1])
			FAIL("rates must rise: '%s' after %lld", t, (long long)a->rates[a->nrates - 1]);
		if (a->nrates == RATE_MAX_STEPS)
			FAIL("more than %d rates in '%s'", RATE_MAX_STEPS, list);
		a->rates[a->nrates++] = r;
	}
	if (!a->nrates)
		FAIL("empty --rates list");
	return 0;
}

static int add_tracer(struct rate_args *a, const char *name, char *err, size_t len)
{
	if (a->ntracers == RATE_MAX_TRACERS)
		FAIL("more than %d tracers", RATE_MAX_TRACERS);
	snprintf(a->tracers[a->ntracers++], TT_NAME_MAX, "%s", name);
	return 0;
}

/* A name ending in "/\*" (audit:rule/\*): every variant of the family, in its own order. */
static int parse_tracers(struct rate_args *a, const char *list, char *err, size_t len)
{
	char copy[512], *save = NULL, e[256];

	snprintf(copy, sizeof(copy), "%s", list);
	a->ntracers = 0;
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		size_t n = strlen(t);
		const struct tracer_ops *ops;
		const char *variant;

		if (n > 2 && !strcmp(t + n - 2, "/*")) {
			t[n - 2] = '\0';
			if (!(ops = tracer_ops_find(t, &variant, e, sizeof(e))))
				FAIL("%s", e);
			if (!ops->variants)
				FAIL("tracer '%s' has no variants to expand", t);
			for (int i = 0; ops->variants[i]; i++) {
				char full[TT_NAME_MAX];

				snprintf(full, sizeof(full), "%s/%s", ops->name, ops->variants[i]);
				if (add_tracer(a, full, err, len))
					return -1;
			}
			continue;
		}
		if (!tracer_ops_find(t, &variant, e, sizeof(e)))
			FAIL("%s", e);
		if (add_tracer(a, t, err, len))
			return -1;
	}
	if (!a->ntracers)
		FAIL("empty tracer list");
	return 0;
}

static const struct option rate_opts[] = {
	{ "workload", required_argument, NULL, 'w' },
	{ "tracers", required_argument, NULL, 't' },
	{ "rates", required_argument, NULL, 'r' },
	{ "records", required_argument, NULL, 'n' },
	{ "backlog", required_argument, NULL, 'b' },
	{ "step-ms", required_argument, NULL, 's' },
	{ "all", no_argument, NULL, 'a' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "wait", required_argument, NULL, 'W' },
	{ "no-wait", no_argument, NULL, 'N' },
	{ "accept-audit-residue", no_argument, NULL, 'E' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

int rate_parse(int argc, char **argv, struct rate_args *a, char *err, size_t len)
{
	const struct workload *w;
	int64_t v;
	int c;

	memset(a, 0, sizeof(*a));
	a->workload = "getpid";
	a->step_ms = RATE_STEP_MS_DEFAULT;
	for (size_t i = 0; i < sizeof(default_rates) / sizeof(default_rates[0]); i++)
		a->rates[a->nrates++] = default_rates[i];
	if (cli_wait_default(&a->wait_s, err, len) || parse_tracers(a, "audit:rule/*", err, len))
		return -1;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":w:t:r:n:qh", rate_opts, NULL)) != -1) {
		switch (c) {
		case 'w':
			if (!(w = workload_find(optarg)))
				FAIL("unknown workload '%s' (see 'tracetax list')", optarg);
			if (!w->syscall || w->cmd)
				FAIL("workload '%s' makes no syscall of its own to pace", optarg);
			a->workload = w->name;
			break;
		case 't':
			if (parse_tracers(a, optarg, err, len))
				return -1;
			break;
		case 'r':
			if (parse_rates(a, optarg, err, len))
				return -1;
			break;
		case 'n':
			if (parse_i64(optarg, RATE_RECORDS_MIN, 100000000, &a->records))
				FAIL("invalid --records '%s' (%d to 100000000)", optarg, RATE_RECORDS_MIN);
			break;
		case 'b':
			if (parse_i64(optarg, 1, 1000000, &a->backlog))
				FAIL("invalid --backlog '%s' (1 to 1000000)", optarg);
			break;
		case 's':
			if (parse_i64(optarg, 100, 600000, &v))
				FAIL("invalid --step-ms '%s' (100 to 600000)", optarg);
			a->step_ms = (int)v;
			break;
		case 'a': a->all = true; break;
		case 'q': a->quiet = true; break;
		case 'h': a->help = true; break;
		case 'N': a->wait_s = LOCK_NOWAIT; break;
		case 'E': a->accept_residue = true; break;
		case 'W':
			if (cli_parse_wait(optarg, &a->wait_s, err, len))
				return -1;
			break;
		case ':': FAIL("option '%s' needs a value", argv[optind - 1]);
		default: FAIL("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		FAIL("unexpected argument '%s'", argv[optind]);
	return 0;
}
