/*
 * The names of a cell's status and of what ended its reps: the one place
 * they are spelled. The document writes and reads them, the CSV and the
 * store rows carry them, the progress line prints the phrase.
 */
#include "results/results.h"

const char *const cell_status_names[] = {
	[CELL_OK] = "ok", [CELL_SKIPPED] = "skipped", [CELL_FAILED] = "failed", NULL,
};

const char *const cell_end_names[] = {
	[END_REPS] = "reps", [END_PRECISION] = "precision", [END_MAX_TIME] = "max_time",
	[END_MAX_REPS] = "max_reps", [END_STOPPED] = "stopped", NULL,
};

/* For people, after the rep count; "" when the reps asked for ended it. */
static const char *const end_phrases[] = {
	[END_REPS] = "", [END_PRECISION] = "precision reached",
	[END_MAX_TIME] = "time share spent", [END_MAX_REPS] = "most reps", [END_STOPPED] = "",
};

const char *const slow_cause_names[] = {
	[SLOW_AUDIT] = "audit", [SLOW_TRACEPOINT] = "syscall_tracepoint", [SLOW_SECCOMP] = "seccomp",
	[SLOW_PTRACE] = "ptrace", [SLOW_USER_DISPATCH] = "user_dispatch", NULL,
};

const char *cell_status_name(enum cell_status s)
{
	return (unsigned)s <= CELL_FAILED ? cell_status_names[s] : "failed";
}

const char *cell_end_name(enum cell_end e)
{
	return (unsigned)e <= END_STOPPED ? cell_end_names[e] : "stopped";
}

const char *cell_end_phrase(enum cell_end e)
{
	return (unsigned)e <= END_STOPPED ? end_phrases[e] : "";
}
