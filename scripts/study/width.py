#!/usr/bin/env python3
"""Summary of width.sh: per rep/run-ms split, the run's wall time (elapsed_s)
and each cell's 95% CI half-width of the overhead, per repetition and median."""
import json, sys, os, statistics as st
from collections import defaultdict

index = sys.argv[1]
d = os.path.dirname(index)
rows = defaultdict(list)
for line in open(index):
    label, k, start, wall = line.split()
    try:
        doc = json.load(open(os.path.join(d, f"{label}-{k}.json")))
    except (OSError, ValueError):
        continue
    hw = {}
    for c in doc["cells"]:
        ci = c["overhead_ns_per_event"]["ci95"] if c["status"] == "ok" else [None, None]
        hw[c["tracer"]] = (ci[1] - ci[0]) / 2 if ci[0] is not None else float("nan")
    rows[label].append((doc["elapsed_s"], hw))
cells = sorted({t for v in rows.values() for _, hw in v for t in hw})
print("%-8s %3s %8s  " % ("split", "n", "wall s") + "  ".join("%-26s" % c for c in cells))
for label in sorted(rows, key=lambda l: int(l[1:].split("x")[0])):
    v = rows[label]
    wall = st.median(w for w, _ in v)
    parts = []
    for c in cells:
        hs = [hw.get(c, float("nan")) for _, hw in v]
        parts.append("%-26s" % ("%.1f (%s)" % (st.median(hs), " ".join("%.0f" % h for h in hs))))
    print("%-8s %3d %8.1f  " % (label, len(v), wall) + "  ".join(parts))
print("half-width in ns: median over repetitions (each repetition's); wall: median elapsed_s")
