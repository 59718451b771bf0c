#!/bin/bash
# Runs every test: cmocka unit tests, then the integration scripts on the
# real kernel. Closes with "N passed, N failed, N skipped" and the reasons.
# An integration script passes with exit 0, skips with 77 (its last line of
# output says why), fails otherwise.
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

for t in "$B"/tests/test_*; do
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

# The audit tests last: once audit has been on, every process forked
# afterwards keeps the syscall audit slow path until reboot, which would
# shift the figures of the tests after them.
for t in $(ls tests/integration/t_*.sh | grep -v '/t_audit') tests/integration/t_audit*.sh; do
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

echo
for s in "${skipped[@]+"${skipped[@]}"}"; do echo "skipped: $s"; done
for f in "${failed[@]+"${failed[@]}"}"; do echo "failed: $f"; done
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
