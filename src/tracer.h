/* The tracer interface: one file per tracer under src/tracers/, each ending
 * in one `const struct tracer_ops`, listed once in tracers/tracers.def. */
#ifndef TRACETAX_TRACER_H
#define TRACETAX_TRACER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "syscalls.h"

#define TT_REASON_MAX 256

/* Return values of supported() and setup(). */
enum { TT_OK = 0, TT_SKIP = 1, TT_FAIL = -1 };

/* What one traced run of the workload cost the tracer. */
struct tt_hits {
	int64_t hits;        /* events the tracer saw; -1: it cannot tell */
	int64_t lost;        /* events it saw but lost (overwritten, dropped) */
	int64_t stops;       /* ptrace: every stop it serviced; else -1 */
	double consumer_ns;  /* CPU time of a reader/supervisor we run; 0 if none */
};

struct tracer;
struct workload;

/* What a tracer needs the workload to offer (tracer_ops.hooks). */
#define TT_HOOK_SYSCALL 0x1   /* a syscall: t->target */
#define TT_HOOK_FUNC    0x2   /* a function call: t->func in t->func_path */
#define TT_HOOK_USDT    0x4   /* a USDT site: t->workload->usdt in t->load_path */

struct tracer_ops {
	const char *name;             /* stable: "ptrace:all", "bpf:tp" */
	unsigned hooks;               /* TT_HOOK_*: the core skips cells that lack it */
	const char *summary;          /* one line for `tracetax list` */
	const char *const *variants;  /* NULL-terminated, first is default; NULL: none */
	/*
	 * TT_OK when the tracer can run here, else TT_SKIP with the kernel's or
	 * the system's reason in @reason. Must probe, not guess.
	 */
	int (*supported)(const struct tracer *t, char *reason, size_t len);
	/* Once per cell: load programs, create the tracefs instance... */
	int (*setup)(struct tracer *t);
	/* In the forked child, before exec (seccomp filters). Return -1 on error. */
	int (*child_prep)(struct tracer *t);
	/* In the parent right after fork, before the workload is ready. */
	int (*spawned)(struct tracer *t, pid_t pid);
	/* After the workload is ready and before it is told to go. */
	int (*start)(struct tracer *t, pid_t pid);
	/* After the workload wrote its result (and exited): counts, detach. */
	int (*stop)(struct tracer *t, struct tt_hits *out);
	/* Always called, also after a partial setup or a failed run. */
	void (*teardown)(struct tracer *t);
};

struct tracer {
	const struct tracer_ops *ops;
	char name[64];               /* full name: "bpf:tp/count" */
	const char *variant;         /* NULL or the part after '/' */
	const struct tt_syscall *target; /* syscall hooked (--target); NULL: none */
	const struct workload *workload;
	const char *func;            /* function each op calls; NULL: none */
	const char *func_path;       /* the ELF file that defines it */
	int64_t load_recorded;       /* records the workload made itself (inline), -1: none */
	int tracer_cpu;              /* CPU for a tracer that the workload waits on
	                                (ptrace helper, seccomp supervisor); -1: any */
	int threads;
	int64_t events_hint;         /* events one run will make, to size buffers */
	const char *load_path;       /* the tracetax-load binary */
	void *priv;
	char err[TT_REASON_MAX];     /* why the last call failed or skipped */
};

/* Registry (tracers/registry.c). */
extern const struct tracer_ops *const tracer_table[];
/* "bpf:tp/count" -> the ops of "bpf:tp" and variant "count" (default when none). */
const struct tracer_ops *tracer_ops_find(const char *full, const char **variant_out,
					 char *err, size_t errlen);

/* Tracers report errors through this: sets t->err, returns TT_FAIL. */
int tracer_error(struct tracer *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int tracer_skip(struct tracer *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Core wrappers (tracer.c): own the error reporting and teardown rules. */
int tracer_init(struct tracer *t, const char *fullname, const struct tt_syscall *target,
		char *err, size_t errlen);
int tracer_supported(const struct tracer *t, char *reason, size_t len);
/* Pins the calling thread to t->tracer_cpu, when one is set (--tracer-cpu). */
void tracer_place_self(const struct tracer *t);

#endif
