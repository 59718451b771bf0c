#!/bin/bash
# Runs every test: cmocka unit tests, then the integration scripts on the
# real kernel. Closes with "N passed, N failed, N skipped" and the reasons.
# An integration script passes with exit 0, skips with 77 (its last line of
# output says why), fails otherwise. With arguments (t_audit t_vm ...), only
# those integration scripts, no unit tests.
#
# The suite leaves the box's syscall cost as it found it: a fresh process's
# getpid is measured at the start and at the end, and a suite that left it
# more than 1.3x dearer fails (audit enabled on the host stays until reboot;
# the audit tests run in a VM for that: audit_lib.sh).
set -u
cd "$(dirname "$0")/.."
B=${TRACETAX_BUILD:-build}
export TRACETAX_BUILD=$B
# Sanitizer builds (make asan): third-party leaks are listed, with reasons, in lsan.supp.
export LSAN_OPTIONS="suppressions=$PWD/tests/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:fast_unwind_on_malloc=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
pass=0 fail=0 skip=0
failed=() skipped=()
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT

# A fresh process's getpid in ns: the least of 5 processes, each the fastest
# of 200 batches of 1000 calls (tests/tools/syscall_ns.c). A process takes
# the syscall slow path from its fork on when audit was ever enabled on this
# boot, or while a syscall tracepoint is on: the kernel log cannot say when
# (an auditd listening keeps "audit_enabled=1" out of it).
syscall_ns() {
	local i ns
	for i in 1 2 3 4 5; do
		ns=$("$B/tests/tt-syscall-ns" 200 1000) || return 1
		echo "$ns"
	done | sort -g | head -n 1
}
# (in a VM, where the audit tests run, its cost is the VM's: not measured)
SYSCALL_START=
[ -z "${TRACETAX_VM:-}" ] && SYSCALL_START=$(syscall_ns)

# A sanitizer report fails the test that caused it, whatever the exit status.
# ASan and LSan write theirs to a file per process: a forked child that dies
# of one before exec (a supported() probe) only looks like a skipped tracer,
# and tests send tracetax's stderr where they like. UBSan ignores log_path
# when linked with ASan: its reports are looked for in the test's output.
sanitized() {  # sanitized NAME CMD...: CMD, its ASan reports in $log/NAME.san.PID
	local name=$1; shift
	ASAN_OPTIONS="$ASAN_OPTIONS:log_path=$log/$name.san" "$@"
}
san_reports() {  # san_reports NAME: prints NAME's sanitizer reports; false if none
	local f found=1
	if grep -qE ': runtime error: |^==[0-9]+==ERROR: [A-Za-z]+Sanitizer' "$log/$1"; then
		echo "sanitizer report in the output of $1:"
		grep -E -A 30 ': runtime error: |^==[0-9]+==ERROR: [A-Za-z]+Sanitizer' "$log/$1" | head -n 60
		found=0
	fi
	for f in "$log/$1".san.*; do
		[ -e "$f" ] || continue
		echo "sanitizer report of pid ${f##*.} in $1:"
		head -n 80 "$f"
		found=0
	done
	return $found
}

tests=$(ls tests/integration/t_*.sh | grep -v '/t_audit'; ls tests/integration/t_audit*.sh)
units=("$B"/tests/test_*)
if [ $# -gt 0 ]; then
	tests=$(for n in "$@"; do echo "tests/integration/${n%.sh}.sh"; done)
	units=()
fi
for t in "${units[@]+"${units[@]}"}"; do
	[ -x "$t" ] || continue
	name=$(basename "$t")
	sanitized "$name" "$t" >"$log/$name" 2>&1
	rc=$?
	p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$log/$name" | tail -1)
	f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$log/$name" | tail -1)
	pass=$((pass + ${p:-0}))
	fail=$((fail + ${f:-0}))
	san_reports "$name" >"$log/$name.reports" && rc=san
	if [ "$rc" != 0 ] || [ -n "$f" ]; then
		# a crash or a sanitizer report: one failure more than cmocka counted
		{ [ -z "$f" ] || [ "$rc" = san ]; } && fail=$((fail + 1))
		failed+=("unit/$name")
		cat "$log/$name" "$log/$name.reports"
	fi
	printf 'unit  %-28s %s passed, %s failed\n' "$name" "${p:-0}" "${f:-0}"
done

# The audit tests (those that source audit_lib.sh) last, all in one VM
# boot (tests/integration/in_vm.sh runs this script there with their
# names): on this host, once audit has been on, every process forked
# afterwards keeps the syscall audit slow path until reboot. With
# TRACETAX_TEST_HOST_AUDIT=1 (make check-audit-host) they run here, one by one.
audit_vm=
[ -z "${TRACETAX_VM:-}" ] && [ "${TRACETAX_TEST_HOST_AUDIT:-0}" != 1 ] && audit_vm=1
in_group() { [ -n "$audit_vm" ] && grep -q '^\. .*/audit_lib\.sh"' "$1"; }
group=()
for t in $tests; do
	[ -f "$t" ] || { fail=$((fail + 1)); failed+=("$t: no such test"); continue; }
	in_group "$t" && { group+=("$(basename "$t" .sh)"); continue; }
	name=$(basename "$t" .sh)
	start=$(date +%s)
	# The VM and audit tests boot guests under TCG or wait out a whole
	# audit cycle per path: 300 s is too tight for them on a loaded box.
	case $name in t_vm|t_audit*) limit=900 ;; *) limit=300 ;; esac
	sanitized "$name" timeout -k 10 $limit bash "$t" >"$log/$name" 2>&1
	rc=$?
	secs=$(( $(date +%s) - start ))
	san_reports "$name" >"$log/$name.reports" && rc="$rc, sanitizer report"
	case $rc in
	0) pass=$((pass + 1)); printf 'ok    %-28s (%ss)\n' "$name" "$secs" ;;
	77) skip=$((skip + 1)); why=$(tail -n 1 "$log/$name")
	    skipped+=("$name: $why"); printf 'skip  %-28s %s\n' "$name" "$why" ;;
	*) fail=$((fail + 1)); failed+=("$name")
	   printf 'FAIL  %-28s (exit %s, %ss)\n' "$name" "$rc" "$secs"
	   sed 's/^/      /' "$log/$name" | tail -n 40
	   sed 's/^/      /' "$log/$name.reports" ;;
	esac
done

# The group in its VM: its own lines ("ok    t_audit (80s)") are the
# tests' results here; what the VM said is shown when it ran none.
if [ ${#group[@]} -gt 0 ]; then
	start=$(date +%s)
	TRACETAX_VM_DEADLINE=$((900 * ${#group[@]})) sanitized audit-vm \
		timeout -k 10 $((900 * ${#group[@]} + 300)) bash tests/integration/in_vm.sh bash tests/run.sh "${group[@]}" \
		>"$log/audit-vm" 2>&1
	rc=$?
	secs=$(( $(date +%s) - start ))
	san_reports audit-vm >"$log/audit-vm.reports" && rc="$rc, sanitizer report"
	seen=0
	while IFS= read -r l; do
		case $l in
		"in a VM: "*) echo "$l" ;;
		"ok    "*) pass=$((pass + 1)); seen=$((seen + 1)); echo "$l" ;;
		"skip  "*) skip=$((skip + 1)); seen=$((seen + 1)); echo "$l"
			read -r _ n why <<<"$l"; skipped+=("$n: $why") ;;
		"FAIL  "*) fail=$((fail + 1)); seen=$((seen + 1)); echo "$l"
			read -r _ n _ <<<"$l"; failed+=("$n (in the VM)") ;;
		"      "*) echo "$l" ;;
		esac
	done <"$log/audit-vm"
	if [ "$rc" = 77 ] && [ $seen = 0 ]; then
		why=$(tail -n 1 "$log/audit-vm")
		for name in "${group[@]}"; do
			skip=$((skip + 1)); skipped+=("$name: $why"); printf 'skip  %-28s %s\n' "$name" "$why"
		done
	elif [ "$rc" != 0 ] && [ "$rc" != 1 ] || [ $seen != ${#group[@]} ]; then
		fail=$((fail + 1)); failed+=("the audit tests' VM")
		printf 'FAIL  %-28s (exit %s, %ss: %s of %s tests reported)\n' "audit tests' VM" "$rc" "$secs" $seen ${#group[@]}
		sed 's/^/      /' "$log/audit-vm" | tail -n 40
		sed 's/^/      /' "$log/audit-vm.reports"
	fi
	echo "      (${#group[@]} audit tests in one VM: ${secs}s, boot included)"
fi

# What the suite left: the box's syscall cost against the start's.
cost=
if [ -n "${TRACETAX_VM:-}" ]; then
	:
elif ! SYSCALL_END=$(syscall_ns) || [ -z "$SYSCALL_START" ] || [ -z "$SYSCALL_END" ]; then
	cost="syscall cost: not measured (no $B/tests/tt-syscall-ns: make all builds it)"
	fail=$((fail + 1)); failed+=("syscall cost: not measured")
else
	ratio=$(awk -v a="$SYSCALL_START" -v b="$SYSCALL_END" 'BEGIN { printf "%.2f", b / a }')
	cost="syscall cost: a fresh process's getpid $SYSCALL_START ns at the start, $SYSCALL_END ns at the end (x$ratio)"
	if awk -v r="$ratio" 'BEGIN { exit !(r > 1.3) }'; then
		if [ "${TRACETAX_TEST_HOST_AUDIT:-0}" = 1 ]; then
			cost="$cost: the residue of audit enabled on this host (TRACETAX_TEST_HOST_AUDIT=1), until reboot"
		else
			fail=$((fail + 1))
			failed+=("syscall cost x$ratio: the suite left every new process's syscalls dearer (audit enabled on this host stays until reboot; a syscall tracepoint left on; or another load on the box)")
		fi
	fi
fi

echo
[ -n "$cost" ] && echo "$cost"
for s in "${skipped[@]+"${skipped[@]}"}"; do echo "skipped: $s"; done
for f in "${failed[@]+"${failed[@]}"}"; do echo "failed: $f"; done
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
