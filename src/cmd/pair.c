/* tracetax pair: two BPF probes back to back, the delay between them. */
#include <stdio.h>

#include "base/lock.h"
#include "base/signals.h"
#include "cmd/cmd.h"
#include "cmd/session.h"
#include "measure/pair.h"

_Static_assert(LOCK_WAIT_DEFAULT_S == 600, "pair --help gives the default --wait");

static const char usage_pair[] =
	"usage: tracetax pair [options]\n"
	"\n"
	"Two BPF probes on the workload's syscall path: the first stores a\n"
	"timestamp, the second takes the difference. What separates them is the\n"
	"probes and the storage of the start, nothing else.\n"
	"\n"
	"  -w, --workload W        a syscall workload; default getpid\n"
	"      --pair KIND         enter: raw_syscalls:sys_enter -> syscalls:sys_enter_<sc>\n"
	"                          (one dispatch: the 'should be zero' case, default);\n"
	"                          syscall: sys_enter_<sc> -> sys_exit_<sc>; func: a\n"
	"                          kernel function and the one it calls (getpid)\n"
	"  -s, --storage LIST      where the start is kept: global, percpu, hash (by\n"
	"                          thread), lock (a map entry under bpf_spin_lock), all;\n"
	"                          default all\n"
	"  -T, --threads LIST      thread counts; default 1\n"
	"      --clock CLOCK       ktime (bpf_ktime_get_ns, default), boot, coarse\n"
	"  -n, --iterations N      ops per thread; default 200000\n"
	"      --json FILE         write the document ('-': stdout, no table)\n"
	"      --kernel PATH       in a VM of this kernel image (docs/vm.md); its\n"
	"      --kernel-modules DIR  table comes back, its document with --json\n"
	"  -q, --quiet             no progress lines\n"
	"      --wait SECONDS      another measurement holds the machine's lock: wait\n"
	"                          at most SECONDS (default 600), then exit 2\n"
	"      --no-wait           exit 2 at once when another measurement holds it\n"
	"\n"
	"The results store holds run documents only: a pair is not recorded there\n"
	"(keep it with --json). Exit codes: 0 ok, 1 a cell failed, 2 usage or the\n"
	"lock, 128+N interrupted by signal N.\n";

int cmd_pair(int argc, char **argv)
{
	struct pair_args a;
	char err[256];
	int ret;

	if (pair_parse(argc, argv, &a, err, sizeof(err)))
		cmd_die_usage(err, "tracetax pair --help");
	if (a.help) {
		fputs(usage_pair, stdout);
		return 0;
	}
	ret = pair_measure(&a, NULL, NULL);
	signals_reraise();
	return ret;
}
