/*
 * Whole tools as tracers (strace, bpftrace, perf...): what they share. A
 * tool file describes its tool (struct tool_spec, its ops->data) and takes
 * TOOL_OPS; this module runs it: in a process group of its own, under
 * timeouts, with stdin from /dev/null and stdout and stderr captured in a
 * private temporary directory (where its output files go too), ready when
 * its output says so, stopped by a signal to the group, its start-up and
 * shut-down timed, and its last words kept as the reason when it fails.
 *
 * Two ways to meet the workload:
 *  - TOOL_WRAP: the tool's command comes before the workload's (the core's
 *    wrap op): `strace -f -o FILE tracetax-load ...`. It traces from exec,
 *    so the workload's ready line proves it is attached.
 *  - TOOL_ATTACH: launched in start() with the workload's pid, while the
 *    workload waits for go; attached once its output matches spec->ready
 *    (bpftrace prints from a BEGIN probe, strace says "Process N attached").
 *
 * The workload's main thread makes no op (every event comes from worker
 * threads it creates after go): a tool that traces from exec splits its
 * counts by thread and leaves the main thread's (ld.so, start-up) out.
 */
#ifndef TRACETAX_TRACERS_TOOL_H
#define TRACETAX_TRACERS_TOOL_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/cmdline.h"
#include "base/workdir.h"
#include "tracers/tracer.h"

/*
 * Room for any cmd: template the parser accepts (CMDLINE_MAX characters,
 * CMDLINE_WORDS words, each {pid} growing by at most 2 digits) after the
 * program's path, and for any tool's own words: a command line is never
 * cut, and one that would not fit is refused, not run short.
 */
#define TOOL_ARGS_MAX (CMDLINE_WORDS + 8)
#define TOOL_ARGS_ROOM (2 * CMDLINE_MAX + PATH_MAX)

struct tool;

/* A tool's command line, built into fixed room (no allocation per run). */
struct tool_argv {
	char *v[TOOL_ARGS_MAX + 1];
	int n;
	char buf[TOOL_ARGS_ROOM];
	size_t used;
	bool overflow;
};

enum tool_mode { TOOL_WRAP, TOOL_ATTACH };

/* What one tool is (tracer_ops.data of its tracers). */
struct tool_spec {
	const char *prog;        /* looked up in PATH */
	const char *package;     /* the Debian package that has it, named when it is missing */
	enum tool_mode mode;
	const char *ready;       /* attach: an ERE its stdout or stderr matches once attached;
	                            NULL: attached if still running after TOOL_GRACE_MS */
	const char *harmless;    /* an ERE: stderr lines that are no complaint; NULL: none */
	int detach_signal;       /* attach: what makes it detach, print and exit; 0: it
	                            leaves by itself once the workload is gone */
	int resignal_ms;         /* > 0: send detach_signal again every this many ms until
	                            it exits (a tool that can miss the first, see bpftrace.c) */
	int kind;                /* what tells one tool's tracers apart, for its own file */
	/* The words after the program; @pid: the workload's (attach) or 0 (wrap). */
	int (*args)(struct tracer *t, struct tool *tl, pid_t pid, struct tool_argv *av);
	/* Hits and lost from its own output, once it exited with status 0. */
	int (*count)(struct tracer *t, struct tool *tl, struct tt_hits *out);
	/* What it needs besides its program (a kernel feature, a hook); NULL: nothing. */
	int (*supported)(const struct tracer *t, char *reason, size_t len);
};

struct tool {
	const struct tool_spec *spec;
	char path[PATH_MAX];     /* the program */
	char dir[PATH_MAX];      /* private temporary directory, removed at teardown */
	pid_t pid;               /* the tool, leader of its own process group; -1: none */
	int pidfd;
	bool reap;               /* attach: forked by us, so reaped by us; wrap: the core reaps */
	pid_t load_pid;          /* the workload */
	int out_fd, err_fd;      /* its stdout and stderr: files in dir */
	uint64_t launched, ready, detached, exited;   /* CLOCK_MONOTONIC ns */
	int status;              /* wait status once it exited; -1 before */
	struct tool_argv av;
};

/* The generic ops: a tool file's ops take these, with .data = its spec. */
/* "'strace' is not installed (Debian package 'strace')" into @reason; @package may be NULL. */
void tool_missing(char *reason, size_t len, const char *prog, const char *package);
int tool_supported(const struct tracer *t, char *reason, size_t len);
int tool_setup(struct tracer *t);
/* tool_setup with a spec of the tracer's own (cmd:), which outlives the tool. */
int tool_setup_spec(struct tracer *t, const struct tool_spec *spec);
char *const *tool_wrap(struct tracer *t);
int tool_child_prep(struct tracer *t);
int tool_spawned(struct tracer *t, pid_t pid);
int tool_start(struct tracer *t, pid_t pid);
int tool_stop(struct tracer *t, struct tt_hits *out);
void tool_teardown(struct tracer *t);

#define TOOL_OPS \
	.flags = TT_F_TOOL, .supported = tool_supported, .setup = tool_setup, \
	.wrap = tool_wrap, .child_prep = tool_child_prep, .spawned = tool_spawned, \
	.start = tool_start, .stop = tool_stop, .teardown = tool_teardown

/* For the tool files. */
void tool_arg(struct tool_argv *av, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "DIR/name" of a file in the tool's directory. */
void tool_file(const struct tool *tl, const char *name, char *buf, size_t len);
/* A file of the directory ("stdout", "stderr", its output), NUL-terminated, malloc'd; NULL: none. */
char *tool_slurp(const struct tool *tl, const char *name);
/* Its last words: the last line of stderr that is not harmless, else of stdout. */
void tool_last_words(const struct tool *tl, char *buf, size_t len);
/* Runs a helper command of the tool (perf script) to @out_name in the directory; TT_OK or TT_FAIL. */
int tool_run(struct tracer *t, struct tool *tl, char *const argv[], const char *out_name,
	     int timeout_ms);


/* Inside the tool module (tool.c, tool_proc.c): processes and files of a tool. */
#define TOOL_READY_MS 30000   /* bpftrace compiles and loads in ~0.5 s here; a loaded VM takes longer */
#define TOOL_GRACE_MS 1000    /* a tool that cannot say it is attached: assumed after this */
#define TOOL_EXIT_MS 30000    /* perf writes its file, strace its summary */

void tool_argv_reset(struct tool_argv *av, const char *prog);
int tool_dir_create(struct tool *tl, char *err, size_t len);
void tool_dir_remove(struct tool *tl);
int tool_files_open(struct tool *tl, char *err, size_t len);
void tool_files_close(struct tool *tl);
pid_t tool_fork(struct tool *tl, char *const argv[], int out, int err, char *msg, size_t len);
void tool_signal(struct tool *tl, int sig);
int tool_wait_exit(struct tool *tl, int ms);
int tool_wait_output(struct tool *tl, const char *ere, int ms, char *err, size_t len);
void tool_forget(struct tool *tl);

#endif
