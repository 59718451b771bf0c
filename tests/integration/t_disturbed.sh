# A BPF program attached to the measured tracepoint in the middle of a cell
# (another tool, not tracetax: the lock cannot stop it) marks that cell
# disturbed, says what appeared, and makes the exit code 3; a cell after it
# is not disturbed.
. "$(dirname "$0")/lib.sh"
need_root
available perf:count | grep -q . || skip "tracer 'perf:count' not available here"
[ -x "$B/tests/tt-attach" ] || fail "no $B/tests/tt-attach"

# perf:count's cell (one round: it runs first, whole): calibration (well
# under a second), then 16 reps of about 250 ms. tt-attach comes once the
# cell has its perf events open (the traced side's calibration) and stays
# 1 s, within those reps. (It came at a fixed 2.5 s, into 30 reps.)
"$TT" run -t perf:count,none --reps 16 --rounds 1 --run-ms 100 --json "$TMP/r.json" >"$TMP/out" 2>"$TMP/err" &
pid=$!
for _ in $(seq 1200); do
	ls -l /proc/$pid/fd 2>/dev/null | grep -q 'perf_event' && break
	kill -0 $pid 2>/dev/null || break
	sleep 0.05
done
grep -q '^\[1/' "$TMP/err" && fail "perf:count's cell ended before the attach: the test needs longer reps"
timeout 10 "$B/tests/tt-attach" syscalls:sys_enter_getpid 1 >"$TMP/attach" 2>&1 ||
	fail "tt-attach failed: $(cat "$TMP/attach")"
wait "$pid"
rc=$?
cat "$TMP/attach"
[ "$rc" = 3 ] || fail "exit $rc, want 3 (disturbed): $(tail -5 "$TMP/err")"
python3 - "$TMP/r.json" <<'PY' || exit 1
import json, sys
c = {x["tracer"]: x for x in json.load(open(sys.argv[1]))["cells"]}
p, n = c["perf:count"], c["none"]
print("perf:count:", p["note"])
if not p["disturbed"] or "tt_attach_tp" not in (p["disturbed_by"] or ""):
    print("FAIL: perf:count not marked disturbed by tt-attach's program:", p["disturbed_by"]); sys.exit(1)
if "disturbed" not in (p["note"] or ""):
    print("FAIL: the note does not say disturbed"); sys.exit(1)
if n["disturbed"]:
    print("FAIL: the cell after it is disturbed too:", n["disturbed_by"]); sys.exit(1)
PY
grep -q 'disturbed: appeared: bpf prog [0-9]* .tt_attach_tp' "$TMP/out" || fail "the table does not show it: $(cat "$TMP/out")"

# One run right after another: the first's BPF programs (tt_syscheck,
# a cell's) linger in the kernel for a grace period after it exits
# (60-260 ms here). The first waits for them to go before it exits, or the
# second would see them go and call its cell disturbed (it did, in one run
# in six to eight, before the wait).
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16; do
	"$TT" run -q -t none -n 2000 --reps 2 --json "$TMP/next$i.json" >/dev/null 2>"$TMP/next.err"
	rc=$?
	[ "$rc" = 0 ] || fail "run $i after a run: exit $rc: $(python3 -c 'import json,sys; print([c["disturbed_by"] for c in json.load(open(sys.argv[1]))["cells"]])' "$TMP/next$i.json" 2>&1) $(cat "$TMP/next.err")"
done
echo "sixteen runs one right after another: none disturbed"
assert_clean
