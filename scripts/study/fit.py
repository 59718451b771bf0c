#!/usr/bin/env python3
"""Fit the drift + noise model of docs/method.md §5c to per-rep series.

usage: fit.py SERIES.csv [SERIES.csv...]   (extract.py's columns)

Per (file, label, run, cell), values are taken relative to the cell's mean
over all runs of that label in the file (the A/A cell `none` is left out: its
cost is 0, and drift scales a cost). Then the empirical variogram
  gamma(h) = E[(x(t+h) - x(t))^2] / 2
from pairs of reps of one cell h seconds apart, within a run (reps'
times) and between runs (run starts + rep times), binned on a log scale,
is fitted by least squares on a grid to
  gamma(h) = sw^2 + sum_k sd_k^2 (1 - exp(-h / tau_k)),   k = fast, slow:
white rep noise sw plus two Ornstein-Uhlenbeck drifts of the machine's speed.
"""
import csv, sys, math, itertools
from collections import defaultdict

MAX_LAG = 100   # s: beyond it too few pairs, from too few runs, to say much
rows = []
for f in sys.argv[1:]:
    for r in csv.DictReader(l for l in open(f) if not l.startswith("#")):
        if r["cell"] == "none":
            continue
        rows.append((f, r["label"], r["run"], r["cell"], float(r["start_s"]) + float(r["t_s"]),
                     float(r["overhead_ns"])))
# normalise per (file, label, cell)
tot = defaultdict(list)
for f, l, run, c, t, v in rows:
    tot[(f, l, c)].append(v)
mean = {k: sum(v) / len(v) for k, v in tot.items()}
series = defaultdict(list)
for f, l, run, c, t, v in rows:
    series[(f, l, c)].append((t, v / mean[(f, l, c)] - 1))
# variogram, log-binned lags
bins = defaultdict(lambda: [0.0, 0])
edges = [0.02 * 1.5 ** i for i in range(40)]
def bin_of(h):
    for i in range(len(edges) - 1):
        if h < edges[i + 1]:
            return i
    return len(edges) - 1
for k, s in series.items():
    s.sort()
    n = len(s)
    for i in range(n):
        for j in range(i + 1, n):
            h = s[j][0] - s[i][0]
            b = bins[bin_of(h)]
            b[0] += math.sqrt(abs(s[j][1] - s[i][1]))
            b[1] += 1
pts = []
print("lag_s      pairs   gamma    sqrt(2 gamma) (relative sd of a difference)")
for i in sorted(bins):
    g, n = bins[i]
    if n < 200 or edges[i] > MAX_LAG:
        continue
    h = math.sqrt(edges[i] * edges[min(i + 1, len(edges) - 1)])
    # Cressie-Hawkins: robust to the reps something else hit (fitted apart below)
    g = (g / n) ** 4 / (0.457 + 0.494 / n) / 2
    pts.append((h, g, n))
    print("%-10.3g %6d  %.5f  %.3f" % (h, n, g, math.sqrt(2 * g)))

def model(h, sw, a, ta, b, tb):
    return sw * sw + a * a * (1 - math.exp(-h / ta)) + b * b * (1 - math.exp(-h / tb))

def solve(A, y):
    """least squares by the normal equations, small and dense"""
    m = len(A[0])
    N = [[sum(r[i] * r[j] for r in A) for j in range(m)] for i in range(m)]
    v = [sum(r[i] * yy for r, yy in zip(A, y)) for i in range(m)]
    for i in range(m):                     # Gauss-Jordan with partial pivoting
        p = max(range(i, m), key=lambda k: abs(N[k][i]))
        N[i], N[p], v[i], v[p] = N[p], N[i], v[p], v[i]
        if abs(N[i][i]) < 1e-300:
            return None
        for k in range(m):
            if k != i:
                f = N[k][i] / N[i][i]
                N[k] = [x - f * z for x, z in zip(N[k], N[i])]
                v[k] -= f * v[i]
    return [v[i] / N[i][i] for i in range(m)]

# for fixed taus gamma is linear in (sw^2, a^2, b^2): least squares on relative
# errors (each row divided by gamma, weight sqrt(pairs)), components >= 0
best = None
for ta in [0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10]:
    for tb in [10, 15, 20, 30, 45, 60, 90, 120, 180, 300]:
        cols = [lambda h: 1.0, lambda h: 1 - math.exp(-h / ta), lambda h: 1 - math.exp(-h / tb)]
        for keep in [(0, 1, 2), (0, 1), (0, 2), (0,)]:
            A = [[n ** 0.25 * cols[k](h) / g for k in keep] for h, g, n in pts]
            y = [n ** 0.25 for h, g, n in pts]
            c = solve(A, y)
            if c is None or min(c) < 0:
                continue
            full = [0.0, 0.0, 0.0]
            for k, v in zip(keep, c):
                full[k] = v
            sw, a, b = (math.sqrt(x) for x in full)
            e = sum(math.sqrt(n) * ((model(h, sw, a, ta, b, tb) - g) / g) ** 2 for h, g, n in pts)
            if best is None or e < best[0]:
                best = (e, sw, a, ta, b, tb)
e, sw, a, ta, b, tb = best
print("fit: sw %.3f  fast sd %.3f tau %g s  slow sd %.3f tau %g s" % (sw, a, ta, b, tb))
print("lag_s      gamma    model")
for h, g, n in pts:
    print("%-10.3g %.5f  %.5f" % (h, g, model(h, sw, a, ta, b, tb)))
print("#define VM_SW %.4f\n#define VM_SD_FAST %.4f\n#define VM_TAU_FAST %g\n#define VM_SD_SLOW %.4f\n#define VM_TAU_SLOW %g"
      % (sw, a, ta, b, tb))

# tails: reps far from their run's median, in units of the fitted rep noise
far, total, excess = 0, 0, []
for k, s in series.items():
    v = sorted(x for _, x in s)
    med = v[len(v) // 2]
    for x in v:
        total += 1
        z = (x - med) / sw
        if abs(z) > 3.5:
            far += 1
            excess.append(abs(z))
excess.sort()
print("tails: %.3f of reps beyond 3.5 sw of their run's median; median excess %.1f sw"
      % (far / total, excess[len(excess) // 2] if excess else 0))
