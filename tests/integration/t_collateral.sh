# --target close on the getpid workload: the tracer hooks close, the
# workload never calls it, so every counting tracer sees exactly 0 hits.
. "$(dirname "$0")/lib.sh"
need_root

tracers=$(available '*' syscall | grep -v -E '^(none|seccomp:filter)$|/empty$' | tr '\n' ',' | sed 's/,$//')
[ -n "$tracers" ] || fail "no counting tracer available"
"$TT" run -q -w getpid -t "$tracers" --target close -n 20000 --reps 1 --json "$TMP/r.json" >"$TMP/out" ||
	fail "tracetax run failed: $(cat "$TMP/out")"
python3 - "$TMP/r.json" <<'PY' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))
bad = []
for c in d["cells"]:
    if c["status"] != "ok":
        bad.append("%s: %s: %s" % (c["tracer"], c["status"], c["reason"]))
    elif c["target"] != "close":
        bad.append("%s: target %s, want close" % (c["tracer"], c["target"]))
    elif c["hits"] != 0:
        bad.append("%s: %s hits on close while the workload only calls getpid" % (c["tracer"], c["hits"]))
    elif c["events"] <= 0:
        bad.append("%s: workload made no events" % c["tracer"])
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
PY
assert_clean
