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

static const struct option pair_opts[] = {
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

static int pair_defaults(int argc, char **argv, struct pair_args *a, char *err, size_t len)
{
	memset(a, 0, sizeof(*a));
	a->argc = argc;
	a->argv = argv;
	a->workload = "getpid";
	a->iterations = 200000;
	if (cli_wait_default(&a->wait_s, err, len))
		return -1;
	a->threads[a->nthreads++] = 1;
	for (int i = 0; i < PAIR_NSTORAGE; i++)
		a->storages[a->nstorages++] = i;
	return 0;
}

/* One option; 1 when @c is none of pair's. @threads: -T seen (it replaces the default once). */
static int pair_option(int c, const char *arg, struct pair_args *a, bool *threads, char *err,
		       size_t len)
{
	const struct workload *w;
	int i;

	switch (c) {
	case 'w':
		if (!(w = workload_find(arg)))
			FAIL("unknown workload '%s' (see 'tracetax list')", arg);
		if (!w->syscall)
			FAIL("workload '%s' makes no syscall to pair probes on", arg);
		a->workload = w->name;
		return 0;
	case 'p':
		if ((i = index_of(pair_kind_names, PAIR_NKIND, arg)) < 0)
			FAIL("unknown pair '%s' (enter, syscall, func)", arg);
		a->kind = (enum pair_kind)i;
		return 0;
	case 's': return parse_storages(a, arg, err, len);
	case 'T':	/* adds up when repeated, as run's does */
		if (!*threads)
			a->nthreads = 0;
		*threads = true;
		return cli_parse_threads(arg, a->threads, PAIR_MAX, &a->nthreads, err, len);
	case 'c':
		if ((i = index_of(pair_clock_names, PAIR_NCLOCK, arg)) < 0)
			FAIL("unknown clock '%s' (ktime, boot, coarse)", arg);
		a->clock = (enum pair_clock)i;
		return 0;
	case 'n':
		if (parse_i64(arg, 1, 1000000000, &a->iterations))
			FAIL("invalid --iterations '%s' (1 to 1000000000)", arg);
		return 0;
	case 'q': a->quiet = true; return 0;
	case 'N': a->wait_s = LOCK_NOWAIT; return 0;
	case 'W': return cli_parse_wait(arg, &a->wait_s, err, len);
	case 'j': return cli_path("--json", "path", arg, &a->json_path, err, len);
	case 'K': return cli_path("--kernel", "path", arg, &a->kernel, err, len);
	case 'Y': return cli_path("--kernel-modules", "path", arg, &a->kernel_modules, err, len);
	}
	return 1;
}

int pair_parse(int argc, char **argv, struct pair_args *a, char *err, size_t len)
{
	bool threads = false;
	int c, rc;

	if (pair_defaults(argc, argv, a, err, len))
		return -1;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":w:p:s:T:n:qh", pair_opts, NULL)) != -1) {
		if (c == 'h') {
			a->help = true;
			return 0;
		}
		if (c == ':')
			FAIL("option '%s' needs a value", argv[optind - 1]);
		if ((rc = pair_option(c, optarg, a, &threads, err, len)) < 0)
			return -1;
		if (rc > 0)
			FAIL("unknown option '%s'", argv[optind - 1]);
	}
	if (optind < argc)
		FAIL("unexpected argument '%s'", argv[optind]);
	if (a->kernel_modules && !a->kernel)
		FAIL("--kernel-modules is for --kernel: give both");
	return 0;
}
