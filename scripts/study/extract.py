#!/usr/bin/env python3
"""Per-rep series of tracetax --json documents as CSV (stdout):
label,run,start_s,cell,rep,t_s,traced_first,base_ns,traced_ns,overhead_ns
start_s: when the run began (its document's mtime - elapsed_s); t_s: seconds since the run's start, from the reps' wall_ms summed within a cell
(cells run one after another; time between cells, setup, is not counted)."""
import json, sys, os

def main(index):
    d = os.path.dirname(index)
    print("label,run,start_s,cell,rep,t_s,traced_first,base_ns,traced_ns,overhead_ns")
    for line in open(index):
        label, run, start, wall = line.split()
        path = os.path.join(d, f"{label}-{run}.json")
        try:
            doc = json.load(open(path))
        except (OSError, ValueError):
            continue
        # the run began elapsed_s before its document was written (a wait for
        # the machine's lock comes before that, and is not counted)
        start = os.path.getmtime(path) - doc["elapsed_s"]
        t = 0.0
        for c in doc["cells"]:
            if c["status"] != "ok":
                continue
            for i, r in enumerate(c["runs"]):
                t += (r.get("wall_ms") or 0) / 1000
                b, tr = r["baseline_ns_per_op"], r["traced_ns_per_op"]
                if b is None or tr is None:
                    continue
                print(f"{label},{run},{float(start):.3f},{c['tracer']},{i},{t:.3f},"
                      f"{int(r['traced_first'])},{b:.4f},{tr:.4f},{tr - b:.4f}")

main(sys.argv[1])
