/* tracetax rate: the highest event rate a tracer's consumer keeps up with (measure/rate.h). */
#include <stdio.h>

#include "base/lock.h"
#include "base/signals.h"
#include "cmd/cmd.h"
#include "cmd/session.h"
#include "measure/rate.h"

_Static_assert(LOCK_WAIT_DEFAULT_S == 600, "rate --help gives the default --wait");
_Static_assert(RATE_STEP_MS_DEFAULT == 1000 && RATE_BACKLOGS == 3,
	       "rate --help gives the default --step-ms and the buffers a step");

static const char usage_rate[] =
	"usage: tracetax rate [options]\n"
	"\n"
	"The highest event rate a tracer's consumer keeps up with: a paced load\n"
	"makes a step's events at each rate, under each tracer, rising until the\n"
	"first step that is not kept. A step is kept when the tracer saw every\n"
	"event (hits == events), lost none, and the kernel never held the load back\n"
	"on a full buffer (audit: backlog_wait_time_actual). Each step gives the\n"
	"consumer's CPU per event (audit: auditd) and the kernel thread's that feeds\n"
	"it (audit: kauditd). The default measures auditd's flush modes.\n"
	"\n"
	"A step is three buffers' worth of events: a consumer slower than the rate\n"
	"by a third fills the buffer within it. By default a step lasts --step-ms\n"
	"and the buffer (audit's backlog limit) is a third of its events; --backlog\n"
	"fixes the buffer (8192: Debian's), and the steps then last as long as\n"
	"three of it take at each rate.\n"
	"\n"
	"  -t, --tracers LIST      tracers, comma-separated; FAMILY/* takes every\n"
	"                          variant; default audit:rule/* (async, incremental,\n"
	"                          data, sync, none)\n"
	"  -w, --workload W        a syscall workload; default getpid\n"
	"  -r, --rates LIST        events a second, rising (20000, 20k, 1M); default\n"
	"                          50,100,200,500,1k,2k,5k,10k,20k,50k,100k,200k\n"
	"      --step-ms MS        a step's length at its rate; default 1000\n"
	"      --backlog N         the buffer, in events, for every step; a step is 3N\n"
	"  -n, --records N         the events of every step (the buffer: N/3)\n"
	"      --all               every rate, also after the first not kept\n"
	"  -q, --quiet             no progress lines\n"
	"      --wait SECONDS      another measurement holds the machine's lock: wait\n"
	"                          at most SECONDS (default 600), then exit 2\n"
	"      --no-wait           exit 2 at once when another measurement holds it\n"
	"      --accept-audit-residue  run on a boot that never enabled audit: every\n"
	"                          process started afterwards takes the syscall audit\n"
	"                          slow path until reboot (in a guest of --kernel it\n"
	"                          dies with the guest: no need)\n"
	"\n"
	"Audit tracers are set up and put back as in 'tracetax run' (the box's\n"
	"state saved and restored, skipped where an auditd is registered or audit\n"
	"is immutable; docs/tracers.md, \"Audit\"). The default takes a minute or\n"
	"two. Nothing is recorded in the results store. Exit codes: 0 ok, 1 a\n"
	"tracer failed, 2 usage or the lock, 128+N interrupted by signal N.\n";

int cmd_rate(int argc, char **argv)
{
	struct rate_args a;
	char err[256];
	int ret;

	if (rate_parse(argc, argv, &a, err, sizeof(err)))
		cmd_die_usage(err, "tracetax rate --help");
	if (a.help) {
		fputs(usage_rate, stdout);
		return 0;
	}
	ret = rate_measure(&a);
	signals_reraise();
	return ret;
}
