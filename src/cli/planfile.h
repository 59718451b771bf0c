/*
 * Plan files (docs/experiments.md, "Plan files"): a run, or an experiment
 * of several runs and pair measurements, with the claims of a thread to
 * print beside today's figures. Each field becomes the option of `tracetax
 * run` (or `pair`) it names, checked by that command's own parser, so a
 * plan can ask for nothing the command line could not.
 */
#ifndef TRACETAX_PLANFILE_H
#define TRACETAX_PLANFILE_H

#include <stdbool.h>
#include <stddef.h>

#define PF_MAX_SECTIONS 8
#define PF_MAX_OPTS 24
#define PF_MAX_ENV 4
#define PF_MAX_NOTES 12
#define PF_MAX_CLAIMS 16
#define PF_MAX_ALT 4            /* tracers a claim may fall back on */

enum pf_kind { PF_RUN, PF_PAIR };

/* One field, as the option it becomes: "--reps" "10" (val NULL: a flag). */
struct pf_opt {
	char opt[24];
	char *val;
	int line;
};

struct pf_section {
	enum pf_kind kind;
	char name[32];            /* [run NAME]: "" for an unnamed one */
	int line;
	struct pf_opt opts[PF_MAX_OPTS];
	int nopts;
	char *env[PF_MAX_ENV];    /* "NAME=VALUE", set for this section's run only */
	int nenv;
};

/* What today's figure of a claim is. */
enum pf_field {
	PF_OVERHEAD, PF_BASE, PF_TRACED, PF_SLOWDOWN, PF_LOST, PF_NS_PER_HIT, PF_LOSS, PF_CONSUMER,
	PF_DELAY_MEAN, PF_DELAY_P50, PF_DELAY_MIN, PF_NFIELDS
};
extern const char *const pf_field_names[PF_NFIELDS];
/* The unit of a field's figure ("ns/event"); with vs, every figure is a ratio: "x". */
const char *pf_field_unit(enum pf_field f, bool vs);

struct pf_claim {
	int line;
	char text[96];            /* claim = what the thread said */
	char source[96];          /* who, where, when */
	double was;               /* the original figure, */
	char unit[16];            /* in the unit of its field */
	int section;              /* index into sections: the run or pair it reads */
	char tracers[PF_MAX_ALT][64];   /* the first of them that measured; pair: none */
	int ntracers;
	char vs[64];              /* "": none; else the figure is field(tracer) / field(vs) */
	char workload[32];        /* "": the run's first */
	int threads;              /* 0: the run's first */
	char storage[16];         /* pair: global, percpu, hash, lock */
	enum pf_field field;
};

struct planfile {
	char path[256];
	char name[64];            /* the file's name without .tt */
	char title[160];
	char reproduces[64];      /* the seed thread: its file name */
	char source[160];
	bool per_kernel;          /* kernels = each: every section on every kernel (--kernel,
	                             repeatable; else those `make debian-kernels` fetched) */
	char *notes[PF_MAX_NOTES];
	int nnotes;
	struct pf_section sections[PF_MAX_SECTIONS];
	int nsections;
	struct pf_claim claims[PF_MAX_CLAIMS];
	int nclaims;
};

/* A plan is a page or two: a regular file of at most this. */
#define PLANFILE_MAX (64u << 10)
/*
 * Reads and checks @path (base/util.h's read_user_file). 0, or -1 with one line in @err that names the
 * file, the line and the field ("plan.tt:12: unknown field 'trcers'").
 */
int planfile_load(const char *path, struct planfile *pf, char *err, size_t len);
/* The same from a string (tests); @path names it in messages. */
int planfile_parse(const char *path, const char *text, struct planfile *pf, char *err, size_t len);
void planfile_release(struct planfile *pf);

/*
 * argv for `tracetax run` (or `pair`) of section @i: "run", its fields as
 * options, then @extra (the command line's, which win; a -t there replaces
 * the plan's tracers). malloc'd; the strings are borrowed. *argc set.
 */
char **planfile_argv(const struct planfile *pf, int i, int nextra, char **extra, int *argc);

#endif
