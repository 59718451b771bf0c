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
failed=() skipped=() hung=()
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT

# A fresh process's getpid in ns: the least of 10 processes, each the fastest
# of 200 batches of 1000 calls (tests/tools/syscall_ns.c). The least: on this
# 2-vCPU VM a process gets either about 139 ns or about 180 ns for its whole
# life (same flags in /proc/PID/status, same CPU; a user-space loop beside it
# unchanged), a third to half of them the slow kind, at times most of them. A process takes
# the syscall slow path from its fork on when audit was ever enabled on this
# boot, or while a syscall tracepoint is on: the kernel log cannot say when
# (an auditd listening keeps "audit_enabled=1" out of it).
syscall_ns() {
	local i ns
	for i in 1 2 3 4 5 6 7 8 9 10; do
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

# The audit tests (those that source audit_lib.sh) last, each in a VM
# (tests/integration/in_vm.sh runs this script there with its name): on this host, once audit has been on, every process forked
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
	# (the audit group's VMs set theirs: below)
	[ -n "${TRACETAX_TEST_LIMIT:-}" ] && limit=$TRACETAX_TEST_LIMIT
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

# The group, one VM boot per test (a boot takes seconds under TCG): a test
# that hangs its guest (a full audit backlog stalls every audited call)
# costs its own deadline (480 s, TRACETAX_AUDIT_VM_TEST_S), not the
# others', says where it hung (vm_watch.sh, and the guest's console) and is
# booted once more: a guest that gives no result is no result, and the
# summary names it ("hung:"); the group never takes more than
# TRACETAX_AUDIT_VM_S (default 1800) in all. Each test's own line ("ok    t_audit (80s)") is
# its result, timed in the guest; what the VM said is shown when it gave none.
if [ ${#group[@]} -gt 0 ]; then
	per=${TRACETAX_AUDIT_VM_TEST_S:-480}
	all=${TRACETAX_AUDIT_VM_S:-1800}
	gstart=$(date +%s)
	first=1
	for name in "${group[@]}"; do
		for attempt in 1 2; do
			left=$(( all - ($(date +%s) - gstart) ))
			if [ $left -lt 120 ]; then
				fail=$((fail + 1)); failed+=("$name (not run: the audit tests' VMs had spent ${all}s, TRACETAX_AUDIT_VM_S)")
				printf 'FAIL  %-28s (not run: the audit tests had spent %ss)\n' "$name" "$all"
				break
			fi
			lim=$per; [ $left -lt $lim ] && lim=$left
			start=$(date +%s)
			# in the guest: run.sh's timeout first (its FAIL shows the test's
			# output), vm_watch's report next, the host's deadline last
			TRACETAX_VM_DEADLINE=$lim sanitized "$name" \
				timeout -k 10 $((lim + 120)) bash tests/integration/in_vm.sh \
				bash tests/integration/vm_watch.sh $((lim - 30)) \
				env TRACETAX_TEST_LIMIT=$((lim - 60)) bash tests/run.sh "$name" >"$log/$name" 2>&1
			rc=$?
			secs=$(( $(date +%s) - start ))
			san_reports "$name" >"$log/$name.reports" && rc="$rc, sanitizer report"
			[ -n "$first" ] && grep -m 1 '^in a VM: ' "$log/$name"
			first=
			line=$(grep -E -m 1 "^(ok|skip|FAIL) +$name " "$log/$name")
			if [ -z "$line" ] && [ "$rc" != 77 ]; then
				# no result: the guest hung (its run.sh, 60 s under the deadline,
				# did not report either). What it said, and its console, where
				# vm_watch's sysrq dump of the blocked tasks and CPUs went (the
				# next boot writes over it)
				printf '%s  %-28s (its VM: exit %s, %ss, no result)\n' \
					"$([ $attempt = 1 ] && echo hung || echo FAIL)" "$name" "$rc" "$secs"
				sed 's/^/      /' "$log/$name" | tail -n 60
				con=$(grep -o 'its console log: [^ ]*' "$log/$name" | tail -n 1)
				con=${con#its console log: }
				if [ -n "$con" ] && [ -f "$con" ]; then
					# (vm_watch's report once: the console's copy is for a 9p that hangs)
					dup='^$'
					grep -q '^vm_watch: audit ' "$log/$name" && dup='^vm_watch: (  |audit )'
					echo "      its console's last 100 lines (of $(wc -l <"$con")):"
					tail -n 100 "$con" | tr -cd '\11\12\40-\176' | grep -E -v "$dup" | sed 's/^/      /'
				fi
				if [ $attempt = 1 ]; then
					# a guest that hangs is not the test's result: one fresh
					# boot more, and the summary says so whatever it gives
					hung+=("$name: its first VM gave no result in ${secs}s (exit $rc); booted once more")
					continue
				fi
				fail=$((fail + 1)); failed+=("$name (its VM: exit $rc, twice)")
				break
			fi
			case $line in
			"ok    "*) pass=$((pass + 1)); echo "$line" ;;
			"skip  "*) skip=$((skip + 1)); echo "$line"
				read -r _ _ why <<<"$line"; skipped+=("$name: $why") ;;
			"FAIL  "*) fail=$((fail + 1)); failed+=("$name (in the VM)")
				sed -n "/^FAIL  *$name /,\$p" "$log/$name" | grep -E '^(FAIL|      )'
				grep '^vm_watch: ' "$log/$name" | sed 's/^/      /' ;;
			*)
				why=$(tail -n 1 "$log/$name")
				skip=$((skip + 1)); skipped+=("$name: $why")
				printf 'skip  %-28s %s\n' "$name" "$why" ;;
			esac
			sed 's/^/      /' "$log/$name.reports"
			break
		done
	done
	echo "      (${#group[@]} audit tests, a VM each: $(( $(date +%s) - gstart ))s, boots included)"
fi

# What the suite left: the box's syscall cost against the start's.
cost=
if [ -n "${TRACETAX_VM:-}" ]; then
	:
elif ! SYSCALL_END=$(syscall_ns) || [ -z "$SYSCALL_START" ] || [ -z "$SYSCALL_END" ]; then
	cost="syscall cost: not measured (no $B/tests/tt-syscall-ns: make all builds it)"
	fail=$((fail + 1)); failed+=("syscall cost: not measured")
else
	# a residue stays; a burst of the shared box's other load passes: the
	# least of three tries, 5 s apart, before calling it left
	for _ in 1 2; do
		awk -v a="$SYSCALL_START" -v b="$SYSCALL_END" 'BEGIN { exit !(b / a > 1.3) }' || break
		sleep 5
		again=$(syscall_ns) && SYSCALL_END=$(printf '%s\n%s\n' "$SYSCALL_END" "$again" | sort -g | head -n 1)
	done
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
for h in "${hung[@]+"${hung[@]}"}"; do echo "hung: $h"; done
for f in "${failed[@]+"${failed[@]}"}"; do echo "failed: $f"; done
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
