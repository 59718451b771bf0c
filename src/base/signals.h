#ifndef TRACETAX_SIGNALS_H
#define TRACETAX_SIGNALS_H

#include <sys/types.h>

/*
 * SIGINT/SIGTERM/SIGHUP are blocked in every thread and taken by one signal
 * thread, which records them and kills the running workload: every wait in
 * tracetax then returns, and the runner tears down before exiting. A second
 * signal says what tracetax is still waiting for; once everything is torn
 * down, signals_reraise() dies of the first one, so that the parent sees
 * the real cause.
 */
int signals_init(void);
int signals_interrupted(void);         /* the signal taken, or 0 */
void signals_unblock_in_child(void);   /* after fork, before exec */
/*
 * The workload the signal thread kills, by pidfd, so that it never signals
 * a pid that was reaped and reused: set after spawning, -1 before reaping
 * (the call waits until the signal thread is done with the old one).
 */
void signals_watch(int pidfd);
/* What tracetax is doing, for a second Ctrl-C; NULL: nothing to wait for. */
void signals_doing(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* After teardown: die of the signal taken (no return), if one was. */
void signals_reraise(void);

#endif
