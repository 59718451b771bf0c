/*
 * The counter's own tax on what it counts (pace.c). budget's syscall
 * counter is a BPF program on every syscall entry: while it counts, every
 * call of the box pays its price, and a process whose pace is its own CPU
 * makes fewer calls than it does unobserved. A loop of getuid + close +
 * stat with bpftrace on getuid ran 1953 ns a round alone and about 3090 ns
 * under the counter: the rates it counted were 37% low, and so was every
 * share priced from them (docs/budget.md, "The counter's own tax").
 *
 * What is measured: the counter's price per call (a child of ours times
 * getppid with it attached and not, in alternating blocks: the least of
 * each, their difference), and each counted process's CPU over the window
 * (schedstat). A process's pace is how much faster it would have made its
 * calls without the counter: its timeline shrinks by the counter's time on
 * it, spread over the CPUs it kept busy,
 *     pace = 1 + (T / (T - x / max(k, 1)) - 1) * min(k, 1)
 * with T the window, x = calls * price, k = its CPU / T. A process busy on
 * a CPU for the whole window (k >= 1) gets the full correction, exact when
 * its pace is its CPU's; one that was idle (k -> 0) none, as a server whose
 * requests arrive at their own pace; in between, in proportion.
 */
#ifndef TRACETAX_PACE_H
#define TRACETAX_PACE_H

#include <sys/types.h>

#include "base/proc_cpu.h"

/* Every process's CPU at a moment: pid order */
struct pace_snap {
	struct pace_entry {
		pid_t pid;
		struct proc_cpu cpu;
	} *v;
	int n;
	unsigned long long ticks;     /* the moment, in clock ticks after boot (stat's starttime) */
};

/* The snapshot now (@s's old one freed): 0, or -1 when /proc cannot be read. */
int pace_snap_take(struct pace_snap *s);
void pace_snap_release(struct pace_snap *s);

/*
 * @pid's CPU in ns since @s (one born since: all of its CPU); -1 when not
 * known (gone, not in @s and older than it, or unreadable).
 */
double pace_cpu_since(const struct pace_snap *s, pid_t pid);

/*
 * The pace (above) of a process that made @calls counted calls and used
 * @cpu_ns of CPU over @window_ns, each call at @price_ns more; 1 when
 * @cpu_ns < 0 (not known). Capped at 10: beyond that the price cannot
 * have been paid by that process alone.
 */
double pace_of(double calls, double cpu_ns, double window_ns, double price_ns);

#endif
