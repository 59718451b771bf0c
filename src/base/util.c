#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/util.h"

int tt_verbose;

static void vreport(const char *prefix, const char *fmt, va_list ap)
{
	char msg[1024];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	fprintf(stderr, "tracetax: %s%s\n", prefix, msg);
}

int error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("error: ", fmt, ap);
	va_end(ap);
	return -1;
}

void warning(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("warning: ", fmt, ap);
	va_end(ap);
}

void debug(const char *fmt, ...)
{
	va_list ap;

	if (!tt_verbose)
		return;
	va_start(ap, fmt);
	vreport("debug: ", fmt, ap);
	va_end(ap);
}

static void (*die_hook)(void *);
static void *die_hook_arg;

void die_hook_set(void (*fn)(void *arg), void *arg)
{
	die_hook = fn;
	die_hook_arg = arg;
}

/* Once: a teardown that dies in turn must not run itself again. */
static void run_die_hook(void)
{
	void (*fn)(void *) = die_hook;

	die_hook = NULL;
	if (fn)
		fn(die_hook_arg);
}

noreturn void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("fatal: ", fmt, ap);
	va_end(ap);
	run_die_hook();
	exit(1);
}

noreturn void die_usage(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("", fmt, ap);
	va_end(ap);
	exit(2);
}

noreturn void bug_at(const char *file, int line, const char *msg)
{
	fprintf(stderr, "tracetax: BUG: %s:%d: %s\n", file, line, msg);
	run_die_hook();
	abort();
}

static uint64_t clock_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t process_cpu_ns(void) { return clock_ns(CLOCK_PROCESS_CPUTIME_ID); }
uint64_t thread_cpu_ns(void) { return clock_ns(CLOCK_THREAD_CPUTIME_ID); }

double fresh_getpid_ns(void)
{
	int p[2];
	pid_t pid;
	double ns = -1;

	if (pipe2(p, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (!pid) {
		double best = 1e18;

		close(p[0]);
		for (int r = 0; r < 8; r++) {
			uint64_t t0 = thread_cpu_ns();

			for (int i = 0; i < 20000; i++)
				syscall(SYS_getpid);
			double v = (double)(thread_cpu_ns() - t0) / 20000;

			if (v < best)
				best = v;
		}
		if (write(p[1], &best, sizeof(best)) != sizeof(best))
			_exit(1);
		_exit(0);
	}
	close(p[1]);
	if (read(p[0], &ns, sizeof(ns)) != sizeof(ns))
		ns = -1;
	close(p[0]);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	return ns;
}

int read_file_str(const char *path, char *buf, size_t len)
{
	int fd;
	ssize_t n;

	if (len == 0 || (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return 0;
}

char *slurp_fd(int fd, size_t max, size_t *len)
{
	size_t cap = max < (1 << 16) ? max : 1 << 16, n = 0;
	char *buf = malloc(cap + 1);

	if (!buf)
		die("out of memory");
	while (n < max) {
		ssize_t got;

		if (n == cap) {
			cap = cap * 2 < max ? cap * 2 : max;
			buf = realloc(buf, cap + 1);
			if (!buf)
				die("out of memory");
		}
		got = read(fd, buf + n, cap - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			int e = errno;

			free(buf);
			errno = e;
			return NULL;
		}
		if (got == 0)
			break;
		n += (size_t)got;
	}
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

const char *size_words(size_t max, char *buf, size_t len)
{
	if (max >= (1u << 20) && !(max & ((1u << 20) - 1)))
		snprintf(buf, len, "%zu MiB", max >> 20);
	else if (max >= (1u << 10) && !(max & ((1u << 10) - 1)))
		snprintf(buf, len, "%zu KiB", max >> 10);
	else
		snprintf(buf, len, "%zu bytes", max);
	return buf;
}

int read_user_file(const char *what, const char *path, size_t max, char **text, size_t *len,
		   char *err, size_t errlen)
{
	/* O_NONBLOCK: the open of a FIFO with no writer would wait forever */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC), e;
	struct stat st;
	char words[32];
	size_t n;

	*text = NULL;
	if (fd < 0 || fstat(fd, &st)) {
		e = errno;
		snprintf(err, errlen, "cannot read %s '%s': %s", what, path, strerror(e));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s '%s' is %s", what, path,
			 S_ISDIR(st.st_mode) ? "a directory" : "not a regular file");
		close(fd);
		return -1;
	}
	if ((uint64_t)st.st_size > max) {
		snprintf(err, errlen, "%s '%s' is larger than %s", what, path,
			 size_words(max, words, sizeof(words)));
		close(fd);
		return -1;
	}
	/* a regular file never blocks; one more byte than @max tells one that grew */
	*text = slurp_fd(fd, max + 1, &n);
	e = errno;
	close(fd);
	if (!*text) {
		snprintf(err, errlen, "cannot read %s '%s': %s", what, path, strerror(e));
		return -1;
	}
	if (n > max) {
		free(*text);
		*text = NULL;
		snprintf(err, errlen, "%s '%s' is larger than %s", what, path,
			 size_words(max, words, sizeof(words)));
		return -1;
	}
	if (len)
		*len = n;
	return 0;
}

void utc_iso(time_t t, char *buf, size_t len)
{
	struct tm tm;

	if (!gmtime_r(&t, &tm) || !strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(buf, len, "%s", "");
}

int utc_parse(const char *iso, time_t *t)
{
	struct tm tm, want, back;
	const char *end;

	memset(&tm, 0, sizeof(tm));
	end = strptime(iso, "%Y-%m-%dT%H:%M:%SZ", &tm);
	if (!end || *end)
		return -1;
	want = tm;	/* timegm normalises what it is given */
	*t = timegm(&tm);
	/* strptime takes February 30th, timegm makes it March 1st: a date that
	 * is not one would move a window (drift.c) or a time (prometheus.c) */
	if (!gmtime_r(t, &back) || back.tm_mday != want.tm_mday || back.tm_mon != want.tm_mon ||
	    back.tm_year != want.tm_year || back.tm_hour != want.tm_hour ||
	    back.tm_min != want.tm_min || back.tm_sec != want.tm_sec)
		return -1;
	return 0;
}

int write_file_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	size_t len = strlen(s);
	ssize_t n;
	int saved;

	if (fd < 0)
		return -1;
	n = write(fd, s, len);
	saved = errno;
	close(fd);
	errno = saved;
	return n == (ssize_t)len ? 0 : -1;
}

int parse_i64(const char *s, int64_t min, int64_t max, int64_t *out)
{
	char *end;
	long long v;

	if (!s || !*s)
		return -1;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

void format_count(char *buf, size_t len, int64_t v)
{
	static const char units[] = "kMGTP";
	double d = (double)v;
	int u = -1;

	if (v < 10000) {
		snprintf(buf, len, "%lld", (long long)v);
		return;
	}
	while (u < 4 && fabs(d) >= 999.5) {
		d /= 1000;
		u++;
	}
	snprintf(buf, len, "%.3g%c", d, units[u]);
}

void format_ns(char *buf, size_t len, double v)
{
	if (!isfinite(v))
		snprintf(buf, len, "-");
	else if (fabs(v) < 10)
		snprintf(buf, len, "%.2f", v);
	else if (fabs(v) < 1000)
		snprintf(buf, len, "%.1f", v);
	else
		snprintf(buf, len, "%.0f", v);
}
