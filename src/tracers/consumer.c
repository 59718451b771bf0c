/*
 * Consumer threads (consumer.h). The thread sleeps in poll(2) on its own
 * fds and an eventfd; a request is a word under a mutex plus a write to
 * that eventfd, and the answer comes back on a condition variable, which
 * the owner waits on with a deadline: a stuck consumer is an error, never
 * a hang. The thread reads its own CPU clock when it answers and when it
 * ends, so the figure is there after it exited too.
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

#include "../tracer.h"
#include "../util.h"
#include "consumer.h"

/* A drain takes milliseconds; this only turns a stuck thread into an error. */
#define ANSWER_TIMEOUT_S 10

enum { REQ_NONE, REQ_DRAIN, REQ_QUIT };

struct consumer {
	char name[16];
	const struct tracer *placed;
	int period_ms;
	int (*work)(struct consumer *c, void *arg, struct pollfd *fds, bool drain);
	void *arg;
	pthread_t th;
	int efd;		/* readable while a request is pending */
	pthread_mutex_t lock;	/* guards the fields up to err */
	pthread_cond_t answered;
	int req;		/* REQ_*: the owner's last request */
	unsigned asked, done;	/* requests made, and answered */
	bool ended;		/* the thread left its loop */
	uint64_t cpu_end;	/* its CPU clock at its last answer or its end */
	uint64_t cpu0;		/* its CPU clock at consumer_reset() */
	char err[TT_REASON_MAX];	/* why work() failed, "" if it did not */
	int nfds;
	struct pollfd fds[];	/* the consumer's, then efd */
};

int consumer_fail(struct consumer *c, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&c->lock);
	if (!c->err[0]) {
		va_start(ap, fmt);
		vsnprintf(c->err, sizeof(c->err), fmt, ap);
		va_end(ap);
	}
	pthread_mutex_unlock(&c->lock);
	return -1;
}

/* The owner's pending request, if the eventfd says there is one; @seq: its number. */
static int take_request(struct consumer *c, unsigned *seq)
{
	uint64_t n;
	int req;

	if (!(c->fds[c->nfds].revents & POLLIN))
		return REQ_NONE;
	if (read(c->efd, &n, sizeof(n)) < 0)
		return REQ_NONE;	/* EAGAIN: a wake-up already taken */
	pthread_mutex_lock(&c->lock);
	req = c->req;
	*seq = c->asked;
	pthread_mutex_unlock(&c->lock);
	return req;
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
	int rc = CONSUMER_MORE, req;
	unsigned seq = 0;

	pthread_setname_np(pthread_self(), c->name);
	if (c->placed)
		tracer_place_self(c->placed);
	while (rc == CONSUMER_MORE) {
		if (poll(c->fds, (nfds_t)c->nfds + 1, c->period_ms) < 0) {
			if (errno != EINTR)
				rc = consumer_fail(c, "poll: %s", strerror(errno));
			continue;
		}
		req = take_request(c, &seq);
		rc = c->work(c, c->arg, c->fds, req != REQ_NONE);
		if (req == REQ_QUIT && rc == CONSUMER_MORE)
			rc = CONSUMER_END;
		if (req != REQ_NONE && rc == CONSUMER_MORE)
			answer(c, seq, false);
	}
	answer(c, seq, true);
	return NULL;
}

static int say(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (err) {
		va_start(ap, fmt);
		vsnprintf(err, len, fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* Make a request and wait for its answer, or for the thread's end. */
static int ask(struct consumer *c, int req, uint64_t *cpu_ns, char *err, size_t len)
{
	uint64_t one = 1;
	struct timespec dl;
	int e = 0, rc = 0;

	clock_gettime(CLOCK_MONOTONIC, &dl);
	dl.tv_sec += ANSWER_TIMEOUT_S;
	pthread_mutex_lock(&c->lock);
	if (!c->ended) {
		c->req = req;
		c->asked++;
		if (write(c->efd, &one, sizeof(one)) != sizeof(one))
			e = errno;
	}
	while (!e && c->done != c->asked && !c->ended)
		e = pthread_cond_timedwait(&c->answered, &c->lock, &dl);
	if (cpu_ns)
		*cpu_ns = c->cpu_end > c->cpu0 ? c->cpu_end - c->cpu0 : 0;
	if (e == ETIMEDOUT)
		rc = say(err, len, "consumer '%s' did not answer within %d s", c->name,
			 ANSWER_TIMEOUT_S);
	else if (e)
		rc = say(err, len, "cannot wake consumer '%s': %s", c->name, strerror(e));
	else if (c->err[0])
		rc = say(err, len, "consumer '%s' failed: %s", c->name, c->err);
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
	bool stuck;

	if (cpu_ns)
		*cpu_ns = 0;
	if (!c)
		return 0;
	rc = ask(c, REQ_QUIT, cpu_ns, err, len);
	pthread_mutex_lock(&c->lock);
	stuck = !c->ended;
	pthread_mutex_unlock(&c->lock);
	/* Its blocking calls (poll, read, splice) are cancellation points. */
	if (stuck)
		pthread_cancel(c->th);
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

	if (!c) {
		say(err, len, "cannot allocate consumer '%s': %s", conf->name, strerror(ENOMEM));
		return NULL;
	}
	snprintf(c->name, sizeof(c->name), "%s", conf->name);
	c->placed = conf->placed;
	c->period_ms = conf->period_ms;
	c->work = conf->work;
	c->arg = conf->arg;
	c->nfds = conf->nfds;
	memcpy(c->fds, conf->fds, (size_t)conf->nfds * sizeof(c->fds[0]));
	c->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (c->efd < 0) {
		say(err, len, "cannot create eventfd: %s", strerror(errno));
		free(c);
		return NULL;
	}
	c->fds[c->nfds] = (struct pollfd){ .fd = c->efd, .events = POLLIN };
	pthread_mutex_init(&c->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&c->answered, &ca);
	pthread_condattr_destroy(&ca);
	sigfillset(&all);
	pthread_attr_init(&attr);
	pthread_attr_setsigmask_np(&attr, &all);
	e = pthread_create(&c->th, &attr, consumer_main, c);
	pthread_attr_destroy(&attr);
	if (e) {
		say(err, len, "cannot start consumer thread '%s': %s", c->name, strerror(e));
		consumer_free(c);
		return NULL;
	}
	return c;
}
