/*
 * tracetax experiment list | show NAME | run NAME, and run --plan FILE:
 * a plan file's runs and pairs one after the other, each printed as its
 * command prints it, then the claims of the thread beside today's figures.
 */
#include <dirent.h>
#include <glob.h>
#include <libgen.h>
#include <math.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/claims.h"
#include "cmd/experiment.h"
#include "cli/planfile.h"
#include "base/signals.h"
#include "base/util.h"
#include "cmd/session.h"
#include "output/claims.h"
#include "output/kernels.h"

static const char usage_experiment[] =
	"usage: tracetax experiment list\n"
	"       tracetax experiment show NAME|FILE\n"
	"       tracetax experiment run NAME|FILE [run options]\n"
	"\n"
	"The experiments of the threads tracetax grew from, each a plan file\n"
	"(docs/experiments.md): list names them, show prints what each reproduces,\n"
	"its runs as command lines, its notes and claims; run measures them and\n"
	"prints each run's table, then the claims table: the original figure,\n"
	"today's (with its 95% CI where there is one) and their ratio. Options of\n"
	"'tracetax run' after NAME override the plan's fields in every run (a -t,\n"
	"-w or -T replaces the plan's list); -T, -n and -q also reach its pairs,\n"
	"and -q quiets the experiment's header and its runs' command lines.\n"
	"--json FILE: each run's document, FILE for the first, FILE.NAME for the\n"
	"others, with its claims. Plans are read from $TRACETAX_EXPERIMENTS, else\n"
	"../experiments or ../share/tracetax/experiments beside the binary.\n";

/* The shipped plans: beside the build (build/../experiments) or installed. */
static const char *experiments_dir(void)
{
	static char dir[PATH_MAX];
	static const char *const rel[] = { "/../experiments", "/../share/tracetax/experiments" };
	const char *env = getenv("TRACETAX_EXPERIMENTS");
	char exe[PATH_MAX];
	ssize_t n;

	if (env && *env)
		return env;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n < 0)
		die("cannot find own executable: readlink /proc/self/exe failed");
	exe[n] = '\0';
	for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
		char *d = strdup(exe), rp[PATH_MAX];

		snprintf(dir, sizeof(dir), "%s%s", dirname(d), rel[i]);
		free(d);
		if (realpath(dir, rp) && !access(rp, R_OK)) {
			snprintf(dir, sizeof(dir), "%s", rp);
			return dir;
		}
	}
	die("cannot find the experiments beside '%s' (set TRACETAX_EXPERIMENTS)", exe);
}

/* NAME of a shipped experiment, or the path of a plan file. */
static void load_plan(const char *spec, struct planfile *pf)
{
	char path[PATH_MAX], err[512];

	if (strchr(spec, '/') || !access(spec, R_OK))
		snprintf(path, sizeof(path), "%s", spec);
	else {
		snprintf(path, sizeof(path), "%s/%s.tt", experiments_dir(), spec);
		if (access(path, R_OK))
			die_usage("no experiment '%s' (see 'tracetax experiment list')", spec);
	}
	if (planfile_load(path, pf, err, sizeof(err)))
		die_usage("%s", err);
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int experiment_list(void)
{
	const char *dir = experiments_dir();
	struct dirent **ents;
	int n = scandir(dir, &ents, NULL, by_name), ret = 0;

	if (n < 0)
		die("cannot read '%s'", dir);
	for (int i = 0; i < n; i++) {
		const char *d = ents[i]->d_name;
		size_t l = strlen(d);
		struct planfile pf;
		char path[PATH_MAX], err[512];

		if (l > 3 && !strcmp(d + l - 3, ".tt")) {
			snprintf(path, sizeof(path), "%s/%s", dir, d);
			if (planfile_load(path, &pf, err, sizeof(err))) {
				error("%s", err);
				ret = 1;
			} else {
				printf("%-14s %s\n%-14s reproduces %s\n", pf.name, pf.title, "",
				       pf.reproduces);
				planfile_release(&pf);
			}
		}
		free(ents[i]);
	}
	free(ents);
	return ret;
}

/* A section as the command line that does the same, the command line's @extra included. */
static void print_section(const struct planfile *pf, int i, int nextra, char **extra, FILE *f)
{
	const struct pf_section *s = &pf->sections[i];
	int argc;
	char **argv = planfile_argv(pf, i, nextra, extra, &argc);

	fprintf(f, "[%s%s%s]", s->kind == PF_RUN ? "run" : "pair", s->name[0] ? " " : "", s->name);
	for (int j = 0; j < s->nenv; j++)
		fprintf(f, " %s", s->env[j]);
	fprintf(f, " tracetax");
	for (int j = 0; j < argc; j++)
		fprintf(f, strpbrk(argv[j], " '*") ? " '%s'" : " %s", argv[j]);
	fputc('\n', f);
	free(argv);
}

static void print_header(const struct planfile *pf, FILE *f)
{
	fprintf(f, "experiment %s: %s\nreproduces %s: %s\n", pf->name, pf->title, pf->reproduces,
		pf->source);
	for (int i = 0; i < pf->nnotes; i++)
		fprintf(f, "note: %s\n", pf->notes[i]);
}

static int experiment_show(const char *spec)
{
	struct planfile pf;

	load_plan(spec, &pf);
	print_header(&pf, stdout);
	for (int i = 0; i < pf.nsections; i++)
		print_section(&pf, i, 0, NULL, stdout);
	for (int i = 0; i < pf.nclaims; i++) {
		const struct pf_claim *c = &pf.claims[i];

		printf("claim: %s: %g %s (%s) against %s of %s%s%s\n", c->text, c->was, c->unit,
		       c->source, pf_field_names[c->field], c->ntracers ? c->tracers[0] : c->storage,
		       c->vs[0] ? " / " : "", c->vs);
	}
	planfile_release(&pf);
	return 0;
}

struct exp_ctx {
	const struct planfile *pf;
	int sec;
	struct claim_row *rows;                   /* every claim, by index */
	struct claim_row sec_rows[PF_MAX_CLAIMS]; /* this run's, for its document */
	char vm[16];                              /* a run's in a VM of --kernel: its accel */
	char unit[16];                            /* and its unit: "ns", "instructions" */
	/* kernels = each: the kernel this run is on, and every cell of every kernel's runs */
	int kernel;
	struct kernel_col *kcols;
	struct kernel_cell *kcells;
	int nkcells, kcap;
};

static void keep_kernel_cells(struct exp_ctx *x, const struct results *r)
{
	struct kernel_col *col = &x->kcols[x->kernel];

	snprintf(col->release, sizeof(col->release), "%s", r->env.kernel);
	snprintf(col->unit, sizeof(col->unit), "%s", results_unit(&r->env));
	for (int i = 0; i < r->ncells; i++) {
		const struct cell *c = &r->cells[i];
		struct kernel_cell *k;

		if (x->nkcells == x->kcap) {
			x->kcap = x->kcap ? 2 * x->kcap : 64;
			x->kcells = realloc(x->kcells, x->kcap * sizeof(*x->kcells));
			if (!x->kcells)
				die("out of memory");
		}
		k = &x->kcells[x->nkcells++];
		memset(k, 0, sizeof(*k));
		k->kernel = x->kernel;
		snprintf(k->tracer, sizeof(k->tracer), "%s", c->tracer);
		snprintf(k->workload, sizeof(k->workload), "%s", c->workload);
		k->threads = c->threads;
		k->status = c->status;
		snprintf(k->reason, sizeof(k->reason), "%s", c->reason);
		k->mean = c->status == CELL_OK ? c->overhead.mean : NAN;
		k->lo = c->status == CELL_OK ? c->overhead.ci95[0] : NAN;
		k->hi = c->status == CELL_OK ? c->overhead.ci95[1] : NAN;
	}
}

static void run_hook_fn(struct results *r, void *arg)
{
	struct exp_ctx *x = arg;
	int n = 0;

	claims_from_run(x->pf, x->sec, r, x->rows);
	if (x->kcols)
		keep_kernel_cells(x, r);
	if (r->env.vm[0])
		snprintf(x->vm, sizeof(x->vm), "%s", r->env.vm);
	snprintf(x->unit, sizeof(x->unit), "%s", results_unit(&r->env));
	for (int i = 0; i < x->pf->nclaims; i++)
		if (x->pf->claims[i].section == x->sec)
			x->sec_rows[n++] = x->rows[i];
	r->claims = x->sec_rows;
	r->nclaims = n;
}

static void pair_hook_fn(const struct pair_results *r, void *arg)
{
	struct exp_ctx *x = arg;

	claims_from_pair(x->pf, x->sec, r, x->rows);
}

/* The options a pair takes from the command line: -T, -n, -q, --kernel; the rest are the runs'. */
static int pair_extras(int n, char **in, char **out)
{
	int m = 0;

	for (int i = 0; i < n; i++) {
		const char *o = in[i];
		bool val = !strcmp(o, "-T") || !strcmp(o, "--threads") || !strcmp(o, "-n") ||
			   !strcmp(o, "--iterations") || !strcmp(o, "--kernel") ||
			   !strcmp(o, "--kernel-modules");

		if (val && i + 1 < n) {
			out[m++] = in[i];
			out[m++] = in[++i];
		} else if (!strcmp(o, "-q") || !strcmp(o, "--quiet") ||
			   !strncmp(o, "--kernel=", 9) || !strncmp(o, "--kernel-modules=", 17))
			out[m++] = in[i];
		else if (*o == '-' && !strchr(o, '=') && i + 1 < n && in[i + 1][0] != '-')
			i++;	/* a run's option and its value */
	}
	return m;
}

/* Env of a section, set for its measurement alone. */
static void section_env(const struct pf_section *s, char *saved[PF_MAX_ENV], bool set)
{
	for (int i = 0; i < s->nenv; i++) {
		char name[64];
		const char *eq = strchr(s->env[i], '=');

		snprintf(name, sizeof(name), "%.*s", (int)(eq - s->env[i]), s->env[i]);
		if (set) {
			const char *old = getenv(name);

			saved[i] = old ? strdup(old) : NULL;
			setenv(name, eq + 1, 1);
		} else {
			if (saved[i])
				setenv(name, saved[i], 1);
			else
				unsetenv(name);
			free(saved[i]);
		}
	}
}

/* --json FILE for section @i: FILE for the first, FILE.NAME (or FILE.N) for the others. */
static char *json_for(const struct planfile *pf, const char *json, int i)
{
	char *p;

	if (!json)
		return NULL;
	if (!i)
		return strdup(json);
	if (pf->sections[i].name[0] && asprintf(&p, "%s.%s", json, pf->sections[i].name) >= 0)
		return p;
	if (asprintf(&p, "%s.%d", json, i + 1) >= 0)
		return p;
	die("out of memory");
}

static int run_section(struct exp_ctx *x, int nextra, char **extra, const char *json, bool quiet)
{
	const struct pf_section *s = &x->pf->sections[x->sec];
	char *jpath = json_for(x->pf, json, x->sec), err[256];
	char **mine = calloc(nextra + 3, sizeof(*mine)), **argv, *saved[PF_MAX_ENV];
	int n = s->kind == PF_RUN ? nextra : pair_extras(nextra, extra, mine), argc, ret;

	if (!mine)
		die("out of memory");
	if (s->kind == PF_RUN)
		memcpy(mine, extra, nextra * sizeof(*mine));
	if (jpath) {
		mine[n++] = "--json";
		mine[n++] = jpath;
	}
	argv = planfile_argv(x->pf, x->sec, n, mine, &argc);
	if (!quiet) {
		putchar('\n');
		print_section(x->pf, x->sec, n, mine, stdout);
		fflush(stdout);
	}
	section_env(s, saved, true);
	if (s->kind == PF_RUN) {
		struct run_args a;

		if (cli_parse_run(argc, argv, &a, err, sizeof(err)))
			die_usage("%s: [run %s]: %s", x->pf->path, s->name, err);
		ret = a.help ? 0 : run_measure(&a, run_hook_fn, x);
		cli_release(&a);
	} else {
		struct pair_args a;

		if (pair_parse(argc, argv, &a, err, sizeof(err)))
			die_usage("%s: [pair %s]: %s", x->pf->path, s->name, err);
		ret = pair_measure(&a, pair_hook_fn, x);
		/* a pair in a VM prints its table; its figures are not read back */
		for (int i = 0; a.kernel && i < x->pf->nclaims; i++)
			if (x->pf->claims[i].section == x->sec)
				claims_missing(x->pf, i, "the pair ran in a VM (--kernel): its figures "
					       "are in its table above", &x->rows[i]);
	}
	section_env(s, saved, false);
	free(argv);
	free(mine);
	free(jpath);
	return ret;
}

static void print_claims(const struct planfile *pf, const struct exp_ctx *x, FILE *f)
{
	claims_print(x->rows, pf->nclaims, f);
	if (!strcmp(x->vm, "tcg") && !strcmp(x->unit, "instructions"))
		fprintf(f, "today: in a VM under tcg with -icount: the figures are instructions, the "
			"ratios of path lengths, not of cycles (a claim in ns/event: not comparable)\n");
	else if (!strcmp(x->vm, "tcg"))
		fprintf(f, "today: in a VM under tcg, an emulated CPU: the ns are not costs, the "
			"ratios not the hardware's\n");
}

static int by_version(const void *a, const void *b)
{
	return strverscmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The kernels of a plan of `kernels = each`: the command line's --kernel
 * (repeatable), taken out of @rest; else those `make debian-kernels`
 * unpacked beside the binary (build/kernel/RELEASE/boot/vmlinuz-RELEASE),
 * in version order. Their number; @out malloc'd, its strings too.
 */
static int plan_kernels(char **rest, int *n, char ***out)
{
	char **k = calloc(*n + 1, sizeof(*k)), exe[PATH_MAX], pat[PATH_MAX + 40];
	int nk = 0, m = 0;
	ssize_t len;
	glob_t g;

	if (!k)
		die("out of memory");
	for (int i = 0; i < *n; i++) {
		if (!strcmp(rest[i], "--kernel") && i + 1 < *n)
			k[nk++] = strdup(rest[++i]);
		else if (!strncmp(rest[i], "--kernel=", 9))
			k[nk++] = strdup(rest[i] + 9);
		else
			rest[m++] = rest[i];
	}
	*n = m;
	if (!nk && (len = readlink("/proc/self/exe", exe, sizeof(exe) - 1)) > 0) {
		exe[len] = '\0';
		snprintf(pat, sizeof(pat), "%s/kernel/*/boot/vmlinuz-*", dirname(exe));
		if (!glob(pat, 0, NULL, &g)) {
			free(k);
			if (!(k = calloc(g.gl_pathc + 1, sizeof(*k))))
				die("out of memory");
			for (size_t i = 0; i < g.gl_pathc; i++)
				k[nk++] = strdup(g.gl_pathv[i]);
			globfree(&g);
		}
	}
	qsort(k, nk, sizeof(*k), by_version);
	*out = k;
	return nk;
}

/* kernels = each: every section on every kernel, each kernel's claims, then one table. */
static int run_kernels(struct planfile *pf, struct exp_ctx *x, int n, char **rest,
		       const char *json, bool quiet)
{
	char **kernels, **extra = calloc(n + 3, sizeof(*extra));
	int nk = plan_kernels(rest, &n, &kernels), ret = 0;

	if (!extra)
		die("out of memory");
	if (!nk)
		die_usage("experiment '%s' runs on kernels: give --kernel IMAGE (repeatable), or "
			  "fetch Debian's with 'make debian-kernels'", pf->name);
	if (!(x->kcols = calloc(nk, sizeof(*x->kcols))))
		die("out of memory");
	memcpy(extra, rest, n * sizeof(*extra));
	extra[n] = "--kernel";
	if (!quiet)
		print_header(pf, stdout);
	for (x->kernel = 0; x->kernel < nk && ret < 128; x->kernel++) {
		const char *img = kernels[x->kernel], *v = strstr(img, "vmlinuz-");
		char *jk = NULL;

		/* a kernel whose VM did not run keeps the image's name */
		snprintf(x->kcols[x->kernel].release, sizeof(x->kcols[0].release), "%s",
			 v ? v + 8 : img);
		if (json && x->kernel && asprintf(&jk, "%s.%s", json, x->kcols[x->kernel].release) < 0)
			die("out of memory");
		extra[n + 1] = (char *)img;
		for (int i = 0; i < pf->nclaims; i++)
			claims_missing(pf, i, "its run did not finish", &x->rows[i]);
		if (!quiet)
			printf("\n== kernel %s ==\n", x->kcols[x->kernel].release);
		for (x->sec = 0; x->sec < pf->nsections; x->sec++) {
			int r = run_section(x, n + 2, extra, jk ? jk : json, quiet);

			if (r >= 128) {
				ret = r;
				break;
			}
			ret = exit_worst(ret, r);
		}
		if (pf->nclaims && ret < 128) {
			printf("\nclaims on %s:\n", x->kcols[x->kernel].release);
			print_claims(pf, x, stdout);
		}
		free(jk);
	}
	if (ret < 128 && x->nkcells)
		output_kernels(stdout, x->kcols, nk, x->kcells, x->nkcells);
	for (int i = 0; i < nk; i++)
		free(kernels[i]);
	free(kernels);
	free(extra);
	free(x->kcols);
	free(x->kcells);
	free(x->rows);
	free(rest);
	planfile_release(pf);
	signals_reraise();
	return ret;
}

/* Runs every section of @pf with the command line's @extra options; the exit code. */
static int run_plan(struct planfile *pf, int nextra, char **extra)
{
	struct exp_ctx x = { .pf = pf };
	const char *json = NULL;
	char **rest = calloc(nextra + 1, sizeof(*rest));
	int n = 0, ret = 0;
	bool quiet = false, to_stdout = false;

	if (!rest || !(x.rows = calloc(pf->nclaims + 1, sizeof(*x.rows))))
		die("out of memory");
	for (int i = 0; i < nextra; i++) {
		if (!strcmp(extra[i], "--json") && i + 1 < nextra)
			json = extra[++i];
		else if (!strncmp(extra[i], "--json=", 7))
			json = extra[i] + 7;
		else if (!strcmp(extra[i], "-h") || !strcmp(extra[i], "--help")) {
			fputs(usage_experiment, stdout);
			free(x.rows);
			free(rest);
			planfile_release(pf);
			return 0;
		} else {
			/* the runs' own --quiet: the header and command lines go quiet with it */
			quiet |= !strcmp(extra[i], "-q") || !strcmp(extra[i], "--quiet");
			rest[n++] = extra[i];
		}
	}
	if (json && !strcmp(json, "-")) {
		if (pf->nsections > 1)
			die_usage("--json -: experiment '%s' has %d runs, one document each: give a "
				  "file", pf->name, pf->nsections);
		quiet = to_stdout = true;
	}
	if (pf->per_kernel)
		return run_kernels(pf, &x, n, rest, json, quiet);
	for (int i = 0; i < pf->nclaims; i++)
		claims_missing(pf, i, "its run did not finish", &x.rows[i]);
	if (!quiet)
		print_header(pf, stdout);
	for (x.sec = 0; x.sec < pf->nsections; x.sec++) {
		int r = run_section(&x, n, rest, json, quiet);

		if (r >= 128) {
			ret = r;
			break;
		}
		ret = exit_worst(ret, r);
	}
	if (pf->nclaims && ret < 128)
		print_claims(pf, &x, to_stdout ? stderr : stdout);
	free(x.rows);
	free(rest);
	planfile_release(pf);
	signals_reraise();
	return ret;
}

int experiment_run_plan(int argc, char **argv, int at)
{
	const char *path = !strcmp(argv[at], "--plan") ? (at + 1 < argc ? argv[at + 1] : NULL) :
			   argv[at] + 7;
	int skip = !strcmp(argv[at], "--plan") ? 2 : 1, n = 0;
	char **extra = calloc(argc + 1, sizeof(*extra));
	struct planfile pf;
	char err[512];

	if (!path || !*path)
		die_usage("option '--plan' needs a value (see 'tracetax run --help')");
	if (!extra)
		die("out of memory");
	for (int i = 1; i < argc; i++)
		if (i < at || i >= at + skip)
			extra[n++] = argv[i];
	int ret;

	if (planfile_load(path, &pf, err, sizeof(err)))
		die_usage("%s", err);
	ret = run_plan(&pf, n, extra);
	free(extra);
	return ret;
}

int cmd_experiment(int argc, char **argv)
{
	const char *sub = argc > 1 ? argv[1] : NULL;
	struct planfile pf;

	if (!sub || !strcmp(sub, "-h") || !strcmp(sub, "--help")) {
		fputs(usage_experiment, sub ? stdout : stderr);
		return sub ? 0 : 2;
	}
	if (!strcmp(sub, "list")) {
		if (argc > 2)
			die_usage("unexpected argument '%s' (see 'tracetax experiment --help')", argv[2]);
		return experiment_list();
	}
	if (strcmp(sub, "show") && strcmp(sub, "run"))
		die_usage("unknown experiment command '%s' (list, show, run)", sub);
	if (argc < 3 || argv[2][0] == '-')
		die_usage("experiment %s needs a NAME (see 'tracetax experiment list')", sub);
	if (!strcmp(sub, "show")) {
		if (argc > 3)
			die_usage("unexpected argument '%s' (see 'tracetax experiment --help')", argv[3]);
		return experiment_show(argv[2]);
	}
	load_plan(argv[2], &pf);
	return run_plan(&pf, argc - 3, argv + 3);
}
