#!/usr/bin/env python3
# Issue 19 study: held rates of ci95, a repeat interval (sqrt 2 x) and one with
# the pooled between-run drift tau^2, from RUNS documents of scripts/repeatability.sh.
# tau^2 is the relative drift between runs beyond what the round means predict.
#   python3 scripts/study/drift.py DIR RUNS
import json, sys, math, statistics as st
from collections import defaultdict
out, runs = sys.argv[1], int(sys.argv[2])
docs = [json.load(open(f"{out}/run-{i}.json")) for i in range(1, runs + 1)]
T975 = {1:12.706,2:4.303,3:3.182,4:2.776,5:2.571,6:2.447,7:2.365,8:2.306,9:2.262,10:2.228,11:2.201,12:2.179,13:2.16,14:2.145,15:2.131,16:2.12,20:2.086,30:2.042}
def t975(df):
    if df in T975: return T975[df]
    k = max(x for x in T975 if x <= df); return T975[k]
cells = defaultdict(dict)
for k, d in enumerate(docs):
    for c in d["cells"]:
        o = c["overhead_ns_per_event"]
        if c["status"] != "ok" or o["ci95"][0] is None: continue
        R = c.get("rounds", 1)
        hw = (o["ci95"][1] - o["ci95"][0]) / 2
        df = max(R - 1, 1) if R >= 2 else max(o.get("n", 2) - 1, 1)
        se = hw / t975(df)
        cells[c["id"]][k] = (o["mean"], hw, se, df, c["tracer"])
held = defaultdict(lambda: [0, 0])
num = den = 0.0
for cid, per in cells.items():
    if len(per) < 3: continue
    ms = [v[0] for v in per.values()]; ses = [v[2] for v in per.values()]
    mb = st.mean(ms)
    aa = per[next(iter(per))][4] == "none"
    if not aa and abs(mb) >= 4 * st.mean(ses):
        K = len(ms)
        exc = st.variance([m / mb for m in ms]) - st.mean([(s / mb) ** 2 for s in ses])
        num += (K - 1) * exc; den += K - 1
    for i, (m, hw, se, df, _) in per.items():
        for j, (m2, *_r) in per.items():
            if i == j: continue
            for name, h in (("ci95", hw), ("repeat95 (sqrt2 x)", math.sqrt(2) * hw)):
                held[name][1] += 1; held[name][0] += abs(m2 - m) <= h
tau2 = num / den if den else float("nan")
print("pooled relative excess between-run variance tau^2 = %.5f  (tau = %.2f%% of the mean; %d df)" % (tau2, 100 * math.sqrt(max(tau2, 0)), den))
for name, (h, t) in held.items():
    print("held %-20s %d/%d = %.0f%%" % (name, h, t, 100 * h / t))
# with tau added (in-sample, optimistic)
h = t = 0
tau = math.sqrt(max(tau2, 0))
for cid, per in cells.items():
    if len(per) < 3: continue
    for i, (m, hw, se, df, _) in per.items():
        half = t975(df) * math.sqrt(2 * (se ** 2 + (tau * m) ** 2))
        for j, (m2, *_r) in per.items():
            if i != j:
                t += 1; h += abs(m2 - m) <= half
print("held %-20s %d/%d = %.0f%%" % ("repeat95 + tau", h, t, 100 * h / t))
