# BPF program self-time: after the reps, traced runs with BPF stats on give
# each BPF cell's program time. Every hit is a run of the program, so
# run_cnt >= hits; not ==: the program also runs for what it filters out,
# on raw_tp every syscall of the machine, on the getpid tracepoint other
# processes' getpid (120 000 of them once here, from another test's
# workload). The program's time per run is positive and
# within the cell's whole cost per event; non-BPF cells have none. kernel.bpf_stats_enabled
# is never written: it reads the same throughout. A refusal leaves the cell
# ok, its column '-' and the reason in its note.
. "$(dirname "$0")/lib.sh"
need_root

SYSCTL=/proc/sys/kernel/bpf_stats_enabled
[ -r "$SYSCTL" ] || skip "no $SYSCTL: kernel without BPF stats"
available 'bpf:rawtp/count' | grep -q . || skip "bpf:rawtp/count is not available here"
before=$(cat "$SYSCTL")
# watch the sysctl while tracetax runs: it must never change
( while :; do cat "$SYSCTL"; sleep 0.01; done ) >"$TMP/sysctl" 2>/dev/null &
watcher=$!
"$TT" run -q -t none,bpf:rawtp/count,bpf:tp/count -n 50000 --reps 4 --json "$TMP/r.json" \
	>"$TMP/out" 2>&1
rc=$?
kill "$watcher"
wait "$watcher" 2>/dev/null
[ "$rc" = 0 ] || fail "tracetax run exited $rc: $(cat "$TMP/out")"
[ "$(cat "$SYSCTL")" = "$before" ] || fail "kernel.bpf_stats_enabled was $before, is $(cat "$SYSCTL")"
[ "$(sort -u "$TMP/sysctl")" = "$before" ] ||
	fail "kernel.bpf_stats_enabled changed during the run: $(sort -u "$TMP/sysctl" | tr '\n' ' ')"
python3 tests/validate_json.py "$TMP/r.json" || fail "schema validation"
python3 - "$TMP/r.json" <<'PY' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))
bad = []
cells = {c["tracer"]: c for c in d["cells"]}
if cells["none"]["program"] is not None:
    bad.append("none has a program time: %s" % cells["none"]["program"])
for name in ("bpf:rawtp/count", "bpf:tp/count"):
    c = cells[name]
    p = c["program"]
    print(name, "overhead", c["overhead_ns_per_event"]["mean"], c["overhead_ns_per_event"]["ci95"],
          "program", p)
    if c["status"] != "ok" or p is None or p["ns_per_run"] is None:
        bad.append("%s: no program time: %s %s" % (name, c["status"], p))
        continue
    # 3 runs of 50000 + 5000 warm-up each, every one a hit
    if p["runs"] != 3 or p["events"] != 3 * 55000 or p["hits"] != p["events"]:
        bad.append("%s: pass of %s runs, %s hits for %s events, want 3 runs, 165000 and 165000"
                   % (name, p["runs"], p["hits"], p["events"]))
    if not p["hits"] <= p["run_cnt"]:
        bad.append("%s: run_cnt %s for %s hits: fewer runs than hits" % (name, p["run_cnt"], p["hits"]))
    # the overhead's CI, not its mean: on a noisy machine the mean alone can fall below
    if not 0 < p["ns_per_run"] < c["overhead_ns_per_event"]["ci95"][1]:
        bad.append("%s: program %.1f ns per run, outside (0, the overhead's upper bound %.1f)"
                   % (name, p["ns_per_run"], c["overhead_ns_per_event"]["ci95"][1]))
    lo, hi = p["ns_per_run_range"]
    if not lo <= p["ns_per_run"] <= hi:
        bad.append("%s: median %s outside its range %s" % (name, p["ns_per_run"], [lo, hi]))
    if abs(p["dispatch_ns_per_event"] - (c["overhead_ns_per_event"]["mean"] - p["ns_per_run"])) > 1e-6:
        bad.append("%s: dispatch %s != overhead - program" % (name, p["dispatch_ns_per_event"]))
k = d["bpf_stats_cost"]
# once a run, on the first BPF cell to end its reps: with rounds, whichever
# the last round visits first, not the plan's first
bpf = {c["tracer"] for c in d["cells"] if c.get("program")}
if not k or k["tracer"] not in bpf or k["pairs"] < 2:
    bad.append("bpf_stats_cost should be measured once, on a BPF cell: %s" % k)
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
PY
grep -q '^bpf stats: [-+].* ns/event .* (bpf:[a-z]*/count, 4 pairs); in no figure below' "$TMP/out" ||
	fail "the header does not say what BPF stats cost: $(head -5 "$TMP/out")"

# a refusal: the cell stays ok, its program time null with the reason, '-' in the table
TRACETAX_FAULT='bpf:rawtp/count@prog-stats' "$TT" run -t bpf:rawtp/count -n 20000 --reps 2 \
	--json "$TMP/f.json" >"$TMP/out" 2>&1 || fail "tracetax run with a refused pass failed: $(cat "$TMP/out")"
python3 tests/validate_json.py "$TMP/f.json" || fail "schema validation of a refused pass"
json_get "$TMP/f.json" 'd["cells"][0]["status"], d["cells"][0]["program"]["ns_per_run"], d["bpf_stats_cost"]' |
	grep -qx "ok None None" || fail "want an ok cell without program time or stats cost: $(json_get "$TMP/f.json" 'd["cells"][0]["program"]')"
json_get "$TMP/f.json" 'd["cells"][0]["note"]' | grep -q "no program time: fault injected" ||
	fail "the note does not say why: $(json_get "$TMP/f.json" 'd["cells"][0]["note"]')"
python3 - "$TMP/out" <<'PY' || exit 1
import sys
lines = open(sys.argv[1]).read().splitlines()
head = next(l for l in lines if l.startswith("tracer "))
row = next(l for l in lines if l.startswith("bpf:rawtp/count "))
end = head.index("prog ns") + len("prog ns")   # numbers align right, under their heading's end
if row[end - 2:end] != " -":
    print("FAIL: prog ns is not '-':\n%s\n%s" % (head, row)); sys.exit(1)
PY
[ "$(cat "$SYSCTL")" = "$before" ] || fail "kernel.bpf_stats_enabled was $before, is $(cat "$SYSCTL")"
assert_clean
