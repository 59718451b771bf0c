# User-space tracers: on func (and func-usdt for USDT), every available
# tracer counts exactly one hit per call, uretprobe one per return, with 1
# and 2 threads, in every run (a BPF cell's stats pass too); preload counts
# exactly the libc calls of the -libc workloads; the inline floor is at
# least 5x cheaper than a uprobe trap.
. "$(dirname "$0")/lib.sh"
need_root
# Calls per thread and run: every one of them is counted exactly. A run's
# time is mostly the uprobes' attach and detach (a USDT probe has six
# sites, each detach an RCU grace period), then the calls' traps.
N=5000

func=$( (available '*' function | grep -v '^bpf:'; echo inline) | tr '\n' ',' | sed 's/,$//')
fbpf=$(available 'bpf:*' function | tr '\n' ',' | sed 's/,$//')
usdt=$(available '*' usdt | tr '\n' ',' | sed 's/,$//')
"$TT" run -q -w func -t "$func" -T 1,2 -n $N --reps 2 --json "$TMP/f.json" >"$TMP/out" ||
	fail "run on func failed: $(cat "$TMP/out")"
files="$TMP/f.json"
# BPF cells: one rep, and the BPF stats pass's three runs are counted too (below)
if [ -n "$fbpf" ]; then
	"$TT" run -q -w func -t "$fbpf" -T 1,2 -n $N --reps 1 --json "$TMP/fb.json" >"$TMP/out" ||
		fail "run on func failed: $(cat "$TMP/out")"
	files="$files $TMP/fb.json"
fi
if [ -n "$usdt" ]; then
	# as the BPF cells above: one rep, and the stats pass counted
	"$TT" run -q -w func-usdt -t "$usdt,inline" -T 1,2 -n $N --reps 1 --json "$TMP/u.json" >"$TMP/out" ||
		fail "run on func-usdt failed: $(cat "$TMP/out")"
	files="$files $TMP/u.json"
fi
if available preload | grep -q .; then
	"$TT" run -q -w getpid-libc,close-libc,stat-libc -t preload -T 1,2 -n $N --reps 2 \
		--json "$TMP/p.json" >"$TMP/out" || fail "preload run failed: $(cat "$TMP/out")"
	files="$files $TMP/p.json"
fi
python3 - "$N" $files <<'PY' || exit 1
import json, sys
bad, seen = [], set()
n = int(sys.argv[1])
for f in sys.argv[2:]:
    for c in json.load(open(f))["cells"]:
        name = "%s on %s %dT" % (c["tracer"], c["workload"], c["threads"])
        if c["status"] != "ok":
            bad.append("%s: %s: %s" % (name, c["status"], c["reason"])); continue
        seen.add(c["tracer"])
        want = c["threads"] * (n + c["warmup"])
        for i, r in enumerate(c["runs"]):
            if r["events"] != want:
                bad.append("%s run %d: events %d, want %d" % (name, i, r["events"], want))
            if r["hits"] is not None and (r["hits"] != r["events"] or r["lost"]):
                bad.append("%s run %d: hits %d lost %d, events %d" % (name, i, r["hits"], r["lost"], r["events"]))
        if c["hits"] is None and not c["tracer"].endswith("/empty"):
            bad.append("%s: no hits counted" % name)
        # a BPF cell's runs with stats on, after the reps: as exact
        p = c["program"]
        if p is not None and p["reason"] is None and \
           (p["events"] != p["runs"] * want or (p["hits"] is not None and p["hits"] != p["events"]) or
            (p["hits"] is None and not c["tracer"].endswith("/empty"))):
            bad.append("%s: stats pass of %d runs: hits %s, events %s, want %d" %
                       (name, p["runs"], p["hits"], p["events"], p["runs"] * want))
print("checked:", " ".join(sorted(seen)))
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
PY
if available bpf:uprobe/count | grep -q .; then
	"$TT" run -q -w func -t inline,bpf:uprobe/count --reps 3 --run-ms 50 --json "$TMP/o.json" >"$TMP/out" ||
		fail "run failed: $(cat "$TMP/out")"
	python3 - "$TMP/o.json" <<'PY' || exit 1
import json, sys
c = {x["tracer"]: x for x in json.load(open(sys.argv[1]))["cells"]}
i, u = c["inline"]["overhead_ns_per_event"]["median"], c["bpf:uprobe/count"]["overhead_ns_per_event"]["median"]
print("inline %.1f ns/event, bpf:uprobe/count %.1f ns/event" % (i, u))
if not u > 5 * max(i, 0.1):
    print("FAIL: inline is not 5x cheaper than a uprobe"); sys.exit(1)
PY
fi
assert_clean
