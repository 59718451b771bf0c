/*
 * Plan files: `key = value` lines, `[run NAME]`, `[pair NAME]` and
 * `[claim]` sections, `#` comments. Each field is checked by the parser of
 * the command it feeds (cli_parse_run, pair_parse), so the rules live in
 * one place and a plan error reads like the command line's, with the file
 * and line in front.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/util.h"
#include "cli/cli.h"
#include "measure/pair.h"
#include "cli/planfile.h"

#define PF_RUN_BIT (1u << PF_RUN)
#define PF_PAIR_BIT (1u << PF_PAIR)

static const struct field {
	const char *key, *opt;
	unsigned kinds;
	bool flag;                /* on/off: the option without a value */
} fields[] = {
	{ "workloads", "-w", PF_RUN_BIT | PF_PAIR_BIT, false },
	{ "tracers", "-t", PF_RUN_BIT, false },
	{ "target", "--target", PF_RUN_BIT, false },
	{ "threads", "-T", PF_RUN_BIT | PF_PAIR_BIT, false },
	{ "reps", "--reps", PF_RUN_BIT, false },
	{ "rounds", "--rounds", PF_RUN_BIT, false },
	{ "run_ms", "--run-ms", PF_RUN_BIT, false },
	{ "iterations", "--iterations", PF_RUN_BIT | PF_PAIR_BIT, false },
	{ "latency", "--latency", PF_RUN_BIT, true },
	{ "msg_size", "--msg-size", PF_RUN_BIT, false },
	{ "seed", "--seed", PF_RUN_BIT, false },
	{ "precision", "--precision", PF_RUN_BIT, false },
	{ "max_time", "--max-time", PF_RUN_BIT, false },
	{ "tracer_cpu", "--tracer-cpu", PF_RUN_BIT, false },
	{ "audit_rules", "--audit-rules", PF_RUN_BIT, false },
	{ "pair", "--pair", PF_PAIR_BIT, false },
	{ "storage", "--storage", PF_PAIR_BIT, false },
	{ "clock", "--clock", PF_PAIR_BIT, false },
};
#define NFIELDS (sizeof(fields) / sizeof(fields[0]))

/* The tracers' buffer sizes: what an experiment may need to set (docs/method.md). */
static const char *const env_names[] = {
	"TRACETAX_FTRACE_BUFFER_KB", "TRACETAX_RINGBUF_BYTES", "TRACETAX_PERF_PAGES", NULL,
};

const char *const pf_field_names[PF_NFIELDS] = {
	"overhead", "base", "traced", "slowdown", "lost", "ns_per_hit", "loss", "consumer",
	"delay_mean", "delay_p50", "delay_min",
};

const char *pf_field_unit(enum pf_field f, bool vs)
{
	static const char *const units[PF_NFIELDS] = {
		"ns/event", "ns/op", "ns/op", "x", "events", "ns/hit", "%", "ns/event", "ns", "ns", "ns",
	};
	return vs ? "x" : units[f];
}

struct ctx {
	struct planfile *pf;
	struct pf_section defaults;   /* fields before any section: every run's */
	struct pf_section *sec;       /* the section being read; &defaults first */
	struct pf_claim *claim;       /* the [claim] being read; NULL */
	char claim_run[PF_MAX_CLAIMS][32];
	char *err;
	size_t len;
	int line;
};

#define PFAIL(x, ...) do { \
	int o_ = snprintf((x)->err, (x)->len, "%s:%d: ", (x)->pf->path, (x)->line); \
	if (o_ >= 0 && (size_t)o_ < (x)->len) \
		snprintf((x)->err + o_, (x)->len - o_, __VA_ARGS__); \
	return -1; \
} while (0)

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

/*
 * A rule file of another package that is not on this box (the audit
 * experiment's: auditd's examples, and auditd is only a Suggests): the plan
 * stays readable (experiment list, show) and runs without it, its
 * audit:rules cells skipped with the reason (auditd is not installed).
 */
static bool absent_file(const char *opt, const char *val)
{
	return !strcmp(opt, "--audit-rules") && access(val, F_OK) && errno == ENOENT;
}

/* The command's own parser on one option: its message, or "". */
static int check_opt(enum pf_kind kind, const char *opt, const char *val, char *msg, size_t len)
{
	char *argv[] = { kind == PF_RUN ? "run" : "pair", (char *)opt, (char *)val, NULL };
	int argc = val ? 3 : 2, rc;

	if (kind == PF_RUN) {
		struct run_args a;

		rc = cli_parse_run(argc, argv, &a, msg, len);
		cli_release(&a);
	} else {
		struct pair_args a;

		rc = pair_parse(argc, argv, &a, msg, len);
	}
	return rc;
}

/* "a, b" is "a,b": blanks around a comma out of quotes go (a list reads better spaced). */
static void squeeze_list(char *s)
{
	char *w = s, q = 0;

	for (char *r = s; *r; r++) {
		if ((*r == '\'' || *r == '"') && (!q || q == *r))
			q = q ? 0 : *r;
		if (!q && isspace((unsigned char)*r)) {
			char *n = r + strspn(r, " \t");

			if (*n == ',' || (w > s && w[-1] == ','))
				continue;
		}
		*w++ = *r;
	}
	*w = '\0';
}

static int set_field(struct ctx *x, const char *key, char *val)
{
	const struct field *f = NULL;
	bool preamble = x->sec == &x->defaults;
	char msg[256];

	for (size_t i = 0; i < NFIELDS && !f; i++)
		if (!strcmp(fields[i].key, key))
			f = &fields[i];
	if (!f)
		PFAIL(x, "unknown field '%s'", key);
	if (!preamble && !(f->kinds & (1u << x->sec->kind)))
		PFAIL(x, "field '%s' is not one of a [%s]", key, x->sec->kind == PF_RUN ? "run" : "pair");
	squeeze_list(val);
	if (f->flag && strcmp(val, "on") && strcmp(val, "off"))
		PFAIL(x, "field '%s': '%s' is not on or off", key, val);
	if (absent_file(f->opt, val))
		;
	else if (!f->flag || !strcmp(val, "on")) {
		enum pf_kind k = preamble ? (f->kinds & PF_RUN_BIT ? PF_RUN : PF_PAIR) : x->sec->kind;

		if (check_opt(k, f->opt, f->flag ? NULL : val, msg, sizeof(msg)))
			PFAIL(x, "field '%s': %s", key, msg);
	}
	for (int i = 0; i < x->sec->nopts; i++)
		if (!strcmp(x->sec->opts[i].opt, f->opt)) {
			free(x->sec->opts[i].val);
			x->sec->opts[i].val = strdup(val);
			x->sec->opts[i].line = x->line;
			return 0;
		}
	if (x->sec->nopts == PF_MAX_OPTS)
		PFAIL(x, "too many fields");
	struct pf_opt *o = &x->sec->opts[x->sec->nopts++];

	snprintf(o->opt, sizeof(o->opt), "%s", f->opt);
	o->val = strdup(val);
	o->line = x->line;
	return 0;
}

static int set_env(struct ctx *x, char *val)
{
	char *eq = strchr(val, '=');

	for (int i = 0; eq && env_names[i]; i++)
		if ((size_t)(eq - val) == strlen(env_names[i]) && !strncmp(val, env_names[i], eq - val)) {
			if (x->sec->nenv == PF_MAX_ENV)
				PFAIL(x, "too many env lines");
			x->sec->env[x->sec->nenv++] = strdup(val);
			return 0;
		}
	PFAIL(x, "field 'env': '%s' is not NAME=VALUE of TRACETAX_FTRACE_BUFFER_KB, "
	      "TRACETAX_RINGBUF_BYTES or TRACETAX_PERF_PAGES", val);
}

static int set_claim(struct ctx *x, const char *key, char *val)
{
	struct pf_claim *c = x->claim;
	char *end;

	if (!strcmp(key, "claim"))
		snprintf(c->text, sizeof(c->text), "%s", val);
	else if (!strcmp(key, "source"))
		snprintf(c->source, sizeof(c->source), "%s", val);
	else if (!strcmp(key, "was")) {
		errno = 0;
		c->was = strtod(val, &end);
		if (end == val || errno)
			PFAIL(x, "field 'was': '%s' is not a number and its unit", val);
		snprintf(c->unit, sizeof(c->unit), "%s", trim(end));
	} else if (!strcmp(key, "run"))
		snprintf(x->claim_run[x->pf->nclaims - 1], 32, "%s", val);
	else if (!strcmp(key, "tracer")) {
		char *save = NULL;

		c->ntracers = 0;
		for (char *t = strtok_r(val, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
			if (c->ntracers == PF_MAX_ALT)
				PFAIL(x, "field 'tracer': at most %d tracers", PF_MAX_ALT);
			snprintf(c->tracers[c->ntracers++], sizeof(c->tracers[0]), "%s", trim(t));
		}
	} else if (!strcmp(key, "vs"))
		snprintf(c->vs, sizeof(c->vs), "%s", val);
	else if (!strcmp(key, "workload"))
		snprintf(c->workload, sizeof(c->workload), "%s", val);
	else if (!strcmp(key, "storage"))
		snprintf(c->storage, sizeof(c->storage), "%s", val);
	else if (!strcmp(key, "threads")) {
		c->threads = atoi(val);
		if (c->threads < 1 || c->threads > 256)
			PFAIL(x, "field 'threads': '%s' is not a thread count (1 to 256)", val);
	} else if (!strcmp(key, "field")) {
		int i;

		for (i = 0; i < PF_NFIELDS && strcmp(pf_field_names[i], val); i++)
			;
		if (i == PF_NFIELDS)
			PFAIL(x, "field 'field': unknown figure '%s' (overhead, base, traced, slowdown, "
			      "lost, ns_per_hit, loss, delay_mean, delay_p50, delay_min)", val);
		c->field = (enum pf_field)i;
	} else
		PFAIL(x, "unknown field '%s' in a [claim]", key);
	return 0;
}

static int set_meta(struct ctx *x, const char *key, char *val)
{
	struct planfile *pf = x->pf;

	if (!strcmp(key, "title"))
		snprintf(pf->title, sizeof(pf->title), "%s", val);
	else if (!strcmp(key, "reproduces"))
		snprintf(pf->reproduces, sizeof(pf->reproduces), "%s", val);
	else if (!strcmp(key, "source"))
		snprintf(pf->source, sizeof(pf->source), "%s", val);
	else if (!strcmp(key, "kernels")) {
		if (strcmp(val, "each"))
			PFAIL(x, "field 'kernels': want 'each', not '%s'", val);
		pf->per_kernel = true;
	} else if (!strcmp(key, "note")) {
		if (pf->nnotes == PF_MAX_NOTES)
			PFAIL(x, "too many notes (at most %d)", PF_MAX_NOTES);
		pf->notes[pf->nnotes++] = strdup(val);
	} else
		return 1;
	return 0;
}

static int open_section(struct ctx *x, char *s)
{
	char *end = strchr(s, ']'), *name;
	struct planfile *pf = x->pf;

	if (!end || *trim(end + 1))
		PFAIL(x, "unterminated section '%s'", s);
	*end = '\0';
	s = trim(s + 1);
	name = s + strcspn(s, " \t");
	if (*name)
		*name++ = '\0';
	name = trim(name);
	x->claim = NULL;
	if (!strcmp(s, "claim")) {
		if (*name)
			PFAIL(x, "a [claim] takes no name");
		if (pf->nclaims == PF_MAX_CLAIMS)
			PFAIL(x, "too many claims (at most %d)", PF_MAX_CLAIMS);
		x->claim = &pf->claims[pf->nclaims++];
		x->claim->line = x->line;
		return 0;
	}
	if (strcmp(s, "run") && strcmp(s, "pair"))
		PFAIL(x, "unknown section '[%s]' (run, pair, claim)", s);
	if (pf->nsections == PF_MAX_SECTIONS)
		PFAIL(x, "too many sections (at most %d)", PF_MAX_SECTIONS);
	if (strlen(name) >= sizeof(pf->sections[0].name))
		PFAIL(x, "section name '%s' is too long", name);
	for (int i = 0; i < pf->nsections; i++)
		if (!strcmp(pf->sections[i].name, name))
			PFAIL(x, "a second section named '%s'", name);
	x->sec = &pf->sections[pf->nsections++];
	x->sec->kind = strcmp(s, "run") ? PF_PAIR : PF_RUN;
	snprintf(x->sec->name, sizeof(x->sec->name), "%s", name);
	x->sec->line = x->line;
	return 0;
}

static int parse_line(struct ctx *x, char *s)
{
	char *eq, *key, *val;

	/* a comment: '#' at the start or after a blank ("tracers = a  # why") */
	for (char *h = s; (h = strchr(h, '#')); h++)
		if (h == s || isspace((unsigned char)h[-1])) {
			*h = '\0';
			break;
		}
	s = trim(s);
	if (!*s)
		return 0;
	if (*s == '[')
		return open_section(x, s);
	if (!(eq = strchr(s, '=')))
		PFAIL(x, "'%s' is not 'field = value'", s);
	*eq = '\0';
	key = trim(s);
	val = trim(eq + 1);
	if (!*val)
		PFAIL(x, "field '%s' has no value", key);
	if (x->claim)
		return set_claim(x, key, val);
	if (x->sec == &x->defaults) {
		int rc = set_meta(x, key, val);

		if (rc <= 0)
			return rc;
	}
	if (!strcmp(key, "env"))
		return set_env(x, val);
	return set_field(x, key, val);
}


static const struct field *field_of_opt(const char *opt)
{
	for (size_t i = 0; i < NFIELDS; i++)
		if (!strcmp(fields[i].opt, opt))
			return &fields[i];
	return NULL;
}

/* The preamble's fields and env go to every section that takes them, unless it sets its own. */
static void inherit(struct pf_section *s, const struct pf_section *d)
{
	for (int i = 0; i < d->nopts; i++) {
		const struct field *f = field_of_opt(d->opts[i].opt);
		bool own = false;

		for (int j = 0; j < s->nopts; j++)
			own |= !strcmp(s->opts[j].opt, d->opts[i].opt);
		if (own || !(f->kinds & (1u << s->kind)) || s->nopts == PF_MAX_OPTS)
			continue;
		s->opts[s->nopts] = d->opts[i];
		s->opts[s->nopts++].val = strdup(d->opts[i].val);
	}
	for (int i = 0; i < d->nenv && s->nenv < PF_MAX_ENV; i++) {
		size_t n = strcspn(d->env[i], "=") + 1;
		bool own = false;

		for (int j = 0; j < s->nenv; j++)
			own |= !strncmp(s->env[j], d->env[i], n);
		if (!own)
			s->env[s->nenv++] = strdup(d->env[i]);
	}
}

static bool run_has_tracer(const struct planfile *pf, int sec, const char *name)
{
	struct run_args a;
	char err[256];
	int argc;
	char **argv = planfile_argv(pf, sec, 0, NULL, &argc);
	bool found = false;

	if (argv && !cli_parse_run(argc, argv, &a, err, sizeof(err)))
		for (int i = 0; i < a.m.ntracers; i++)
			found |= !strcmp(a.m.tracers[i], name);
	cli_release(&a);
	free(argv);
	return found;
}

static int check_claim(struct ctx *x, int n)
{
	struct planfile *pf = x->pf;
	struct pf_claim *c = &pf->claims[n];
	const char *run = x->claim_run[n], *unit;
	bool pair;

	x->line = c->line;
	if (!c->text[0] || !c->source[0] || !c->unit[0])
		PFAIL(x, "a [claim] needs claim, source and was (a figure and its unit)");
	c->section = -1;
	for (int i = 0; i < pf->nsections && c->section < 0; i++)
		if (!*run || !strcmp(pf->sections[i].name, run))
			c->section = i;
	if (c->section < 0)
		PFAIL(x, "field 'run': no section '[run %s]' or '[pair %s]'", run, run);
	pair = pf->sections[c->section].kind == PF_PAIR;
	if (pair != (c->field >= PF_DELAY_MEAN))
		PFAIL(x, "field 'field': '%s' is not a figure of a [%s]", pf_field_names[c->field],
		      pair ? "pair" : "run");
	if (pair && !c->storage[0])
		PFAIL(x, "a [claim] on a [pair] needs storage (global, percpu, hash, lock)");
	if (!pair && !c->ntracers)
		PFAIL(x, "a [claim] on a [run] needs tracer");
	unit = pf_field_unit(c->field, c->vs[0]);
	if (strcmp(c->unit, unit))
		PFAIL(x, "field 'was': unit '%s' is not the unit of %s%s ('%s')", c->unit,
		      pf_field_names[c->field], c->vs[0] ? " vs another cell" : "", unit);
	for (int i = 0; i < c->ntracers + !!c->vs[0]; i++) {
		const char *t = i < c->ntracers ? c->tracers[i] : c->vs;

		if (!pair && !run_has_tracer(pf, c->section, t))
			PFAIL(x, "field '%s': tracer '%s' is not one of the run's tracers",
			      i < c->ntracers ? "tracer" : "vs", t);
	}
	return 0;
}

int planfile_parse(const char *path, const char *text, struct planfile *pf, char *err, size_t len)
{
	struct ctx x = { .pf = pf, .err = err, .len = len };
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	char *copy = strdup(text), *save = NULL, *s = copy;
	int rc = 0;

	memset(pf, 0, sizeof(*pf));
	snprintf(pf->path, sizeof(pf->path), "%s", path);
	snprintf(pf->name, sizeof(pf->name), "%.*s", (int)strcspn(base, "."), base);
	x.sec = &x.defaults;
	err[0] = '\0';
	/* strsep, not strtok: empty lines count */
	save = copy;
	while (!rc && (s = strsep(&save, "\n"))) {
		x.line++;
		rc = parse_line(&x, s);
	}
	free(copy);
	if (!rc && !pf->nsections) {
		pf->sections[pf->nsections++] = x.defaults;
		memset(&x.defaults, 0, sizeof(x.defaults));
	} else if (!rc) {
		for (int i = 0; i < pf->nsections; i++)
			inherit(&pf->sections[i], &x.defaults);
	}
	for (int i = 0; !rc && i < pf->nclaims; i++)
		rc = check_claim(&x, i);
	for (int i = 0; i < x.defaults.nopts; i++)
		free(x.defaults.opts[i].val);
	for (int i = 0; i < x.defaults.nenv; i++)
		free(x.defaults.env[i]);
	if (rc)
		planfile_release(pf);
	return rc;
}

int planfile_load(const char *path, struct planfile *pf, char *err, size_t len)
{
	char *text;
	int rc;

	/* a plan is a page or two: a bigger file is not one */
	if (read_user_file("plan", path, PLANFILE_MAX, &text, NULL, err, len))
		return -1;
	rc = planfile_parse(path, text, pf, err, len);
	free(text);
	return rc;
}

void planfile_release(struct planfile *pf)
{
	for (int i = 0; i < pf->nnotes; i++)
		free(pf->notes[i]);
	for (int s = 0; s < pf->nsections; s++) {
		for (int i = 0; i < pf->sections[s].nopts; i++)
			free(pf->sections[s].opts[i].val);
		for (int i = 0; i < pf->sections[s].nenv; i++)
			free(pf->sections[s].env[i]);
	}
	memset(pf, 0, sizeof(*pf));
}

/*
 * The list options add up when repeated (-t, -w, -T): the user's own list
 * then replaces the plan's rather than adding to it. @a is one of the
 * user's words; @opt the short option ("-t").
 */
static bool is_list_opt(const char *a, const char *opt)
{
	if (!strncmp(a, opt, 2))
		return true;
	if (!strcmp(opt, "-t"))
		return !strncmp(a, "--tracer", 8) && strncmp(a, "--tracer-cpu", 12);
	if (!strcmp(opt, "-w"))
		return !strncmp(a, "--workload", 10);
	if (!strcmp(opt, "-T"))
		return !strncmp(a, "--threads", 9);
	return false;
}

static bool user_gives(int nextra, char **extra, const char *opt)
{
	for (int j = 0; j < nextra; j++)
		if (is_list_opt(extra[j], opt))
			return true;
	return false;
}

char **planfile_argv(const struct planfile *pf, int i, int nextra, char **extra, int *argc)
{
	const struct pf_section *s = &pf->sections[i];
	char **argv = calloc(2 + 2 * s->nopts + nextra, sizeof(*argv));
	int n = 0;

	if (!argv)
		return NULL;
	argv[n++] = s->kind == PF_RUN ? "run" : "pair";
	for (int j = 0; j < s->nopts; j++) {
		const struct field *f = field_of_opt(s->opts[j].opt);

		if (f->flag && strcmp(s->opts[j].val, "on"))
			continue;
		if ((!strcmp(f->opt, "-t") || !strcmp(f->opt, "-w") || !strcmp(f->opt, "-T")) &&
		    user_gives(nextra, extra, f->opt))
			continue;
		if (absent_file(f->opt, s->opts[j].val))
			continue;
		argv[n++] = (char *)s->opts[j].opt;
		if (!f->flag)
			argv[n++] = s->opts[j].val;
	}
	for (int j = 0; j < nextra; j++)
		argv[n++] = extra[j];
	argv[n] = NULL;
	*argc = n;
	return argv;
}
