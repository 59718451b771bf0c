/*
 * Inside the lttng-ust tracer (lttng.c, lttng_daemon.c): the session
 * daemon tracetax starts for each traced run, and what it leaves on the
 * machine that is ours to remove.
 *
 * A root lttng-sessiond always works in /var/run/lttng (no option moves
 * it), and it and the workload's liblttng-ust leave /dev/shm/lttng-ust-wait-*
 * behind. What did not exist before our daemon started is ours: listed in
 * the tool directory's OWNED_FILE, so that `tracetax cleanup` (after a
 * SIGKILL of tracetax) removes exactly that, and kills the daemon's
 * process group if anything of it survived.
 */
#ifndef TRACETAX_TRACERS_LTTNG_H
#define TRACETAX_TRACERS_LTTNG_H

#include <stdbool.h>
#include <stdint.h>

#include "tracers/tools/tool.h"

#define LTTNG_RUNDIR "/var/run/lttng"
#define LTTNG_OWNED_FILE "lttng-owned"
#define LTTNG_NOWNED 3

struct lttng {
	struct tool tl;              /* the session daemon, the private directory */
	char lttng[PATH_MAX];        /* the lttng client */
	char bt[PATH_MAX];           /* babeltrace2 */
	char provider[PATH_MAX];     /* build/libtracetax-ust.so */
	char home[PATH_MAX];         /* LTTNG_HOME of the cell: DIR/home */
	char *old_home;              /* LTTNG_HOME before the cell; NULL: unset */
	bool had_home;
	bool owned[LTTNG_NOWNED];    /* the paths of lttng_owned_paths created by our daemon */
	bool armed;                  /* this run's session is started: the workload may go */
	bool session;                /* a session to destroy */
	uint64_t launched, ready, detached, exited;
};

/* The paths a daemon of ours may create (/var/run/lttng, the shm wait files). */
extern const char *const lttng_owned_paths[LTTNG_NOWNED];

/* Another lttng-sessiond on the machine: its pid, else 0. */
pid_t lttng_other_sessiond(void);
/* Starts lttng-sessiond in a group of its own and waits until it takes commands. */
int lttng_daemon_start(struct tracer *t, struct lttng *l);
/* Stops it (SIGTERM, then SIGKILL to its group), waits for its consumer daemons,
 * removes what it created. Safe to call when none runs. */
void lttng_daemon_stop(struct lttng *l);
/* Runs `lttng --no-sessiond ARGS...` (NULL-terminated), its stdout to @out_name. */
int lttng_cmd(struct tracer *t, struct lttng *l, const char *out_name, ...)
	__attribute__((sentinel));
/* For tool_cleanup_stale: the leftovers a dead tracetax recorded in @dir. */
void lttng_cleanup_stale(const char *dir);

#endif
