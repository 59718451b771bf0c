/*
 * The processes and files of a tool (tool.h): its private directory, its
 * launch in a process group of its own, bounded waits for its output and
 * its exit, and the kill of the whole group. A tool is one of ours only
 * while it runs for us: every path that gives up on it kills its group.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <regex.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/spawn.h"
#include "base/signals.h"
#include "base/util.h"
#include "base/workdir.h"
#include "tracers/tools/tool.h"

void tool_arg(struct tool_argv *av, const char *fmt, ...)
{
	size_t room = sizeof(av->buf) - av->used;
	va_list ap;
	int n;

	if (av->n >= TOOL_ARGS_MAX) {
		av->overflow = true;
		return;
	}
	va_start(ap, fmt);
	n = vsnprintf(av->buf + av->used, room, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= room) {
		av->overflow = true;
		return;
	}
	av->v[av->n++] = av->buf + av->used;
	av->v[av->n] = NULL;
	av->used += (size_t)n + 1;
}

void tool_argv_reset(struct tool_argv *av, const char *prog)
{
	av->n = 0;
	av->used = 0;
	av->overflow = false;
	av->v[0] = NULL;
	tool_arg(av, "%s", prog);
}

/* Before each run: the directory emptied, stdout and stderr files opened afresh. */
int tool_files_open(struct tool *tl, char *err, size_t len)
{
	char path[PATH_MAX];

	tool_files_close(tl);
	if (workdir_empty(tl->dir)) {
		snprintf(err, len, "cannot empty '%s': %s", tl->dir, strerror(errno));
		return -1;
	}
	tool_file(tl, "stdout", path, sizeof(path));
	tl->out_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	tool_file(tl, "stderr", path, sizeof(path));
	tl->err_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (tl->out_fd < 0 || tl->err_fd < 0) {
		snprintf(err, len, "cannot create '%s': %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

void tool_files_close(struct tool *tl)
{
	if (tl->out_fd >= 0)
		close(tl->out_fd);
	if (tl->err_fd >= 0)
		close(tl->err_fd);
	tl->out_fd = tl->err_fd = -1;
}

void tool_file(const struct tool *tl, const char *name, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s", tl->dir, name);
}

char *tool_slurp(const struct tool *tl, const char *name)
{
	char path[PATH_MAX], *buf;
	int fd;

	tool_file(tl, name, path, sizeof(path));
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return NULL;
	buf = slurp_fd(fd, SIZE_MAX - 1, NULL);
	close(fd);
	return buf;
}

/*
 * A line that complains, as tools start theirs: "strace: ...", "ERROR: ...".
 * A tool that prints its usage after "unrecognized option" has that line
 * as its word, not the usage's last line.
 */
#define COMPLAINT "^([^ ]*/)?%s: |^(ERROR|Error|error|FATAL|Fatal|fatal)"

/*
 * The last line of @text that says something, is not @harmless and, with
 * @want, matches it; "" if none.
 */
static void last_line(const char *text, const regex_t *harmless, const regex_t *want, char *buf,
		      size_t len)
{
	const char *end = text + strlen(text);

	buf[0] = '\0';
	while (end > text) {
		const char *start = end;
		char line[512];
		size_t n;

		while (start > text && start[-1] != '\n')
			start--;
		n = (size_t)(end - start) < sizeof(line) - 1 ? (size_t)(end - start) : sizeof(line) - 1;
		memcpy(line, start, n);
		line[n] = '\0';
		line[strcspn(line, "\n")] = '\0';
		end = start > text ? start - 1 : text;
		if (!line[strspn(line, " \t\r")] || (harmless && !regexec(harmless, line, 0, NULL, 0)) ||
		    (want && regexec(want, line, 0, NULL, 0)))
			continue;
		snprintf(buf, len, "%s", line);
		return;
	}
}

/* The last complaint on stderr, else its last line, else stdout's; never the harmless. */
void tool_last_words(const struct tool *tl, char *buf, size_t len)
{
	regex_t re, complaint;
	bool have_re = tl->spec->harmless &&
		       !regcomp(&re, tl->spec->harmless, REG_EXTENDED | REG_NOSUB);
	char *err = tool_slurp(tl, "stderr"), *out = NULL, pat[128];
	bool have_c;

	snprintf(pat, sizeof(pat), COMPLAINT, tl->spec->prog);
	have_c = !regcomp(&complaint, pat, REG_EXTENDED | REG_NOSUB);

	last_line(err ? err : "", have_re ? &re : NULL, have_c ? &complaint : NULL, buf, len);
	if (!buf[0])
		last_line(err ? err : "", have_re ? &re : NULL, NULL, buf, len);
	if (!buf[0] && (out = tool_slurp(tl, "stdout")))
		last_line(out, NULL, NULL, buf, len);
	if (!buf[0])
		snprintf(buf, len, "no message");
	free(err);
	free(out);
	if (have_re)
		regfree(&re);
	if (have_c)
		regfree(&complaint);
}

/*
 * Fork and exec @argv in a process group of its own (a Ctrl-C at the
 * terminal is tracetax's to handle, and a kill of the group takes the
 * tool's children along), dying with tracetax, stdin /dev/null, stdout and
 * stderr to @out and @err, in the tool's directory. 0, or -1 and @err.
 */
pid_t tool_fork(struct tool *tl, char *const argv[], int out, int errfd, char *msg, size_t len)
{
	struct spawn sw = { .argv = argv, .fd = { SPAWN_DEVNULL, out, errfd },
			    .dir = tl->dir, .own_group = true };

	return spawn_start(&sw, msg, len);
}

/* Signal the tool's group; the leader is not reaped yet, so its pid is still the group's. */
void tool_signal(struct tool *tl, int sig)
{
	if (tl->pid > 0)
		kill(-tl->pid, sig);
}

/* The wait status of a child that exited, from waitid's answer. */
static int wait_status(const siginfo_t *si)
{
	if (si->si_code == CLD_EXITED)
		return (si->si_status & 0xff) << 8;
	return si->si_status & 0x7f;	/* killed or dumped: the signal */
}

/*
 * Until the tool has exited (0, status in tl->status) or @ms passed (-1),
 * or tracetax was interrupted (-1). A tool the core reaps is looked at
 * with WNOWAIT: the core's waitpid() must still find it.
 */
int tool_wait_exit(struct tool *tl, int ms)
{
	uint64_t deadline = now_ns() + (uint64_t)ms * 1000000ull;
	struct pollfd p = { .fd = tl->pidfd, .events = POLLIN };
	siginfo_t si;

	if (tl->pid <= 0)
		return 0;
	while (poll(&p, 1, 20) <= 0) {
		if (now_ns() > deadline || signals_interrupted())
			return -1;
	}
	tl->exited = now_ns();
	memset(&si, 0, sizeof(si));
	if (waitid(P_PIDFD, (id_t)tl->pidfd, &si, WEXITED | (tl->reap ? 0 : WNOWAIT)))
		return -1;
	tl->status = wait_status(&si);
	return 0;
}

/*
 * The tool is done with, one way or another: its whole group killed (its
 * children too: a perf that forked the workload), reaped if it is ours.
 */
void tool_forget(struct tool *tl)
{
	if (tl->pid > 0) {
		tool_signal(tl, SIGKILL);
		if (tl->reap) {
			while (waitpid(tl->pid, NULL, 0) < 0 && errno == EINTR)
				;
		}
	}
	if (tl->pidfd >= 0)
		close(tl->pidfd);
	tl->pid = -1;
	tl->pidfd = -1;
}

/*
 * Whether the tool's stdout or stderr matches @re: "attached". -1 when the
 * tool exited first, or after @ms, or when tracetax was interrupted.
 */
int tool_wait_output(struct tool *tl, const char *ere, int ms, char *err, size_t len)
{
	uint64_t deadline = now_ns() + (uint64_t)ms * 1000000ull;
	struct pollfd p = { .fd = tl->pidfd, .events = POLLIN };
	regex_t re;
	int ret = -1;

	if (regcomp(&re, ere, REG_EXTENDED | REG_NEWLINE | REG_NOSUB)) {
		snprintf(err, len, "bad readiness pattern '%s'", ere);
		return -1;
	}
	for (;;) {
		char *out = tool_slurp(tl, "stdout"), *errs = tool_slurp(tl, "stderr");
		bool hit = (out && !regexec(&re, out, 0, NULL, 0)) ||
			   (errs && !regexec(&re, errs, 0, NULL, 0));

		free(out);
		free(errs);
		if (hit) {
			ret = 0;
			break;
		}
		if (poll(&p, 1, 1) > 0) {
			char words[200];

			tool_last_words(tl, words, sizeof(words));
			snprintf(err, len, "'%s' exited before it was attached: %s", tl->spec->prog, words);
			break;
		}
		if (signals_interrupted()) {
			snprintf(err, len, "interrupted while '%s' was attaching", tl->spec->prog);
			break;
		}
		if (now_ns() > deadline) {
			snprintf(err, len, "'%s' did not say it was attached within %d s (waiting for /%s/)",
				 tl->spec->prog, ms / 1000, ere);
			break;
		}
	}
	regfree(&re);
	return ret;
}

int tool_dir_create(struct tool *tl, char *err, size_t len)
{
	return workdir_create(tl->dir, sizeof(tl->dir), err, len);
}

void tool_dir_remove(struct tool *tl)
{
	workdir_remove(tl->dir);
	tl->dir[0] = '\0';
}
