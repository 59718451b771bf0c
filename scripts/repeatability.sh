#!/bin/bash
# Repeatability benchmark (issue 19): run one plan RUNS times back to back and
# report, per cell, how often each run's 95% interval of the overhead holds
# the other runs' means; the runs' wall time and median CI half-width; and
# what `tracetax compare` says of runs 1 and 2. Not a timed test: minutes.
#
#   scripts/repeatability.sh [-n RUNS] [-b TRACETAX] [-o DIR] -- RUN-OPTIONS...
#   scripts/repeatability.sh -- -w getpid -t bpf:tp/count,ftrace:syscall --precision 3 --max-time 40
#
# The documents stay in DIR (default: a new temporary folder) for a later look.
set -eu
runs=5 tt=build/tracetax out=
while getopts n:b:o: opt; do
	case $opt in
	n) runs=$OPTARG ;;
	b) tt=$OPTARG ;;
	o) out=$OPTARG ;;
	*) echo "usage: $0 [-n RUNS] [-b TRACETAX] [-o DIR] -- RUN-OPTIONS..." >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ "${1:-}" = -- ] && shift
out=${out:-$(mktemp -d /tmp/tt-repeat.XXXXXX)}
mkdir -p "$out"
echo "repeatability: $runs runs of: tracetax run $*  (documents in $out)"
for ((i = 1; i <= runs; i++)); do
	"$tt" run "$@" --json "$out/run-$i.json" --no-store >"$out/run-$i.txt" 2>"$out/run-$i.err" || {
		rc=$?
		# 3: disturbed; 1: a cell failed. The figures are still there.
		[ $rc -eq 1 ] || [ $rc -eq 3 ] || { echo "run $i: exit $rc" >&2; cat "$out/run-$i.err" >&2; exit 1; }
	}
done
"$tt" compare "$out/run-1.json" "$out/run-2.json" >"$out/compare-1-2.txt" 2>&1 || true
python3 - "$out" "$runs" <<'PY'
import json, sys, statistics as st
out, runs = sys.argv[1], int(sys.argv[2])
docs = [json.load(open(f"{out}/run-{i}.json")) for i in range(1, runs + 1)]
cells = {}
for k, d in enumerate(docs):
    for c in d["cells"]:
        o = c["overhead_ns_per_event"]
        if c["status"] != "ok" or o["ci95"][0] is None:
            continue
        cells.setdefault(c["id"], {})[k] = (o["mean"], o["ci95"])
held = total = 0
hw = []
print("%-44s %8s %8s  %s" % ("cell", "mean", "+-hw", "runs whose interval holds another run's mean"))
for cid, per in cells.items():
    h = t = 0
    for i, (m, ci) in per.items():
        for j, (m2, _) in per.items():
            if i != j:
                t += 1
                h += ci[0] <= m2 <= ci[1]
    held += h
    total += t
    hws = [(ci[1] - ci[0]) / 2 for _, ci in per.values()]
    hw += hws
    means = [m for m, _ in per.values()]
    print("%-44s %8.1f %8.1f  %d/%d" % (cid[:44], st.mean(means), st.median(hws), h, t))
walls = [d["elapsed_s"] for d in docs]
print("held: %d/%d = %.0f%% (a correct 95%% interval over 8 round means: about 86%%, docs/method.md 5c)" % (held, total, 100.0 * held / max(total, 1)))
print("wall time per run: median %.0f s (%s)" % (st.median(walls), " ".join("%.0f" % w for w in walls)))
print("CI half-width: median %.2f ns over %d cell-runs" % (st.median(hw), len(hw)))
cmp = open(f"{out}/compare-1-2.txt").read()
import re

m = re.search(r"^\d+ worse, \d+ better.*$", cmp, re.M)
print("compare run 1 vs run 2: " + (m.group(0) if m else "(no verdict line)"))
PY
