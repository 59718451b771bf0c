/*
 * What heads `tracetax compare`: the two runs, and how their machines and
 * options differ. Read from the documents' JSON, not the structs, so that
 * a field added to the environment later is compared too.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "compare/out.h"
#include "store/stand.h"

/* Fields whose difference means another machine or kernel: said loudly. */
static const char *const machine_fields[] = {
	"kernel", "kernel_version", "arch", "cpu_model", "cpus", "clocksource", "virtualization",
	"mitigations", "hostname", NULL,
};
/* Always named, the same or not. */
static const char *const named_fields[] = {
	"kernel", "cpu_model", "mitigations", "clocksource", "virtualization", "governor",
	"tracetax_version", NULL,
};

static bool in(const char *const *list, const char *key)
{
	for (; *list; list++)
		if (!strcmp(*list, key))
			return true;
	return false;
}

/* A value as one line: strings as they are, anything else as compact JSON. */
static void print_value(FILE *f, json_t *v)
{
	char *s;

	if (!v) {
		fputs("(absent)", f);
		return;
	}
	if (json_is_string(v)) {
		for (const char *p = json_string_value(v); *p; p++)
			fputc((unsigned char)*p < 0x20 ? '?' : *p, f);
		return;
	}
	s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
	fputs(s ? s : "?", f);
	free(s);
}

/* "a; b; c" lists (mitigations, other tracers, tools): the items on one side only. */
static void print_items(FILE *f, const char *side, const char *mine, const char *theirs)
{
	char buf[4096], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", mine);
	for (char *t = strtok_r(buf, ";", &save); t; t = strtok_r(NULL, ";", &save)) {
		char item[512];
		const char *hit;
		size_t n;

		while (*t == ' ')
			t++;
		snprintf(item, sizeof(item), "%s", t);
		n = strlen(item);
		hit = strstr(theirs, item);
		/* whole items only: "a: b" must not match inside "a: bc" */
		if (hit && (hit == theirs || hit[-1] == ' ') && (hit[n] == ';' || hit[n] == '\0'))
			continue;
		fprintf(f, "    %s only: ", side);
		for (const char *p = item; *p; p++)
			fputc((unsigned char)*p < 0x20 ? '?' : *p, f);
		fputc('\n', f);
	}
}

static void print_diff(FILE *f, const char *what, const char *key, json_t *a, json_t *b)
{
	if (json_is_string(a) && json_is_string(b) && strchr(json_string_value(a), ';') &&
	    strchr(json_string_value(b), ';')) {
		fprintf(f, "  %s%s differs:\n", what, key);
		print_items(f, "A", json_string_value(a), json_string_value(b));
		print_items(f, "B", json_string_value(b), json_string_value(a));
		return;
	}
	fprintf(f, "  %s%s: A ", what, key);
	print_value(f, a);
	fputs(", B ", f);
	print_value(f, b);
	fputc('\n', f);
}

/* Keys of @a, then those only in @b; "started" always differs and is in the heading. */
static int diff_objects(FILE *f, const char *what, json_t *a, json_t *b, char *machine, size_t len)
{
	const char *key;
	json_t *v;
	int n = 0;

	json_object_foreach(a, key, v) {
		if (!strcmp(key, "started") || json_equal(v, json_object_get(b, key)))
			continue;
		print_diff(f, what, key, v, json_object_get(b, key));
		n++;
		if (machine && in(machine_fields, key) && strlen(machine) + strlen(key) + 3 < len)
			snprintf(machine + strlen(machine), len - strlen(machine), "%s%s",
				 machine[0] ? ", " : "", key);
	}
	json_object_foreach(b, key, v) {
		if (json_object_get(a, key))
			continue;
		print_diff(f, what, key, NULL, v);
		n++;
	}
	return n;
}

/*
 * A run's syscall slow path in words: "audit, syscall_tracepoint", "unknown",
 * or "none said" (nothing there, or a document from before the probe).
 */
static void slow_words(const struct slow_path *s, char *buf, size_t len)
{
	buf[0] = '\0';
	if (!s->known && s->probed) {
		snprintf(buf, len, "unknown");
		return;
	}
	for (int i = 0; i < SLOW_NCAUSES; i++)
		if (s->causes & (1u << i))
			snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", buf[0] ? ", " : "",
				 slow_cause_names[i]);
	if (!buf[0])
		snprintf(buf, len, "none said");
}

static void print_run(FILE *f, const char *side, const struct doc *d)
{
	const struct environment *e = &d->r.env;

	fprintf(f, "%s: %s, started %s on %s, kernel %s, tracetax %s\n", side, d->name, e->started,
		e->hostname, e->kernel, e->tracetax_version);
}

void compare_print_env(FILE *f, const struct doc *a, const struct doc *b, const struct cmp_style *st)
{
	json_t *ea = json_object_get(a->json, "environment"), *eb = json_object_get(b->json, "environment");
	char machine[256] = "", same[256] = "", why[160];
	int n;

	print_run(f, "A", a);
	print_run(f, "B", b);
	for (int i = 0; named_fields[i]; i++)
		if (json_equal(json_object_get(ea, named_fields[i]), json_object_get(eb, named_fields[i])))
			snprintf(same + strlen(same), sizeof(same) - strlen(same), "%s%s",
				 same[0] ? ", " : "", named_fields[i]);
	if (same[0])
		fprintf(f, "same: %s\n", same);
	n = diff_objects(f, "", ea, eb, machine, sizeof(machine));
	n += diff_objects(f, "option ", json_object_get(a->json, "options"),
			  json_object_get(b->json, "options"), NULL, 0);
	if (!n)
		fprintf(f, "environment and options: no difference\n");
	if (machine[0])
		fprintf(f, "%swarning: A and B ran on different machines or kernels (%s differ): "
			"a difference below may be theirs, not the tracers'%s\n", st->bold_yellow,
			machine, st->reset);
	/* the store's rule of which cells stand for a host's cost: a VM guest's do not;
	 * an emulated CPU's ns are no cost at all */
	if (compare_emulated_apart(&a->r, &b->r, why, sizeof(why)))
		fprintf(f, "%sno verdicts: %s: an emulated CPU's ns are not costs, so their "
			"differences are not the tracers' (docs/vm.md)%s\n", st->bold_yellow, why,
			st->reset);
	else if (strcmp(a->r.env.vm, b->r.env.vm) &&
		 !stand_same_host(&a->r.env, &b->r.env, why, sizeof(why)))
		fprintf(f, "%swarning: %s: their cells do not stand for the same host's costs "
			"(under tcg, emulation's ns)%s\n", st->bold_yellow, why, st->reset);
	/* someone else's tracer runs in baseline and traced runs alike: it is in the
	 * baselines, and what it shares with ours (an enabled tracepoint) leaves our cost */
	for (int i = 0; i < 2; i++) {
		const struct environment *e = i ? &b->r.env : &a->r.env;

		if (strcmp(a->r.env.other_tracers, b->r.env.other_tracers) && strcmp(e->other_tracers, "none"))
			fprintf(f, "%swarning: %c ran beside other tracing (%s): its cost is in %c's baselines%s\n",
				st->bold_yellow, i ? 'B' : 'A', e->other_tracers, i ? 'B' : 'A', st->reset);
	}
	/* a box on the syscall slow path prices every syscall hook at its margin */
	{
		char wa[96], wb[96];

		slow_words(&a->r.slow_path, wa, sizeof(wa));
		slow_words(&b->r.slow_path, wb, sizeof(wb));
		if (strcmp(wa, wb))
			fprintf(f, "%swarning: a fresh task's syscall slow path: A %s, B %s: a syscall "
				"hook's cost is marginal to that path where it is taken%s\n",
				st->bold_yellow, wa, wb, st->reset);
	}
	fputc('\n', f);
}
