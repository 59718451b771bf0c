# Threads as a curve: each thread's figures are kept, their events sum to
# the cell's events and hits, threads are pinned one per CPU, and with
# several thread counts the table has a scaling view.
. "$(dirname "$0")/lib.sh"
need_root
available 'bpf:tp/count' | grep -qx 'bpf:tp/count' || skip "bpf:tp/count is not available here"

N=20000
"$TT" run -q -w getpid -t none,bpf:tp/count -T 1,2 -n $N --reps 2 --json "$TMP/r.json" \
	>"$TMP/out" 2>&1 || fail "tracetax run failed: $(cat "$TMP/out")"
python3 tests/validate_json.py "$TMP/r.json" docs/schema.json || fail "schema validation"
python3 - "$TMP/r.json" $N "$(nproc)" <<'PY' || exit 1
import json, sys
d, n, ncpu = json.load(open(sys.argv[1])), int(sys.argv[2]), int(sys.argv[3])
bad = []
for c in d["cells"]:
    name = "%s %dT" % (c["tracer"], c["threads"])
    if c["status"] != "ok":
        bad.append("%s: %s: %s" % (name, c["status"], c["reason"]))
        continue
    per = c["per_thread"]
    if len(per) != c["threads"]:
        bad.append("%s: %d per-thread figures" % (name, len(per)))
        continue
    if sum(t["events"] for t in per) != c["events"]:
        bad.append("%s: per-thread events %s do not sum to %d" % (name, [t["events"] for t in per], c["events"]))
    if c["hits"] is not None and sum(t["events"] for t in per) != c["hits"]:
        bad.append("%s: per-thread events do not sum to hits %d" % (name, c["hits"]))
    for i, r in enumerate(c["runs"]):
        if [t["events"] for t in r["threads"]] != [n + c["warmup"]] * c["threads"]:
            bad.append("%s run %d: thread events %s" % (name, i, [t["events"] for t in r["threads"]]))
        if sum(t["events"] for t in r["threads"]) != r["events"]:
            bad.append("%s run %d: thread events do not sum to the run's" % (name, i))
    # one thread per CPU while there are CPUs enough
    cpus = [t["cpu"] for t in per]
    if c["threads"] <= ncpu and len(set(cpus)) != c["threads"]:
        bad.append("%s: threads on CPUs %s" % (name, cpus))
    if c["cpus_used"] != len(set(cpus)):
        bad.append("%s: cpus_used %s, threads on %s" % (name, c["cpus_used"], cpus))
    tp = c["throughput_mops"]
    if not (tp["baseline"] > 0 and tp["traced"] > 0):
        bad.append("%s: throughput %s" % (name, tp))
    sp = c["thread_spread_pct"]
    if c["threads"] == 1 and (sp["baseline"] is not None or sp["traced"] is not None):
        bad.append("%s: a spread between one thread: %s" % (name, sp))
    if c["threads"] == 2 and not (sp["baseline"] >= 0 and sp["traced"] >= 0):
        bad.append("%s: no spread between two threads: %s" % (name, sp))
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
PY
grep -q '^scaling: ' "$TMP/out" || fail "no scaling view with -T 1,2: $(cat "$TMP/out")"
grep -Eq '^bpf:tp/count +getpid +1 ' "$TMP/out" && grep -Eq '^ +2  [0-9.]+ \[' "$TMP/out" ||
	fail "scaling view lacks bpf:tp/count at 1 and 2 threads: $(cat "$TMP/out")"

# more threads than CPUs: the header says so
T=$(( $(nproc) + 1 ))
"$TT" run -q -w getpid -t none -T $T -n 2000 --reps 2 >"$TMP/out" 2>&1 ||
	fail "tracetax run -T $T failed: $(cat "$TMP/out")"
grep -q "warning: $T threads ran on $(nproc) CPUs" "$TMP/out" || fail "no warning for $T threads on $(nproc) CPUs: $(cat "$TMP/out")"
# one thread count: no scaling view
grep -q '^scaling: ' "$TMP/out" && fail "a scaling view with one thread count"
assert_clean
