/*
 * tracetax history -t TRACER --by host|kernel: one tracer's overhead per
 * host or per kernel, from the runs in the store: the teams' question of
 * what a tracer costs across a fleet.
 *
 * Per (host or kernel, tracer, workload, threads): with one run, that
 * run's mean and its own 95% CI; with several, the mean of the runs' means
 * and a Student's t interval over them: between runs the machine itself
 * varies (a reboot, a neighbour), which no run's own interval holds.
 * The cells are those that stand for their host's cost (store/stand.h);
 * a VM guest's stand for that VM's, a row of its own.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "cli/cli_results.h"
#include "cmd/cmd.h"
#include "results/stats.h"
#include "store/stand.h"
#include "store/store.h"

struct group {
	char key[160], tracer[64], workload[256];
	int threads;
	double *means, lo1, hi1;    /* lo1, hi1: the first run's own interval */
	int64_t *ids;
	int n, cap;
};

struct groups {
	enum history_by by;
	struct group *g;
	int n, cap;
};

/*
 * A host: its name and, for a run measured here or by another tracetax, its
 * id's hash; a run in a VM of --kernel is that VM's, not the host's (under
 * tcg its ns are not the host's costs), and a kernel's row says so too.
 */
static void key_of(enum history_by by, const struct stand_cell *c, char *buf, size_t len)
{
	char vm[32] = "";

	if (*c->vm)
		snprintf(vm, sizeof(vm), " [%s VM]", c->vm);
	if (by == BY_KERNEL)
		snprintf(buf, len, "%s%s", c->kernel, vm);
	else if (*c->host_id)
		snprintf(buf, len, "%s (%.8s)%s", c->hostname, c->host_id, vm);
	else
		snprintf(buf, len, "%s (imported)%s", c->hostname, vm);
}

static struct group *find(struct groups *gs, const char *key, const struct stand_cell *c)
{
	struct group *g;

	for (int i = 0; i < gs->n; i++) {
		g = &gs->g[i];
		if (!strcmp(g->key, key) && !strcmp(g->tracer, c->tracer) &&
		    !strcmp(g->workload, c->workload) && g->threads == c->threads)
			return g;
	}
	if (gs->n == gs->cap) {
		gs->cap = gs->cap ? 2 * gs->cap : 8;
		gs->g = realloc(gs->g, (size_t)gs->cap * sizeof(*gs->g));
		if (!gs->g)
			die("out of memory");
	}
	g = &gs->g[gs->n++];
	memset(g, 0, sizeof(*g));
	snprintf(g->key, sizeof(g->key), "%s", key);
	snprintf(g->tracer, sizeof(g->tracer), "%s", c->tracer);
	snprintf(g->workload, sizeof(g->workload), "%s", c->workload);
	g->threads = c->threads;
	return g;
}

static int collect(const struct stand_cell *c, void *arg)
{
	struct groups *gs = arg;
	struct group *g;
	char key[160];

	key_of(gs->by, c, key, sizeof(key));
	g = find(gs, key, c);
	if (g->n == g->cap) {
		g->cap = g->cap ? 2 * g->cap : 4;
		g->means = realloc(g->means, (size_t)g->cap * sizeof(*g->means));
		g->ids = realloc(g->ids, (size_t)g->cap * sizeof(*g->ids));
		if (!g->means || !g->ids)
			die("out of memory");
	}
	if (!g->n) {
		g->lo1 = c->lo;
		g->hi1 = c->hi;
	}
	g->means[g->n] = c->ns;
	g->ids[g->n++] = c->run_id;
	return 0;
}

static void print_group(const struct group *g, int kw)
{
	char m[24], lo[24], hi[24], mn[24], mx[24], ids[96], fig[80], range[56];
	double mean = stats_mean(g->means, (size_t)g->n), ci[2] = { g->lo1, g->hi1 };
	double min = g->means[0], max = g->means[0];
	size_t o = 0;

	if (g->n > 1)
		stats_t_ci(g->means, (size_t)g->n, 0.95, ci);
	/* the walk went newest first: the ids oldest first */
	for (int i = g->n - 1; i >= 0; i--) {
		min = fmin(min, g->means[i]);
		max = fmax(max, g->means[i]);
		if (o < sizeof(ids) - 8)
			o += (size_t)snprintf(ids + o, sizeof(ids) - o, "%s%lld", o ? "," : "",
					      (long long)g->ids[i]);
		else if (o < sizeof(ids) - 4)
			o += (size_t)snprintf(ids + o, sizeof(ids) - o, ",...");
	}
	format_ns(m, sizeof(m), mean);
	format_ns(lo, sizeof(lo), ci[0]);
	format_ns(hi, sizeof(hi), ci[1]);
	format_ns(mn, sizeof(mn), min);
	format_ns(mx, sizeof(mx), max);
	snprintf(fig, sizeof(fig), "%s [%s, %s]", m, lo, hi);
	snprintf(range, sizeof(range), "%s..%s", mn, mx);
	printf("%-*s  %-20s %-10s %3dT  %-26s %4d  %-18s %s\n", kw, g->key, g->tracer, g->workload,
	       g->threads, fig, g->n, range, ids);
}

static int by_key(const void *a, const void *b)
{
	const struct group *x = a, *y = b;
	int c = strcmp(x->tracer, y->tracer);

	if (!c)
		c = strcmp(x->workload, y->workload);
	if (!c)
		c = x->threads - y->threads;
	if (!c)
		c = strcmp(x->key, y->key);
	return c;
}

int cmd_history_by(struct store *s, const struct results_args *a)
{
	struct stand_query q = {
		.guests = true, .kernel_glob = a->kernel, .tracer_glob = a->tracer,
		.workload = a->workload, .runs = a->limit,
	};
	struct groups gs = { .by = a->by };
	char err[512];
	int ret = store_stand_walk(s, &q, collect, &gs, err, sizeof(err));

	if (ret) {
		error("%s", err);
		ret = EXIT_FAILED;
		goto out;
	}
	if (!gs.n) {
		printf("no ok cells of '%s' in the last %d runs\n", a->tracer, a->limit);
		goto out;
	}
	qsort(gs.g, (size_t)gs.n, sizeof(*gs.g), by_key);
	/* the key whole: a guest's "[tcg icount VM]" says its figures are instructions */
	int kw = 28;
	bool instr = false;

	for (int i = 0; i < gs.n; i++) {
		kw = (int)strlen(gs.g[i].key) > kw ? (int)strlen(gs.g[i].key) : kw;
		instr |= strstr(gs.g[i].key, " icount VM]") != NULL;
	}
	printf("%-*s  %-20s %-10s %4s  %-26s %4s  %-18s %s\n", kw, a->by == BY_HOST ? "host" : "kernel",
	       "tracer", "workload", "thr", "+ns/event [95% CI]", "runs", "range of runs", "run ids");
	for (int i = 0; i < gs.n; i++)
		print_group(&gs.g[i], kw);
	if (instr)
		printf("a [tcg icount VM] row is in instructions/event, not ns: a guest under qemu's "
		       "-icount (docs/vm.md)\n");
	printf("one run: its own 95%% CI; several: Student's t over the runs' means "
	       "(the last %d runs; disturbed and --target collateral cells left out)\n", a->limit);
out:
	for (int i = 0; i < gs.n; i++) {
		free(gs.g[i].means);
		free(gs.g[i].ids);
	}
	free(gs.g);
	return ret;
}
