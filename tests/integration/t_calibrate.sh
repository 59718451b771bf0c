# A calibration run that reports 0 ns after the most ops calibration makes
# (a clock that never moved) fails its cell, "calibration: N ops reported
# 0 ns", with the tracer torn down, exit 1, and the next cell still runs.
# It used to divide --run-ms by a per-op time of 0 and run the cell on an
# iteration count cast from inf (issue 15, defect 17c). TRACETAX_FAULT's
# calibrate-0ns makes the traced side's first calibration run report 0 ns
# as if it were the last.
. "$(dirname "$0")/lib.sh"
need_root

tested=0
for tracer in bpf:tp/count ftrace:syscall/read; do
	available "$tracer" | grep -q . || continue
	TRACETAX_FAULT="$tracer@calibrate-0ns" "$TT" run -q -w getpid -t "$tracer,none" --reps 2 \
		--run-ms 20 --json "$TMP/c.json" >"$TMP/out" 2>&1
	rc=$?
	[ "$rc" = 1 ] || fail "$tracer@calibrate-0ns: exit $rc, want 1: $(cat "$TMP/out")"
	python3 - "$TMP/c.json" "$tracer" <<'PY' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))
tracer = sys.argv[2]
c = {x["tracer"]: x for x in d["cells"]}
f, n = c[tracer], c["none"]
want = "calibration: 1000000000 ops reported 0 ns"
if f["status"] != "failed" or f["reason"] != want:
    print("FAIL: %s: %s: %r, want failed: %r" % (tracer, f["status"], f["reason"], want)); sys.exit(1)
if f["overhead_ns_per_event"] is not None and f["overhead_ns_per_event"]["mean"] is not None:
    print("FAIL: %s: a failed cell with figures: %s" % (tracer, f["overhead_ns_per_event"])); sys.exit(1)
if n["status"] != "ok":
    print("FAIL: %s: the next cell did not run: %s" % (tracer, n["reason"])); sys.exit(1)
PY
	assert_clean
	tested=$((tested + 1))
	echo "$tracer@calibrate-0ns: failed ($(grep -o 'calibration: [^"]*' "$TMP/c.json" | head -1)), torn down, next cell ok"
done
[ "$tested" -gt 0 ] || skip "neither bpf:tp/count nor ftrace:syscall/read is available"
