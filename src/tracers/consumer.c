/*
 * Consumer threads (consumer.h). A request is a word under a mutex and a
 * write to the eventfd the thread polls; the answer comes back on a
 * condition variable, waited on with a deadline. The thread reads its own
 * CPU clock when it answers and when it ends: right after it exited too.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "tracers/tracer.h"
#include "base/util.h"
#include "tracers/consumer.h"

/* A drain takes milliseconds; this only turns a stuck thread into an error. */
#define ANSWER_TIMEOUT_S 10

enum { REQ_NONE, REQ_DRAIN, REQ_QUIT };

struct consumer {
	struct consumer_conf conf;	/* its name and fds are copied below */
	char name[16];
	pthread_t th;
	int efd;		/* readable while a request is pending */
	pthread_mutex_t lock;	/* guards the fields below */
	pthread_cond_t answered;
	int req;		/* REQ_*: the owner's last request */
	unsigned asked, done;	/* requests made, and answered */
	bool ended;		/* the thread left its loop */
	uint64_t cpu_end;	/* its CPU clock at its last answer or its end */
	uint64_t cpu0;		/* its CPU clock at consumer_reset() */
	char err[TT_REASON_MAX];	/* why it failed or was given up, "" if not */
	struct pollfd fds[];	/* the consumer's, then efd */
};

int consumer_fail(struct consumer *c, const char *fmt, ...)
{
	va_list ap;
	int n;

	pthread_mutex_lock(&c->lock);
	if (!c->err[0]) {
		n = snprintf(c->err, sizeof(c->err), "consumer '%s' failed: ", c->name);
		va_start(ap, fmt);
		vsnprintf(c->err + n, sizeof(c->err) - (size_t)n, fmt, ap);
		va_end(ap);
	}
	pthread_mutex_unlock(&c->lock);
	return -1;
}

static void answer(struct consumer *c, unsigned seq, bool end)
{
	uint64_t cpu = thread_cpu_ns();

	pthread_mutex_lock(&c->lock);
	c->cpu_end = cpu;
	c->done = seq;
	c->ended = end;
	pthread_cond_broadcast(&c->answered);
	pthread_mutex_unlock(&c->lock);
}

static void *consumer_main(void *arg)
{
	struct consumer *c = arg;
	int rc = CONSUMER_MORE, req, n = c->conf.nfds;
	unsigned seq = 0;
	uint64_t v;

	pthread_setname_np(pthread_self(), c->name);
	if (c->conf.placed)
		tracer_place_self(c->conf.placed);
	while (rc == CONSUMER_MORE) {
		if (poll(c->fds, (nfds_t)n + 1, c->conf.period_ms) < 0) {
			if (errno != EINTR)
				rc = consumer_fail(c, "poll: %s", strerror(errno));
			continue;
		}
		req = REQ_NONE;
		if ((c->fds[n].revents & POLLIN) && read(c->efd, &v, sizeof(v)) > 0) {
			pthread_mutex_lock(&c->lock);
			req = c->req;
			seq = c->asked;
			pthread_mutex_unlock(&c->lock);
		}
		rc = c->conf.work(c, c->conf.arg, c->fds, req != REQ_NONE);
		if (req == REQ_QUIT && rc == CONSUMER_MORE)
			rc = CONSUMER_END;
		else if (req != REQ_NONE && rc == CONSUMER_MORE)
			answer(c, seq, false);
	}
	answer(c, seq, true);
	return NULL;
}

/* Make a request, wait for its answer or the thread's end. A write to an eventfd cannot fail. */
static int ask(struct consumer *c, int req, uint64_t *cpu_ns, char *err, size_t len)
{
	uint64_t one = 1;
	struct timespec dl;
	int rc = 0;

	clock_gettime(CLOCK_MONOTONIC, &dl);
	dl.tv_sec += ANSWER_TIMEOUT_S;
	pthread_mutex_lock(&c->lock);
	if (!c->ended) {
		c->req = req;
		c->asked++;
		rc = write(c->efd, &one, sizeof(one)) < 0;
	}
	while (!rc && c->done != c->asked && !c->ended)
		rc = pthread_cond_timedwait(&c->answered, &c->lock, &dl);
	if (rc && !c->err[0])	/* it stays failed: a late answer is no proof */
		snprintf(c->err, sizeof(c->err), "consumer '%s' did not answer within %d s",
			 c->name, ANSWER_TIMEOUT_S);
	if (cpu_ns)
		*cpu_ns = c->cpu_end > c->cpu0 ? c->cpu_end - c->cpu0 : 0;
	rc = c->err[0] ? -1 : 0;
	if (rc && err)
		snprintf(err, len, "%s", c->err);
	pthread_mutex_unlock(&c->lock);
	return rc;
}

void consumer_reset(struct consumer *c)
{
	clockid_t clk;
	struct timespec ts;

	/* Under the lock, a thread not yet ended cannot exit: its clock is readable. */
	pthread_mutex_lock(&c->lock);
	if (c->ended)
		c->cpu0 = c->cpu_end;
	else if (!pthread_getcpuclockid(c->th, &clk) && !clock_gettime(clk, &ts))
		c->cpu0 = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	pthread_mutex_unlock(&c->lock);
}

int consumer_drain(struct consumer *c, uint64_t *cpu_ns, char *err, size_t len)
{
	return ask(c, REQ_DRAIN, cpu_ns, err, len);
}

static void consumer_free(struct consumer *c)
{
	close(c->efd);
	pthread_cond_destroy(&c->answered);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

int consumer_stop(struct consumer **cp, uint64_t *cpu_ns, char *err, size_t len)
{
	struct consumer *c = *cp;
	int rc;

	if (cpu_ns)
		*cpu_ns = 0;
	if (!c)
		return 0;
	rc = ask(c, REQ_QUIT, cpu_ns, err, len);
	pthread_mutex_lock(&c->lock);
	/* Stuck: its blocking calls (poll, read, splice) are cancellation points. */
	if (!c->ended)
		pthread_cancel(c->th);
	pthread_mutex_unlock(&c->lock);
	pthread_join(c->th, NULL);
	consumer_free(c);
	*cp = NULL;
	return rc;
}

struct consumer *consumer_start(const struct consumer_conf *conf, char *err, size_t len)
{
	struct consumer *c = calloc(1, sizeof(*c) + ((size_t)conf->nfds + 1) * sizeof(c->fds[0]));
	pthread_condattr_t ca;
	pthread_attr_t attr;
	sigset_t all;
	int e;

	if (!c || (c->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0) {
		snprintf(err, len, "cannot create consumer '%s': %s", conf->name, strerror(errno));
		free(c);
		return NULL;
	}
	c->conf = *conf;
	snprintf(c->name, sizeof(c->name), "%s", conf->name);
	memcpy(c->fds, conf->fds, (size_t)conf->nfds * sizeof(c->fds[0]));
	c->fds[conf->nfds] = (struct pollfd){ .fd = c->efd, .events = POLLIN };
	pthread_mutex_init(&c->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&c->answered, &ca);
	pthread_attr_init(&attr);
	sigfillset(&all);
	pthread_attr_setsigmask_np(&attr, &all);
	e = pthread_create(&c->th, &attr, consumer_main, c);
	pthread_attr_destroy(&attr);
	pthread_condattr_destroy(&ca);
	if (e) {
		snprintf(err, len, "cannot start consumer '%s': %s", c->name, strerror(e));
		consumer_free(c);
		return NULL;
	}
	return c;
}
