/* Inside the tool module (tool.c, tool_proc.c): processes and files of a tool. */
#ifndef TRACETAX_TRACERS_TOOL_PROC_H
#define TRACETAX_TRACERS_TOOL_PROC_H

#include <stddef.h>
#include <sys/types.h>

#include "tool.h"

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
