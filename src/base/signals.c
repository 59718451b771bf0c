#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/signals.h"

static volatile sig_atomic_t taken;
static sigset_t handled;
/* Guards the pidfd and the doing text between the runner and the signal thread. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int watched = -1;
static char doing[256];

static void *signal_thread(void *arg)
{
	(void)arg;
	for (;;) {
		int sig;

		if (sigwait(&handled, &sig))
			continue;
		pthread_mutex_lock(&lock);
		if (taken && doing[0])
			/* stderr: the user pressed Ctrl-C again and wants to know why we are still here */
			fprintf(stderr, "tracetax: interrupted: still %s, then tracetax exits\n", doing);
		if (!taken)
			taken = sig;
		if (watched >= 0)
			syscall(SYS_pidfd_send_signal, watched, SIGKILL, NULL, 0);
		pthread_mutex_unlock(&lock);
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

void signals_watch(int pidfd)
{
	pthread_mutex_lock(&lock);
	watched = pidfd;
	pthread_mutex_unlock(&lock);
	/* killed already: a workload spawned after the signal dies at once too */
	if (pidfd >= 0 && taken)
		syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0);
}

void signals_doing(const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&lock);
	doing[0] = '\0';
	if (fmt) {
		va_start(ap, fmt);
		vsnprintf(doing, sizeof(doing), fmt, ap);
		va_end(ap);
	}
	pthread_mutex_unlock(&lock);
}

void signals_reraise(void)
{
	int sig = taken;
	sigset_t one;

	if (!sig)
		return;
	fflush(NULL);
	signal(sig, SIG_DFL);
	sigemptyset(&one);
	sigaddset(&one, sig);
	/* raise() first: pending and blocked, it is delivered when unblocked */
	raise(sig);
	pthread_sigmask(SIG_UNBLOCK, &one, NULL);
	_exit(128 + sig);	/* never: the default action of these signals is to die */
}
