#ifndef TRACETAX_SIGNALS_H
#define TRACETAX_SIGNALS_H

/*
 * SIGINT/SIGTERM/SIGHUP are blocked in every thread and taken by one signal
 * thread, which records them and kills the running workload: every wait in
 * tracetax then returns, and the runner tears down before exiting.
 */
int signals_init(void);
int signals_interrupted(void);         /* the signal taken, or 0 */
void signals_unblock_in_child(void);   /* after fork, before exec */

#endif
