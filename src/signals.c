#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/types.h>

#include "child.h"
#include "signals.h"

static volatile sig_atomic_t taken;
static sigset_t handled;

static void *signal_thread(void *arg)
{
	(void)arg;
	for (;;) {
		int sig;

		if (sigwait(&handled, &sig))
			continue;
		taken = sig;
		if (load_current_pid > 0)
			kill(load_current_pid, SIGKILL);
	}
	return NULL;
}

int signals_init(void)
{
	pthread_t th;
	pthread_attr_t attr;

	sigemptyset(&handled);
	sigaddset(&handled, SIGINT);
	sigaddset(&handled, SIGTERM);
	sigaddset(&handled, SIGHUP);
	/* A go byte written to a workload that died must be an error, not our death. */
	signal(SIGPIPE, SIG_IGN);
	if (pthread_sigmask(SIG_BLOCK, &handled, NULL))
		return -1;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&th, &attr, signal_thread, NULL))
		return -1;
	pthread_attr_destroy(&attr);
	return 0;
}

int signals_interrupted(void)
{
	return taken;
}

void signals_unblock_in_child(void)
{
	sigset_t none;

	/* Blocked and ignored dispositions survive exec: give the workload defaults. */
	signal(SIGPIPE, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}
