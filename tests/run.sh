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

for t in "$B"/tests/test_*; do
	[ -x "$t" ] || continue
	name=$(basename "$t")
	"$t" >"$log/$name" 2>&1
	rc=$?
	p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$log/$name" | tail -1)
	f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$log/$name" | tail -1)
	pass=$((pass + ${p:-0}))
	fail=$((fail + ${f:-0}))
	if [ "$rc" != 0 ] || [ -n "$f" ]; then
		[ -z "$f" ] && fail=$((fail + 1))
		failed+=("unit/$name")
		cat "$log/$name"
	fi
	printf 'unit  %-28s %s passed, %s failed\n' "$name" "${p:-0}" "${f:-0}"
done

for t in tests/integration/t_*.sh; do
	name=$(basename "$t" .sh)
	start=$(date +%s)
	timeout -k 10 300 bash "$t" >"$log/$name" 2>&1
	rc=$?
	secs=$(( $(date +%s) - start ))
	case $rc in
	0) pass=$((pass + 1)); printf 'ok    %-28s (%ss)\n' "$name" "$secs" ;;
	77) skip=$((skip + 1)); why=$(tail -n 1 "$log/$name")
	    skipped+=("$name: $why"); printf 'skip  %-28s %s\n' "$name" "$why" ;;
	*) fail=$((fail + 1)); failed+=("$name")
	   printf 'FAIL  %-28s (exit %s, %ss)\n' "$name" "$rc" "$secs"
	   sed 's/^/      /' "$log/$name" | tail -n 40 ;;
	esac
done

echo
for s in "${skipped[@]+"${skipped[@]}"}"; do echo "skipped: $s"; done
for f in "${failed[@]+"${failed[@]}"}"; do echo "failed: $f"; done
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
