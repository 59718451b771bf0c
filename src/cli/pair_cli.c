/* Options of `tracetax pair`: strict, one clear line per mistake, as cli.c's. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/values.h"
#include "base/lock.h"
#include "load/workloads.h"
#include "measure/pair.h"
#include "base/util.h"

#define FAIL(...) do { snprintf(err, len, __VA_ARGS__); return -1; } while (0)

const char *const pair_storage_names[PAIR_NSTORAGE] = { "global", "percpu", "hash", "lock" };
const char *const pair_clock_names[PAIR_NCLOCK] = { "ktime", "boot", "coarse" };
const char *const pair_clock_helpers[PAIR_NCLOCK] = {
	"bpf_ktime_get_ns", "bpf_ktime_get_boot_ns", "bpf_ktime_get_coarse_ns",
};
const char *const pair_kind_names[PAIR_NKIND] = { "enter", "syscall", "func" };

static int index_of(const char *const *names, int n, const char *s)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(names[i], s))
			return i;
	return -1;
}

static int parse_storages(struct pair_args *a, const char *list, char *err, size_t len)
{
	char copy[256], *save = NULL;

	snprintf(copy, sizeof(copy), "%s", list);
	a->nstorages = 0;
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		int s = !strcmp(t, "all") ? -2 : index_of(pair_storage_names, PAIR_NSTORAGE, t);

		if (s == -1)
			FAIL("unknown storage '%s' (global, percpu, hash, lock, all)", t);
		for (int k = s == -2 ? 0 : s; k <= (s == -2 ? PAIR_NSTORAGE - 1 : s); k++) {
			bool dup = false;

			for (int i = 0; i < a->nstorages; i++)
				dup |= a->storages[i] == k;
			if (!dup)
				a->storages[a->nstorages++] = k;
		}
	}
	if (!a->nstorages)
		FAIL("empty storage list");
	return 0;
}

int pair_parse(int argc, char **argv, struct pair_args *a, char *err, size_t len)
{
	static const struct option opts[] = {
		{ "workload", required_argument, NULL, 'w' },
		{ "pair", required_argument, NULL, 'p' },
		{ "storage", required_argument, NULL, 's' },
		{ "threads", required_argument, NULL, 'T' },
		{ "clock", required_argument, NULL, 'c' },
		{ "iterations", required_argument, NULL, 'n' },
		{ "json", required_argument, NULL, 'j' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "wait", required_argument, NULL, 'W' },
		{ "no-wait", no_argument, NULL, 'N' },
		{ "kernel", required_argument, NULL, 'K' },
		{ "kernel-modules", required_argument, NULL, 'Y' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const struct workload *w;
	int c, i, have_threads = 0;

	memset(a, 0, sizeof(*a));
	a->argc = argc;
	a->argv = argv;
	a->workload = "getpid";
	a->iterations = 200000;
	if ((a->wait_s = lock_wait_default()) < 0)
		FAIL("invalid " TT_WAIT_ENV " '%s' (0 to %d seconds)", getenv(TT_WAIT_ENV),
		     LOCK_WAIT_MAX_S);
	a->threads[a->nthreads++] = 1;
	for (i = 0; i < PAIR_NSTORAGE; i++)
		a->storages[a->nstorages++] = i;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":w:p:s:T:n:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'w':
			if (!(w = workload_find(optarg)))
				FAIL("unknown workload '%s' (see 'tracetax list')", optarg);
			if (!w->syscall)
				FAIL("workload '%s' makes no syscall to pair probes on", optarg);
			a->workload = w->name;
			break;
		case 'p':
			if ((i = index_of(pair_kind_names, PAIR_NKIND, optarg)) < 0)
				FAIL("unknown pair '%s' (enter, syscall, func)", optarg);
			a->kind = (enum pair_kind)i;
			break;
		case 's': if (parse_storages(a, optarg, err, len)) return -1; break;
		case 'T':	/* adds up when repeated, as run's does */
			if (!have_threads++)
				a->nthreads = 0;
			if (cli_parse_threads(optarg, a->threads, PAIR_MAX, &a->nthreads, err, len))
				return -1;
			break;
		case 'c':
			if ((i = index_of(pair_clock_names, PAIR_NCLOCK, optarg)) < 0)
				FAIL("unknown clock '%s' (ktime, boot, coarse)", optarg);
			a->clock = (enum pair_clock)i;
			break;
		case 'n':
			if (parse_i64(optarg, 1, 1000000000, &a->iterations))
				FAIL("invalid --iterations '%s' (1 to 1000000000)", optarg);
			break;
		case 'j':
			if (!*optarg)
				FAIL("empty --json path");
			a->json_path = optarg;
			break;
		case 'q': a->quiet = true; break;
		case 'W': {
			int64_t v;

			if (parse_i64(optarg, 0, LOCK_WAIT_MAX_S, &v))
				FAIL("invalid --wait '%s' (0 to %d seconds)", optarg, LOCK_WAIT_MAX_S);
			a->wait_s = (int)v;
			break;
		}
		case 'N': a->wait_s = LOCK_NOWAIT; break;
		case 'K': if (!*optarg) FAIL("empty --kernel path"); a->kernel = optarg; break;
		case 'Y':
			if (!*optarg) FAIL("empty --kernel-modules path");
			a->kernel_modules = optarg;
			break;
		case 'h': a->help = true; return 0;
		case ':': FAIL("option '%s' needs a value", argv[optind - 1]);
		default: FAIL("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		FAIL("unexpected argument '%s'", argv[optind]);
	if (a->kernel_modules && !a->kernel)
		FAIL("--kernel-modules is for --kernel: give both");
	return 0;
}
