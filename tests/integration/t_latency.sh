# --latency: every call of extra runs timed into a histogram. The counts sum
# to the calls made, p50 <= p99 <= max, a BPF counter's p50 lies above
# none's, and the overhead runs are the same as without --latency (their
# count, their events), the latency runs kept apart.
. "$(dirname "$0")/lib.sh"
need_root
available 'bpf:tp/count' | grep -qx 'bpf:tp/count' || skip "bpf:tp/count is not available here"

N=20000
"$TT" run -q -w getpid -t none,bpf:tp/count -n $N --reps 2 --latency --json "$TMP/r.json" \
	>"$TMP/out" 2>&1 || fail "tracetax run --latency failed: $(cat "$TMP/out")"
python3 tests/validate_json.py "$TMP/r.json" docs/schema.json || fail "schema validation"
python3 - "$TMP/r.json" $N <<'PY' || exit 1
import json, sys
d, n = json.load(open(sys.argv[1])), int(sys.argv[2])
bad = []
if d["options"]["latency"] is not True:
    bad.append("options.latency is not true")
t = d["timing"]
if not (t["timer"] and t["timer_ns"] and t["timer_ns"] > 0 and t["clock"] == "CLOCK_MONOTONIC"):
    bad.append("timing names no timer or clock: %s" % t)
p50 = {}
for c in d["cells"]:
    name = c["tracer"]
    if c["status"] != "ok":
        bad.append("%s: %s: %s" % (name, c["status"], c["reason"]))
        continue
    l = c["latency"]
    # the overhead runs: as many as --reps, each with the events of a plain run
    if len(c["runs"]) != 2 or c["events"] != 2 * (n + c["warmup"]):
        bad.append("%s: %d runs, %d events: the latency runs leaked into the reps"
                   % (name, len(c["runs"]), c["events"]))
    want = l["pairs"] * n
    for side in ("baseline", "traced"):
        h = l[side]
        counted = sum(b[2] for b in h["buckets"])
        if h["count"] != want or counted != want:
            bad.append("%s %s: count %d, buckets %d, want %d calls" % (name, side, h["count"], counted, want))
        if not (h["min"] <= h["p50"] <= h["p99"] <= h["max"]):
            bad.append("%s %s: not min <= p50 <= p99 <= max: %s" % (name, side, h))
        if any(not (b[0] < b[1]) for b in h["buckets"]) or \
           any(a[1] > b[0] for a, b in zip(h["buckets"], h["buckets"][1:])):
            bad.append("%s %s: buckets overlap or are out of order" % (name, side))
    if l["calls"] != want or l["pairs"] != 2:
        bad.append("%s: %d calls in %d pairs" % (name, l["calls"], l["pairs"]))
    if l["events"] != 2 * (n + c["warmup"]):
        bad.append("%s: latency runs made %d events" % (name, l["events"]))
    if l["hits"] is not None and l["hits"] != l["events"]:
        bad.append("%s: latency runs: hits %d != events %d" % (name, l["hits"], l["events"]))
    if not (l["timer_ns"] > 0):
        bad.append("%s: no timer cost" % name)
    p50[name] = l["traced"]["p50"]
if len(p50) == 2 and not p50["bpf:tp/count"] > p50["none"]:
    bad.append("p50 of bpf:tp/count (%s) not above none's (%s)" % (p50["bpf:tp/count"], p50["none"]))
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
PY
# the terminal: percentiles, a log2 histogram per cell, the cost of timing in the header
grep -q '^latency: ns per call' "$TMP/out" || fail "no latency section: $(cat "$TMP/out")"
grep -q '^bpf:tp/count, getpid, 1 thread: ns per call' "$TMP/out" || fail "no histogram of bpf:tp/count"
grep -Eq '^\[[0-9]+K?, [0-9]+[KM]?\) +[0-9]+ \|@+ *\|' "$TMP/out" || fail "no log2 histogram rows"
grep -q 'costs the loop .* ns a call (none getpid 1T' "$TMP/out" || fail "header lacks the cost of timing"
grep -q '^timed with CLOCK_MONOTONIC' "$TMP/out" || fail "header lacks the clock"

# without --latency: no latency figures, no section
"$TT" run -q -w getpid -t none -n 2000 --reps 2 --json "$TMP/n.json" >"$TMP/out" 2>&1 ||
	fail "tracetax run failed: $(cat "$TMP/out")"
json_get "$TMP/n.json" 'd["cells"][0]["latency"]' | grep -qx None || fail "latency figures without --latency"
grep -q '^latency' "$TMP/out" && fail "latency section without --latency"
assert_clean
