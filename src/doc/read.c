/*
 * A results document back into struct results (doc/read.h): the same
 * structs doc/write.c wrote it from, so that output_table() reprints a
 * stored run as it was printed (version 3's fields: doc/read_dist.c). Strict about what it knows (types, ranges,
 * lengths, a cell's figures against its status), silent about fields it
 * does not: other parts of tracetax add fields within a schema version.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "doc/field.h"
#include "doc/read.h"
#include "base/util.h"

#define MAX_CELLS   65536

static const char *const cpu_names[] = { "same", "other", "any", NULL };

/*
 * Counts values and nesting outside strings before jansson builds a tree:
 * linear, no allocation. Every value but the first follows a ',' or opens
 * a container, so commas and brackets bound the count.
 */
static int prescan(struct rd *x, const char *s, size_t len)
{
	size_t values = 1;
	int depth = 0;
	bool in_str = false;

	for (size_t i = 0; i < len; i++) {
		char c = s[i];

		if (in_str) {
			if (c == '\\')
				i++;
			else if (c == '"')
				in_str = false;
			continue;
		}
		if (c == '"')
			in_str = true;
		else if (c == '[' || c == '{') {
			values++;
			if (++depth > DOC_MAX_DEPTH)
				return rd_fail(x, "nested deeper than %d", DOC_MAX_DEPTH);
		} else if (c == ']' || c == '}')
			depth--;
		else if (c == ',')
			values++;
		if (values > DOC_MAX_VALUES)
			return rd_fail(x, "more than %d values", DOC_MAX_VALUES);
	}
	return 0;
}

static int read_env(struct rd *x, json_t *d, struct environment *e)
{
	size_t at = rd_push(x, "environment");
	json_t *o = json_object_get(d, "environment");
	time_t t;
	int ret;

	if (!o || !json_is_object(o)) {
		ret = o ? rd_fail(x, "want an object, not %s", rd_type(o)) : rd_fail(x, "missing");
		rd_pop(x, at);
		return ret;
	}
#define S(f) rd_str(x, o, #f, e->f, sizeof(e->f), 0)
	ret = S(kernel) || S(kernel_version) || S(arch) || S(cpu_model) ||
	      rd_intv(x, o, "cpus", 0, INT_MAX, &e->cpus) || S(clocksource) || S(virtualization) ||
	      S(mitigations) || S(governor) || S(tracetax_version) || S(hostname) || S(started) ||
	      S(other_tracers) || S(tools) ? -1 : 0;
#undef S
	/* since --kernel: absent from older documents */
	if (!ret && json_object_get(o, "vm"))
		ret = rd_str(x, o, "vm", e->vm, sizeof(e->vm), F_NULL);
	if (!ret && e->vm[0] && strcmp(e->vm, "kvm") && strcmp(e->vm, "tcg")) {
		rd_push(x, "vm");
		ret = rd_fail(x, "want \"kvm\", \"tcg\" or null");
	}
	/* since -icount: absent (ns) from older documents and runs on a machine */
	if (!ret && json_object_get(o, "unit"))
		ret = rd_str(x, o, "unit", e->unit, sizeof(e->unit), F_NULL);
	if (!ret && e->unit[0] && strcmp(e->unit, "ns") && strcmp(e->unit, "instructions")) {
		rd_push(x, "unit");
		ret = rd_fail(x, "want \"instructions\", \"ns\" or null");
	}
	if (!ret && !strcmp(e->unit, "ns"))
		e->unit[0] = '\0';
	if (!ret && e->unit[0] && strcmp(e->vm, "tcg")) {
		rd_push(x, "unit");
		ret = rd_fail(x, "instructions only in a TCG guest (vm \"tcg\")");
	}
	/* 2025-01-02T03:04:05Z: the store sorts and prints it as it is */
	if (!ret && (strlen(e->started) != 20 || utc_parse(e->started, &t))) {
		rd_push(x, "started");
		ret = rd_fail(x, "want an ISO 8601 UTC time, 2025-01-02T03:04:05Z");
	}
	rd_pop(x, at);
	return ret;
}

static int read_options(struct rd *x, json_t *d, struct run_options *o)
{
	size_t at = rd_push(x, "options");
	json_t *v = json_object_get(d, "options");
	int64_t it = 0, max_time = -1, msg_size = -1;
	static const char *const placement_names[] = { "first", "rotate", NULL };
	int cpu = 0, place = 0, ret;

	if (!v || !json_is_object(v)) {
		ret = v ? rd_fail(x, "want an object, not %s", rd_type(v)) : rd_fail(x, "missing");
		rd_pop(x, at);
		return ret;
	}
	o->rounds = 1;
	ret = rd_intv(x, v, "reps", 1, INT_MAX, &o->reps) ||
	      (json_object_get(v, "rounds") && rd_intv(x, v, "rounds", 1, INT_MAX, &o->rounds)) ||
	      rd_intv(x, v, "run_ms", 0, INT_MAX, &o->run_ms) ||
	      rd_int(x, v, "iterations", 0, INT64_MAX, 0, &it) || rd_seed(x, v, "seed", &o->seed) ||
	      rd_str(x, v, "target", o->target, sizeof(o->target), F_NULL) ||
	      rd_enum(x, v, "tracer_cpu", cpu_names, &cpu) ||
	      rd_num(x, v, "precision_pct", 0, F_NULL, &o->precision) ||
	      rd_int(x, v, "max_time_s", 1, INT_MAX, F_NULL, &max_time) ||
	      (!rd_absent(x, v, "latency") && rd_bool(x, v, "latency", &o->latency)) ||
	      (!rd_absent(x, v, "msg_size") &&
	       rd_int(x, v, "msg_size", 1, INT_MAX, F_NULL, &msg_size)) ||
	      /* optional in version 3 too: documents before --cpus have neither */
	      (json_object_get(v, "cpus") &&
	       rd_str(x, v, "cpus", o->cpus, sizeof(o->cpus), F_NULL)) ||
	      (json_object_get(v, "placement") &&
	       rd_enum(x, v, "placement", placement_names, &place)) ? -1 : 0;
	o->rotate = place == 1;
	o->iterations = it;
	o->msg_size = msg_size < 0 ? 0 : (int)msg_size;
	o->precision = isnan(o->precision) ? 0 : o->precision;
	o->max_time_s = max_time < 0 ? 0 : (int)max_time;
	snprintf(o->tracer_cpu, sizeof(o->tracer_cpu), "%s", cpu_names[cpu]);
	rd_pop(x, at);
	return ret;
}

static int read_floor(struct rd *x, json_t *o, struct noise_floor *f)
{
	if (!json_is_object(o))
		return rd_fail(x, "want an object, not %s", rd_type(o));
	return rd_str(x, o, "workload", f->workload, sizeof(f->workload), F_NONEMPTY) ||
	       rd_intv(x, o, "threads", 1, MAX_THREADS, &f->threads) ||
	       rd_num(x, o, "ns_per_event", 0, F_NULL, &f->ns) ||
	       rd_pair(x, o, "aa_ci95", 0, f->ci95) ||
	       rd_bool(x, o, "aa_excludes_zero", &f->excludes_zero) ? -1 : 0;
}

/* The elements of array @key, each read by @fn into @base + i * @size. */
static int read_each(struct rd *x, json_t *d, const char *key, void *base, size_t size,
		     int (*fn)(struct rd *, json_t *, void *))
{
	json_t *a;
	size_t at;

	if (rd_array(x, d, key, MAX_CELLS, &a))
		return -1;
	at = rd_push(x, key);
	for (size_t i = 0; i < json_array_size(a); i++) {
		size_t k = rd_push_index(x, i);

		if (fn(x, json_array_get(a, i), (char *)base + i * size))
			return -1;
		rd_pop(x, k);
	}
	rd_pop(x, at);
	return 0;
}

static int cell_fn(struct rd *x, json_t *o, void *p) { return doc_read_cell(x, o, p); }
static int floor_fn(struct rd *x, json_t *o, void *p) { return read_floor(x, o, p); }

static size_t count_of(json_t *d, const char *key)
{
	json_t *a = json_object_get(d, key);

	return json_is_array(a) && json_array_size(a) <= MAX_CELLS ? json_array_size(a) : 0;
}

/* The version first: a document of another version is refused as such. */
static int read_version(struct rd *x, json_t *d)
{
	json_t *v = json_object_get(d, "schema_version");

	rd_push(x, "schema_version");
	if (!v)
		return rd_fail(x, "missing: not a tracetax results document");
	if (!json_is_integer(v))
		return rd_fail(x, "want an integer, not %s", rd_type(v));
	if (json_integer_value(v) < DOC_SCHEMA_OLDEST || json_integer_value(v) > DOC_SCHEMA_VERSION)
		return rd_fail(x, "version %lld, this tracetax reads versions %d to %d",
			       (long long)json_integer_value(v), DOC_SCHEMA_OLDEST, DOC_SCHEMA_VERSION);
	x->version = (int)json_integer_value(v);
	rd_pop(x, 0);
	return 0;
}

/* The repeat intervals' drift: absent before them (drift.known false). */
static int read_drift(struct rd *x, json_t *d, struct repeat_drift *o)
{
	json_t *v = json_object_get(d, "repeat_drift");
	size_t at;
	int ret;

	memset(o, 0, sizeof(*o));
	if (!v || json_is_null(v))
		return 0;
	at = rd_push(x, "repeat_drift");
	if (!json_is_object(v))
		return rd_fail(x, "want an object or null, not %s", rd_type(v));
	ret = rd_num(x, v, "tau", 0, 0, &o->tau) ||
	      rd_intv(x, v, "runs", 0, INT_MAX, &o->runs) ||
	      rd_intv(x, v, "cells", 0, INT_MAX, &o->cells) ||
	      rd_str(x, v, "note", o->note, sizeof(o->note), F_NULL) ? -1 : 0;
	/* where tau came from; absent before the first run's assumed tau: from runs, or none */
	o->basis = o->runs ? REPEAT_THIS_VERSION : REPEAT_NONE;
	if (!ret && json_object_get(v, "basis") && !json_is_null(json_object_get(v, "basis"))) {
		static const char *const names[] = { "this_version", "other_versions", "assumed", NULL };
		int b;

		ret = rd_enum(x, v, "basis", names, &b);
		o->basis = (enum repeat_basis)(b + 1);
	}
	rd_pop(x, at);
	o->known = !ret;
	return ret;
}

static int read_results(struct rd *x, json_t *d, struct results *r)
{
	char version[sizeof(r->env.tracetax_version)];

	if (!json_is_object(d))
		return rd_fail(x, "want an object, not %s", rd_type(d));
	if (read_version(x, d) ||
	    rd_str(x, d, "tracetax_version", version, sizeof(version), F_NONEMPTY) ||
	    read_env(x, d, &r->env) || read_options(x, d, &r->opts) ||
	    rd_num(x, d, "elapsed_s", 0, F_NULL, &r->elapsed_s) || doc_read_top_dist(x, d, r) ||
	    read_drift(x, d, &r->drift))
		return -1;
	r->nfloors = (int)count_of(d, "noise_floors");
	r->ncells = (int)count_of(d, "cells");
	r->floors = calloc((size_t)r->nfloors + 1, sizeof(*r->floors));
	r->cells = calloc((size_t)r->ncells + 1, sizeof(*r->cells));
	if (!r->floors || !r->cells)
		die("out of memory");
	return read_each(x, d, "noise_floors", r->floors, sizeof(*r->floors), floor_fn) ||
	       read_each(x, d, "cells", r->cells, sizeof(*r->cells), cell_fn) ? -1 : 0;
}

int doc_parse(struct doc *d, char *text, size_t len, char *err, size_t errlen)
{
	struct rd x = { .name = d->name, .err = err, .errlen = errlen };
	json_error_t jerr;

	memset(&d->r, 0, sizeof(d->r));
	d->text = text;
	d->len = len;
	d->json = NULL;
	if (len > DOC_MAX_BYTES)
		return rd_fail(&x, "larger than %u MiB", DOC_MAX_BYTES >> 20);
	if (prescan(&x, text, len))
		return -1;
	d->json = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!d->json) {
		/* jansson quotes the input near the error: no control character of it */
		for (char *p = jerr.text; *p; p++)
			if ((unsigned char)*p < 0x20 || *p == 0x7f)
				*p = '?';
		snprintf(err, errlen, "invalid results document '%s': not JSON: %s at line %d",
			 d->name, jerr.text, jerr.line);
		return -1;
	}
	return read_results(&x, d->json, &d->r);
}


int doc_read_file(struct doc *d, const char *path, char *err, size_t errlen)
{
	char *text;
	size_t len;

	memset(d, 0, sizeof(*d));
	snprintf(d->name, sizeof(d->name), "%s", path);
	if (!strcmp(path, "-")) {
		/* at most DOC_MAX_BYTES + 1: one more says "too large" without reading it all */
		if (!(text = slurp_fd(STDIN_FILENO, (size_t)DOC_MAX_BYTES + 1, &len))) {
			snprintf(err, errlen, "cannot read '-': %s", strerror(errno));
			return -1;
		}
	} else if (read_user_file("results document", path, DOC_MAX_BYTES, &text, &len, err,
				  errlen)) {
		return -1;
	}
	return doc_parse(d, text, len, err, errlen);
}

void doc_release(struct doc *d)
{
	results_release(&d->r);
	json_decref(d->json);
	free(d->text);
	d->json = NULL;
	d->text = NULL;
}
