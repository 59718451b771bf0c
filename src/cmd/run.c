/* tracetax run: options into a plan, the plan measured (session.c). */
#include <stdio.h>
#include <string.h>

#include "base/signals.h"
#include "cli/cli.h"
#include "base/lock.h"
#include "cmd/cmd.h"
#include "cmd/session.h"

/* its --help says so */
_Static_assert(LOCK_WAIT_DEFAULT_S == 600, "run --help gives the default --wait");

static const char usage_run[] =
	"usage: tracetax run [options]\n"
	"\n"
	"      --plan FILE         the plan in FILE (docs/experiments.md); the other\n"
	"                          options override its fields\n"
	"  -w, --workload LIST     workloads (see 'tracetax list'); default getpid\n"
	"  -t, --tracer LIST       tracers, patterns ('bpf:tp/*', 'all') or groups\n"
	"                          (@tools: strace, bpftrace...; @mechanisms), or\n"
	"                          cmd:'TEMPLATE' (a command of yours); default:\n"
	"                          every mechanism that can hook the workload\n"
	"  -T, --threads LIST      thread counts, one thread pinned per CPU; default 1\n"
	"                          (-w, -t and -T add up when given more than once)\n"
	"  -r, --reps N            baseline/traced pairs per cell, over all rounds;\n"
	"                          default 16\n"
	"      --rounds R          run the whole plan R times, each cell a share of\n"
	"                          its reps each time, cells in a new order: the CI\n"
	"                          is over round means and holds the machine's\n"
	"                          drift; default 8, a pair of reps each (--rounds\n"
	"                          alone raises --reps to 2R)\n"
	"      --run-ms N          calibrate each run (baseline and traced, each on\n"
	"                          its own) to about N ms; default 25\n"
	"      --precision PCT     add rounds until a cell's overhead 95% CI is\n"
	"                          within +-PCT% (A/A cell: of the baseline)\n"
	"      --max-time S        the run's time budget for --precision, shared by\n"
	"                          the cells still to run; default 300\n"
	"  -n, --iterations N      fixed hot-loop iterations per thread (no calibration)\n"
	"      --target SYSCALL    hook this syscall instead of the workload's own\n"
	"                          (collateral cost: what a tracer of close costs getpid)\n"
	"      --target SYS:EVENT  or any tracepoint, for ftrace:syscall, perf:* and\n"
	"                          bpf:tp ('tcp:tcp_probe'); other tracers skip\n"
	"      --msg-size N        bytes per message of tcp and tcp-rr; default 1448\n"
	"      --cmd-timeout S     a run of a cmd:'COMMAND' workload still going after\n"
	"                          S seconds is killed, and its cell fails; default 60\n"
	"      --ready ERE         a cmd:'TOOL ... {cmd}|{pid}' tracer is attached once\n"
	"                          its output matches (default: {pid} after 1 s)\n"
	"      --hits ERE          its hits: the numbers ERE's group captures, summed,\n"
	"                          or its matching lines; default unknown\n"
	"      --audit-rules FILE  audit:rules' rule file (auditctl -R's format), each\n"
	"                          rule with tracetax's key; control lines left out\n"
	"      --accept-audit-residue  run audit:* cells on a boot that never enabled\n"
	"                          audit: every process started afterwards takes the\n"
	"                          syscall audit slow path until reboot (refused\n"
	"                          without it, exit 2; in a --kernel guest not needed)\n"
	"      --seed N            seed of rep order and bootstrap; default 1\n"
	"      --cpus LIST         the CPUs cells run on ('0', '1-3'); default: every\n"
	"                          CPU tracetax may use (its affinity)\n"
	"      --placement HOW     first: every rep's thread 0 on the first allowed CPU\n"
	"                          (default); rotate: every round runs a pair of reps\n"
	"                          on each (more reps if needed), and the table gives\n"
	"                          the overhead per CPU\n"
	"      --tracer-cpu WHERE  where a tracer the workload waits on runs (ptrace\n"
	"                          helper, seccomp supervisor): same CPU as the\n"
	"                          workload (default, reproducible), other, any\n"
	"      --json FILE         write the results document (schema: docs/schema.md)\n"
	"      --csv FILE          also write the table as CSV, one row per cell\n"
	"      --markdown FILE     also write it as a Markdown table\n"
	"                          (of these three, one FILE may be '-': stdout, and\n"
	"                          then the table goes to stderr)\n"
	"      --prometheus-textfile DIR\n"
	"                          also write DIR/tracetax.prom (atomically) for\n"
	"                          node_exporter's textfile collector\n"
	"      --store STORE       record the run in this results store, a path or a\n"
	"                          postgresql:// URI (default: $TRACETAX_DB, else\n"
	"                          $XDG_DATA_HOME/tracetax/results.db, else\n"
	"                          ~/.local/share/tracetax/results.db)\n"
	"      --no-store          record nothing\n"
	"      --dry-run           print the plan (cells, rep orders, an estimate of\n"
	"                          the time) and touch nothing\n"
	"      --color WHEN        auto, always, never (NO_COLOR is honoured)\n"
	"      --latency           also time every call: percentiles and log2 histograms\n"
	"                          per cell, from runs of their own after the reps\n"
	"      --wait SECONDS      another measurement holds the machine's lock: wait\n"
	"                          for it, saying for whom, at most SECONDS (default\n"
	"                          600), then exit 2 naming its pid, command and user\n"
	"      --no-wait           exit 2 at once when another measurement holds it\n"
	"      --explain TRACER    after the table, what one event goes through with\n"
	"                          TRACER (one of -t), a figure beside each step\n"
	"      --kernel PATH       run the plan in a VM of this kernel image (qemu: KVM\n"
	"                          if it boots, else TCG, whose ns are not costs), with\n"
	"                          this tracetax on the host's root shared read-only;\n"
	"                          the results are recorded here (docs/vm.md)\n"
	"      --kernel-modules DIR  its modules (lib/modules/VERSION); default: beside\n"
	"                          an unpacked package's boot/vmlinuz-VERSION\n"
	"  -q, --quiet             no progress lines (and no table with an export to '-')\n";

int cmd_run(int argc, char **argv)
{
	struct run_args a;
	char err[256];
	int ret;

	if (cli_parse_run(argc, argv, &a, err, sizeof(err)))
		cmd_die_usage(err, "tracetax run --help");
	if (a.help) {
		fputs(usage_run, stdout);
		cli_release(&a);
		return 0;
	}
	ret = run_measure(&a, NULL, NULL);
	cli_release(&a);
	signals_reraise();
	return ret;
}
