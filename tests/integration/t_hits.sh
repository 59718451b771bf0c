# Every available tracer on getpid with a fixed count: hits == events
# exactly, in every run, with 1 and 2 threads. ptrace:all services two stops
# per syscall (entry and exit) and counts a hit at each entry of the target.
. "$(dirname "$0")/lib.sh"
need_root

tracers=$( (available '*' syscall; available '*' none) | tr '\n' ',' | sed 's/,$//')
[ -n "$tracers" ] || fail "no tracer available"
"$TT" run -q -w getpid -t "$tracers" -T 1,2 -n 10000 --reps 2 --json "$TMP/r.json" >"$TMP/out" ||
	fail "tracetax run failed: $(cat "$TMP/out")"
python3 - "$TMP/r.json" <<'PY' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))
bad = []
counted = 0
for c in d["cells"]:
    name = "%s %dT" % (c["tracer"], c["threads"])
    if c["status"] != "ok":
        bad.append("%s: %s: %s" % (name, c["status"], c["reason"]))
        continue
    # each thread: 10000 timed + warm-up (a tenth of them, at least 100)
    want = c["threads"] * (10000 + c["warmup"])
    for i, r in enumerate(c["runs"]):
        if r["events"] != want:
            bad.append("%s run %d: events %s, want %d" % (name, i, r["events"], want))
        if r["hits"] is None:
            continue
        counted += 1
        if r["hits"] != r["events"]:
            bad.append("%s run %d: hits %d != events %d" % (name, i, r["hits"], r["events"]))
        if r["lost"]:
            bad.append("%s run %d: lost %d" % (name, i, r["lost"]))
    if c["tracer"] == "ptrace:all" and c["stops"] is not None and c["stops"] < 2 * c["hits"]:
        bad.append("ptrace:all: %d stops for %d hits: fewer than two per syscall" % (c["stops"], c["hits"]))
    if c["tracer"] in ("none", "seccomp:filter") or c["tracer"].endswith("/empty"):
        if c["hits"] is not None:
            bad.append("%s claims %s hits but cannot count" % (name, c["hits"]))
if counted == 0:
    bad.append("no tracer counted anything")
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
PY
assert_clean
