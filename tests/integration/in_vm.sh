#!/bin/bash
# in_vm.sh COMMAND [ARG...]: COMMAND in a VM of Debian's kernel (`tracetax
# vm`, under TCG), in this working directory, with the tests' variables;
# its output and exit code are ours. For what must not run on this host:
# the audit tests (audit_lib.sh re-executes one test here; tests/run.sh
# boots one guest per test). Once audit has been enabled on a boot, every
# process forked afterwards takes the syscall slow path until reboot
# (audit_ever_enabled); in a guest that residue dies with the guest.
# Exit 77 with the reason on the last line where no VM can boot: not
# x86_64, no qemu, no static busybox, no Debian kernel (found as t_vm.sh
# finds it: scripts/debian-kernel.sh; TRACETAX_TEST_KERNEL names another).
set -u
B=${TRACETAX_BUILD:-build}
# the machine's lock may be held by others' long runs: wait as long as it takes
export TRACETAX_WAIT=${TRACETAX_WAIT:-86400}
why="audit on this host leaves every later syscall slower until reboot, so it runs in a VM"
here="(TRACETAX_TEST_HOST_AUDIT=1 runs it here)"
skip() { echo "$why: $* $here"; exit 77; }
[ "$(uname -m)" = x86_64 ] || skip "the VM runs x86_64 kernels only"
command -v qemu-system-x86_64 >/dev/null || skip "no qemu-system-x86_64 (package qemu-system-x86)"
[ -x /bin/busybox ] || skip "no /bin/busybox (package busybox-static)"
if [ -n "${TRACETAX_TEST_KERNEL:-}" ]; then
	K=$TRACETAX_TEST_KERNEL
	[ -f "$K" ] || skip "no kernel '$K' (TRACETAX_TEST_KERNEL)"
else
	err=$(mktemp)
	K=$(scripts/debian-kernel.sh "$B/kernel" 2>"$err" | tail -n 1)
	last=$(tail -n 1 "$err")
	rm -f "$err"
	[ -f "$K" ] || skip "no Debian kernel package: $last"
fi
case $(readlink -f "$B") in /tmp/*|/run/*|/dev/shm/*)
	echo "FAIL: the build '$B' is under /tmp, /run or /dev/shm, which the VM does not share"; exit 1 ;;
esac
echo "in a VM: kernel ${K##*/vmlinuz-} under tcg (tracetax vm), where audit's residue dies with the guest"
# python3 as the host resolves it: a version manager's shim in PATH (pyenv's
# is a script that asks pyenv) took 20 s a call in the guest
py=$(readlink -f "$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null)")
path=$PATH
case $py in /tmp/*|/run/*|/dev/shm/*|"") ;; *) path=$(dirname "$py"):$PATH ;; esac
# tcg: KVM hangs here (nested); no instruction counter: these tests wait on
# timers and auditd, and a clock that jumps to the next timer fires them early
TRACETAX_VM_ACCEL=tcg TRACETAX_VM_ICOUNT=off exec "$B/tracetax" vm -q --kernel "$K" -- \
	env PATH="$path" TRACETAX_BUILD="$B" TRACETAX_WAIT="$TRACETAX_WAIT" "$@"
