/*
 * The environment a run measured: the machine facts that move the figures
 * from one machine to the next (kernel, CPU, clocksource, virtualisation,
 * mitigations, governor, tools). What else is tracing is activity.c's:
 * the runner samples it around every cell, and other_tracers is its
 * summary at the start. Read only: nothing here changes tracing state.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/spawn.h"
#include "base/cpuinfo.h"
#include "base/activity.h"
#include "measure/env.h"
#include "vm/spec.h"
#include "results/results.h"
#include "base/util.h"
#include "version.h"


/* Append to a fixed buffer, silently truncating: these are notes for humans. */
static void appendf(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void appendf(char *buf, size_t len, const char *fmt, ...)
{
	size_t used = strlen(buf);
	va_list ap;

	if (used + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + used, len - used, fmt, ap);
	va_end(ap);
}

/* Truncating copy (not snprintf: gcc -O2 flags every possible truncation). */
static void copy_str(char *dst, size_t len, const char *src)
{
	size_t n = strlen(src);

	if (n >= len)
		n = len - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* Lists are built "a; b; " for simplicity: cut the last separator. */
static void trim_separator(char *buf)
{
	size_t n = strlen(buf);

	if (n >= 2 && !strcmp(buf + n - 2, "; "))
		buf[n - 2] = '\0';
}

static bool in_path(const char *prog)
{
	const char *path = getenv("PATH");
	char buf[4096];

	if (!path)
		path = "/usr/bin:/bin";
	while (*path) {
		size_t n = strcspn(path, ":");

		snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, path, prog);
		if (n && access(buf, X_OK) == 0)
			return true;
		path += n + (path[n] == ':');
	}
	return false;
}

/*
 * A command whose first line of output is wanted. Every command goes
 * through timeout(1) with stdin closed: a tool that hangs or waits for
 * input must not hang the benchmark before it starts. They are all
 * started first and read afterwards: each takes tens of milliseconds
 * (bpftrace --version 0.13 s), and one after the other they were most of
 * a short run's start.
 */
struct command {
	pid_t pid;	/* -1: not started */
	FILE *out;	/* its stdout */
};

static void command_start(struct command *c, const char *cmd)
{
	char full[512], msg[128];
	char *argv[] = { "/bin/sh", "-c", full, NULL };
	struct spawn sw = { .argv = argv };
	int fd[2];

	c->pid = -1;
	c->out = NULL;
	snprintf(full, sizeof(full), "timeout 2 %s", cmd);
	if (pipe2(fd, O_CLOEXEC))
		return;
	sw.fd[0] = sw.fd[2] = SPAWN_DEVNULL;
	sw.fd[1] = fd[1];
	c->pid = spawn_start(&sw, msg, sizeof(msg));
	close(fd[1]);
	c->out = c->pid > 0 ? fdopen(fd[0], "r") : NULL;
	if (!c->out)
		close(fd[0]);
}

/* Its first line into @buf, then it is reaped: 0, or -1 (no line). */
static int command_line(struct command *c, char *buf, size_t len)
{
	int ok = 0;

	if (c->out) {
		ok = fgets(buf, (int)len, c->out) != NULL;
		fclose(c->out);
		c->out = NULL;
	}
	while (c->pid > 0 && waitpid(c->pid, NULL, 0) < 0 && errno == EINTR)
		;
	c->pid = -1;
	if (!ok)
		return -1;
	buf[strcspn(buf, "\n")] = '\0';
	return buf[0] ? 0 : -1;
}

static void cpu_model(char *buf, size_t len)
{
	/* x86 says "model name", arm64 has no name, only "CPU part". */
	static const char *const keys[] = { "model name", "Model", "cpu model", "CPU part" };

	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
		if (!cpuinfo_value(keys[k], buf, len))
			return;
	copy_str(buf, len, "unknown");
}

/*
 * Guests pay for some traps (and a paravirt clock) bare metal doesn't.
 * systemd-detect-virt knows the most hypervisors; --vm and --container
 * separately because it reports only the container when both apply.
 */
static void virtualization(char *buf, size_t len)
{
	char vm[64] = "", ct[64] = "";
	struct command c[2];

	if (in_path("systemd-detect-virt")) {
		command_start(&c[0], "systemd-detect-virt --vm");
		command_start(&c[1], "systemd-detect-virt --container");
		command_line(&c[0], vm, sizeof(vm));
		command_line(&c[1], ct, sizeof(ct));
	} else if (cpuinfo_has_flag("hypervisor")) {
		if (read_file_str("/sys/class/dmi/id/sys_vendor", vm, sizeof(vm)) < 0 &&
		    read_file_str("/sys/class/dmi/id/product_name", vm, sizeof(vm)) < 0)
			copy_str(vm, sizeof(vm), "unknown hypervisor");
	}
	if (!vm[0])
		copy_str(vm, sizeof(vm), "none");
	copy_str(buf, len, vm);
	if (ct[0] && strcmp(ct, "none"))
		appendf(buf, len, ", container %s", ct);
}

static int name_filter(const struct dirent *d)
{
	return d->d_name[0] != '.';
}

static void mitigations(char *buf, size_t len)
{
	static const char dir[] = "/sys/devices/system/cpu/vulnerabilities";
	struct dirent **ents;
	int n = scandir(dir, &ents, name_filter, alphasort);

	buf[0] = '\0';
	if (n < 0) {
		copy_str(buf, len, "n/a");
		return;
	}
	for (int i = 0; i < n; i++) {
		char path[512], val[256];

		snprintf(path, sizeof(path), "%s/%s", dir, ents[i]->d_name);
		if (read_file_str(path, val, sizeof(val)) == 0)
			appendf(buf, len, "%s: %s; ", ents[i]->d_name, val);
		free(ents[i]);
	}
	free(ents);
	trim_separator(buf);
}

/*
 * Tracing already active, from the same probe the runner compares around
 * every cell; settled first, so that the programs of a run that just ended
 * are gone before the first cell's sample.
 */
static void other_tracers(char *buf, size_t len)
{
	struct activity a;

	if (activity_sample_settled(&a) < 0) {
		snprintf(buf, len, "unknown (%s)", strerror(errno));
		return;
	}
	activity_summary(&a, buf, len);
	activity_release(&a);
}

static const char *const tools[][2] = {
	{ "strace", "-V" }, { "bpftrace", "--version" }, { "perf", "--version" },
	{ "ltrace", "-V" }, { "uftrace", "--version" }, { "lttng", "--version" },
};
#define NTOOLS (sizeof(tools) / sizeof(tools[0]))

/* Each tool in the PATH asked its version; tool_versions() reads the answers. */
static void tool_versions_start(struct command c[NTOOLS])
{
	for (size_t i = 0; i < NTOOLS; i++) {
		char cmd[64];

		c[i].pid = -1;
		c[i].out = NULL;
		if (!in_path(tools[i][0]))
			continue;
		snprintf(cmd, sizeof(cmd), "%s %s", tools[i][0], tools[i][1]);
		command_start(&c[i], cmd);
	}
}

/* "strace -- version 6.1" -> "strace 6.1": the first token with a digit. */
static void tool_versions(struct command c[NTOOLS], char *buf, size_t len)
{
	buf[0] = '\0';
	for (size_t i = 0; i < NTOOLS; i++) {
		char line[256], *tok, *save, *ver = NULL;

		if (c[i].pid <= 0)	/* not here, or not started */
			continue;
		if (command_line(&c[i], line, sizeof(line)) < 0)
			continue;
		for (tok = strtok_r(line, " \t", &save); tok && !ver; tok = strtok_r(NULL, " \t", &save))
			if (strpbrk(tok, "0123456789"))
				ver = tok;
		if (ver) {
			ver[strcspn(ver, ",()")] = '\0';
			if (ver[0] && ver[strlen(ver) - 1] == '.')
				ver[strlen(ver) - 1] = '\0';
		}
		appendf(buf, len, "%s%s %s", buf[0] ? "; " : "", tools[i][0], ver ? ver : "?");
	}
	if (!buf[0])
		copy_str(buf, len, "none");
}

/* Run by `tracetax run --kernel` inside its VM (measure/vm.c): its accelerator. */
static void vm_accel(char *buf, size_t len)
{
	const char *v = getenv(VM_ENV);

	buf[0] = '\0';
	if (v && (!strcmp(v, "kvm") || !strcmp(v, "tcg")))
		copy_str(buf, len, v);
}

void environment_collect(struct environment *env)
{
	struct utsname u;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	struct command tool[NTOOLS];

	memset(env, 0, sizeof(*env));
	/* the tools answer while the rest is read */
	tool_versions_start(tool);
	utc_iso(time(NULL), env->started, sizeof(env->started));
	if (uname(&u) == 0) {
		copy_str(env->kernel, sizeof(env->kernel), u.release);
		copy_str(env->kernel_version, sizeof(env->kernel_version), u.version);
		copy_str(env->arch, sizeof(env->arch), u.machine);
	}
	cpu_model(env->cpu_model, sizeof(env->cpu_model));
	env->cpus = cpus > 0 ? (int)cpus : 0;
	if (read_file_str("/sys/devices/system/clocksource/clocksource0/current_clocksource",
			  env->clocksource, sizeof(env->clocksource)) < 0)
		copy_str(env->clocksource, sizeof(env->clocksource), "unknown");
	virtualization(env->virtualization, sizeof(env->virtualization));
	mitigations(env->mitigations, sizeof(env->mitigations));
	if (read_file_str("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor",
			  env->governor, sizeof(env->governor)) < 0)
		copy_str(env->governor, sizeof(env->governor), "n/a");
	copy_str(env->tracetax_version, sizeof(env->tracetax_version), TRACETAX_VERSION);
	if (gethostname(env->hostname, sizeof(env->hostname) - 1) < 0)
		copy_str(env->hostname, sizeof(env->hostname), "unknown");
	other_tracers(env->other_tracers, sizeof(env->other_tracers));
	tool_versions(tool, env->tools, sizeof(env->tools));
	vm_accel(env->vm, sizeof(env->vm));
	/* the guest's clock is qemu's instruction counter (vm/accel.c) */
	if (!strcmp(env->vm, "tcg") && getenv(VM_UNIT_ENV) &&
	    !strcmp(getenv(VM_UNIT_ENV), "instructions"))
		copy_str(env->unit, sizeof(env->unit), "instructions");
}
