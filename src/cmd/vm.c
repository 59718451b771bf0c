/*
 * tracetax vm: any command in a VM of another kernel, booted as run
 * --kernel boots it (src/vm/), in the host's root and working directory;
 * its output comes back as it prints, its exit code is ours. For what must
 * not run on the host: the audit tests (audit_ever_enabled stays set until
 * reboot, and every later syscall pays for it).
 */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/util.h"
#include "cmd/cmd.h"
#include "cmd/session.h"
#include "vm/vm.h"

static const char usage_vm[] =
	"usage: tracetax vm --kernel IMAGE [--kernel-modules DIR] -- COMMAND [ARG...]\n"
	"\n"
	"Boots IMAGE as 'run --kernel' does (KVM, else TCG; TRACETAX_VM_ACCEL=tcg\n"
	"skips KVM) and runs COMMAND in the guest, as root, in the host's root\n"
	"(read-only; /tmp, /run and /dev/shm the guest's own) and working directory,\n"
	"with the environment a guest's tracetax keeps (PATH, HOME, LANG, TERM...:\n"
	"pass others with 'env NAME=VALUE COMMAND'). Its stdout and stderr come back\n"
	"as it prints; tracetax exits with its exit code, or 1 when the VM failed or\n"
	"the command left tracing state behind in the guest (kprobe and uprobe\n"
	"events, tracefs instances, the tracer, BPF programs), 128+N on signal N.\n"
	"The guest has 1800 s after boot (TRACETAX_VM_DEADLINE=S changes it).\n"
	"\n"
	"      --kernel IMAGE        the kernel image (x86-64 bzImage)\n"
	"      --kernel-modules DIR  its modules (lib/modules/VERSION); default: beside\n"
	"                            an unpacked package's image, else the host's\n"
	"      --wait S              wait up to S seconds for the machine's lock (default\n"
	"                            $TRACETAX_WAIT, else 600)\n"
	"  -q, --quiet               no boot lines on stderr\n";

/* Under a directory the guest replaces with its own (tmpfs): the host's is not seen there. */
static bool guest_hides(const char *path)
{
	return !strncmp(path, "/tmp/", 5) || !strcmp(path, "/tmp") || !strncmp(path, "/run/", 5) ||
	       !strcmp(path, "/run") || !strncmp(path, "/dev/shm/", 9) || !strcmp(path, "/dev/shm");
}

/*
 * COMMAND as the guest's shell will find it: a path (from the working
 * directory), or a name in PATH outside what the guest hides. Bad input
 * when neither, before minutes of boot.
 */
static void check_command(const char *cmd)
{
	char buf[PATH_MAX], real[PATH_MAX];
	const char *path = getenv("PATH");
	bool hidden = false;

	if (!*cmd)
		die_usage("vm: the command is empty");
	if (strchr(cmd, '/')) {
		if (access(cmd, X_OK) || !realpath(cmd, real))
			die_usage("command '%s' is not an executable file", cmd);
		if (guest_hides(real))
			die_usage("command '%s' is under /tmp, /run or /dev/shm, which the guest "
				  "does not share", cmd);
		return;
	}
	for (const char *p = path ? path : "/usr/bin:/bin"; ; p = strchr(p, ':') + 1) {
		size_t n = strcspn(p, ":");

		snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, n ? p : ".", cmd);
		if (!access(buf, X_OK) && realpath(buf, real)) {
			if (!guest_hides(real))
				return;
			hidden = true;
		}
		if (!p[n])
			break;
	}
	die_usage(hidden ? "command '%s' is only under /tmp, /run or /dev/shm, which the guest "
		  "does not share" : "command '%s' not found in PATH", cmd);
}

int cmd_vm(int argc, char **argv)
{
	/* a command, not a measurement: TCG at full speed, on every CPU */
	struct vm_spec spec = { .no_icount = true };
	struct vm_outcome o = { 0 };
	char cwd[PATH_MAX];
	int wait_s = -1, i, ret;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--")) {
			i++;
			break;
		}
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			fputs(usage_vm, stdout);
			return 0;
		}
		if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
			spec.quiet = true;
		} else if (!strncmp(a, "--kernel=", 9)) {
			spec.kernel = a + 9;
		} else if (!strncmp(a, "--kernel-modules=", 17)) {
			spec.modules = a + 17;
		} else if (!strncmp(a, "--wait=", 7)) {
			if (cmd_parse_wait(a + 7, &wait_s))
				die_usage("invalid --wait '%s'", a + 7);
		} else if (!strcmp(a, "--kernel") || !strcmp(a, "--kernel-modules") ||
			   !strcmp(a, "--wait")) {
			if (i + 1 >= argc)
				die_usage("option '%s' needs a value (see 'tracetax vm --help')", a);
			if (!strcmp(a, "--kernel"))
				spec.kernel = argv[++i];
			else if (!strcmp(a, "--kernel-modules"))
				spec.modules = argv[++i];
			else if (cmd_parse_wait(argv[++i], &wait_s))
				die_usage("invalid --wait '%s'", argv[i]);
		} else if (a[0] == '-') {
			die_usage("unknown option '%s' (see 'tracetax vm --help')", a);
		} else {
			break;	/* COMMAND without '--' */
		}
	}
	if (!spec.kernel)
		die_usage("vm needs --kernel IMAGE (see 'tracetax vm --help')");
	if (i >= argc)
		die_usage("vm needs a command after '--' (see 'tracetax vm --help')");
	if (!getcwd(cwd, sizeof(cwd)))
		die_usage("vm: cannot get the working directory");
	if (guest_hides(cwd))
		die_usage("the working directory '%s' is under /tmp, /run or /dev/shm, which the "
			  "guest does not share", cwd);
	check_command(argv[i]);
	spec.exe = argv[i];
	spec.argv = (const char *const *)argv + i + 1;
	ret = session_vm(&spec, wait_s < 0 ? cmd_wait_default() : wait_s, &o);
	vm_outcome_release(&o);
	return ret;
}
