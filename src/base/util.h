#ifndef TRACETAX_UTIL_H
#define TRACETAX_UTIL_H

#include <stdint.h>
#include <stdnoreturn.h>
#include <time.h>

/* git's rules: lower case, no full stop, the problem first, 'subject' quoted. */
int error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
noreturn void die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * What die() and BUG() run before they exit, once (NULL: nothing): the
 * runner tears down the cell whose tracer is set up, so that a fatal error
 * deep inside a cell leaves no instance, probe or program behind.
 */
void die_hook_set(void (*fn)(void *arg), void *arg);
/* Bad input: one line, exit 2. */
noreturn void die_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#define BUG(msg) bug_at(__FILE__, __LINE__, msg)
noreturn void bug_at(const char *file, int line, const char *msg);

static inline uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* CLOCK_MONOTONIC in seconds: for deadlines and durations, not for timing a loop. */
static inline double now_s(void)
{
	return (double)now_ns() / 1e9;
}

/* CPU time of this whole process (all threads), ns. */
uint64_t process_cpu_ns(void);
uint64_t thread_cpu_ns(void);
/*
 * A fresh process's syscall(getpid): ns a call, the least of 8 runs of
 * 20000 timed on its own CPU clock (the wall clock of a shared box is
 * anyone's). What every new task pays a syscall on this boot: the slow
 * path's work (an audit context, a syscall tracepoint) shows here. -1 when
 * it cannot be measured.
 */
double fresh_getpid_ns(void);

/* Read a small file into buf, trailing newline cut; -1 on error. */
int read_file_str(const char *path, char *buf, size_t len);
int write_file_str(const char *path, const char *s);

/*
 * All of @fd, up to @max bytes (a larger file is cut there: read max + 1
 * to tell "too large"), NUL-terminated, its length in *@len (may be NULL).
 * NULL with errno on a read error.
 */
char *slurp_fd(int fd, size_t max, size_t *len);

/*
 * A file a user named (a rule file, a plan, a results document): read
 * whole, as untrusted input. Opened without waiting (a FIFO never blocks
 * it) and checked with fstat before a byte is read: a regular file only
 * (never /dev/zero, a FIFO, a directory), at most @max bytes. Its text,
 * NUL-ended, in *@text (to free), its length in *@len (may be NULL). 0, or
 * -1 and one line in @err naming @what and @path: "rule file '/dev/zero'
 * is not a regular file".
 */
int read_user_file(const char *what, const char *path, size_t max, char **text, size_t *len,
		   char *err, size_t errlen);
/* @max for people: "64 MiB", "512 KiB", "100 bytes". */
const char *size_words(size_t max, char *buf, size_t len);

/*
 * Times as tracetax writes them, ISO 8601 UTC to the second,
 * "2025-01-02T03:04:05Z": @t so written into @buf (UTC_ISO_LEN bytes are
 * enough), and read back, strictly (the whole string): 0, or -1.
 */
#define UTC_ISO_LEN 32
void utc_iso(time_t t, char *buf, size_t len);
int utc_parse(const char *iso, time_t *t);

/* Strict number parsing: whole string, in range; -1 on error. */
int parse_i64(const char *s, int64_t min, int64_t max, int64_t *out);

/* ns for people: 3.14, 31.4, 314.2, 31416; "-" for NaN. */
void format_ns(char *buf, size_t len, double v);
/* A count for people: exact below 10000, else 3 significant digits with
 * k/M/G/T/P (12.3k, 1.23M): counts are there to compare, and a cell's note
 * gives the exact figures when hits and events differ. */
void format_count(char *buf, size_t len, int64_t v);

extern int tt_verbose;
void debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
