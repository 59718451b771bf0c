#!/bin/bash
# vm_watch.sh SECS COMMAND [ARG...]: COMMAND (in the guest, by in_vm.sh),
# and if it still runs after SECS, what the guest is doing: its processes
# with their state and wait channel, the kernel stacks of those in D state,
# and audit's status. An audit test that hangs its guest (a full backlog
# makes every audited call wait, and nothing on the console says so: the
# kernel's backlog warnings are below the guest's loglevel) then says
# where, before the host's deadline kills the VM.
#
# The report goes to the serial console first, then to stderr: stderr is
# a file on the results share (9p), and a guest whose 9p hangs would lose
# it. The console is kept on the host (its path is in the deadline's
# error), and the first part of the report needs no program from the 9p
# root: the kernel's own dump of blocked tasks and of each CPU (sysrq w
# and l, written with bash's echo), then the processes.
set -u
secs=$1; shift
"$@" &
cmd=$!
(
	sleep "$secs"
	kill -0 "$cmd" 2>/dev/null || exit 0
	exec 3>/dev/console
	echo "vm_watch: '$*' still running after $secs s; the kernel's blocked tasks and CPUs:" >&3
	echo w >/proc/sysrq-trigger
	echo l >/proc/sysrq-trigger
	{
		echo "vm_watch: the guest's processes (kernel threads apart):"
		ps --ppid 2 -p 2 -N -o pid,ppid,stat,wchan:28,etime,args | sed 's/^/vm_watch:   /'
		for p in /proc/[0-9]*; do
			grep -q '^State:.*D' "$p/status" 2>/dev/null || continue
			echo "vm_watch: pid ${p#/proc/} in D state, its kernel stack:"
			sed 's/^/vm_watch:   /' "$p/stack" 2>/dev/null
		done
		command -v auditctl >/dev/null && auditctl -s 2>&1 | sed 's/^/vm_watch: audit /'
	} >"/tmp/vm_watch.$$" 2>&1
	cat "/tmp/vm_watch.$$" >&3
	echo "vm_watch: '$*' still running after $secs s" >&2
	cat "/tmp/vm_watch.$$" >&2
) &
watch=$!
wait "$cmd"
rc=$?
kill "$watch" 2>/dev/null
wait "$watch" 2>/dev/null
exit $rc
