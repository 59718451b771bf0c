#!/bin/bash
# vm_watch.sh SECS COMMAND [ARG...]: COMMAND (in the guest, by in_vm.sh),
# and if it still runs after SECS, what the guest is doing, on stderr: its
# processes with their state and wait channel, the kernel stacks of those
# in D state, and audit's status. An audit test that hangs its guest (a
# full backlog makes every audited call wait, and nothing on the console
# says so: the kernel's backlog warnings are below the guest's loglevel)
# then says where, before the host's deadline kills the VM.
set -u
secs=$1; shift
"$@" &
cmd=$!
(
	sleep "$secs"
	kill -0 "$cmd" 2>/dev/null || exit 0
	echo "vm_watch: '$*' still running after $secs s; the guest's processes (kernel threads apart):"
	ps --ppid 2 -p 2 -N -o pid,ppid,stat,wchan:28,etime,args | sed 's/^/vm_watch:   /'
	for p in /proc/[0-9]*; do
		grep -q '^State:.*D' "$p/status" 2>/dev/null || continue
		echo "vm_watch: pid ${p#/proc/} in D state, its kernel stack:"
		sed 's/^/vm_watch:   /' "$p/stack" 2>/dev/null
	done
	command -v auditctl >/dev/null && auditctl -s 2>&1 | sed 's/^/vm_watch: audit /'
) >&2 &
watch=$!
wait "$cmd"
rc=$?
kill "$watch" 2>/dev/null
wait "$watch" 2>/dev/null
exit $rc
