# Rounds (issue 19, docs/method.md §5c): a cell's reps spread over the
# plan's rounds, pairs whole within a round, the overhead's CI over the
# round means, the between-round share in the document; --precision adds
# rounds, and the A/A cell runs in every round another cell runs in.
. "$(dirname "$0")/lib.sh"
need_root

"$TT" run -t none,bpf:tp/count -n 3000 --reps 6 --rounds 3 --seed 7 --json "$TMP/r.json" \
	--no-store >"$TMP/out" 2>"$TMP/err" || fail "run exited $?: $(cat "$TMP/err")"
grep -q '^round 3/3$' "$TMP/err" || fail "no round lines: $(cat "$TMP/err")"
grep -q "Student's t over the cell's round means" "$TMP/out" || fail "the footer does not say rounds"
python3 tests/validate_json.py "$TMP/r.json" || fail "the document is not valid"
python3 - "$TMP/r.json" <<'PY' || exit 1
import json, sys, statistics as st
from math import isclose
d = json.load(open(sys.argv[1]))
assert d["options"]["rounds"] == 3 and d["options"]["reps"] == 6, d["options"]
for c in d["cells"]:
    rounds = [r["round"] for r in c["runs"]]
    order = "".join("T" if r["traced_first"] else "B" for r in c["runs"])
    print(c["tracer"], "rounds", rounds, "orders", order, "share", c["between_round_share"])
    assert rounds == [0, 0, 1, 1, 2, 2], rounds
    assert all(order[i] != order[i + 1] for i in (0, 2, 4)), "a pair split or in one order: " + order
    assert c["rounds"] == 3
    s = c["between_round_share"]
    assert s is None or 0 <= s <= 1, s
    # the interval: Student's t over the 3 round means, 2 df (t = 4.302652729749464)
    over = [r["traced_ns_per_op"] - r["baseline_ns_per_op"] for r in c["runs"]]
    means = [(over[2 * k] + over[2 * k + 1]) / 2 for k in range(3)]
    m, se = st.mean(means), st.stdev(means) / 3 ** 0.5
    lo, hi = c["overhead_ns_per_event"]["ci95"]
    assert isclose(c["overhead_ns_per_event"]["mean"], m, rel_tol=1e-9, abs_tol=1e-9), (m, c)
    assert isclose(lo, m - 4.302652729749464 * se, rel_tol=1e-6, abs_tol=1e-6), (lo, m, se)
    assert isclose(hi, m + 4.302652729749464 * se, rel_tol=1e-6, abs_tol=1e-6), (hi, m, se)
PY

# --precision: from the plan's 2 rounds on; pairs stay whole; the A/A cell
# runs while bpf:tp/count does, and as many rounds
"$TT" run -q -t none,bpf:tp/count --run-ms 10 --reps 4 --rounds 2 --precision 50 --max-time 30 \
	--json "$TMP/p.json" --no-store >"$TMP/out" 2>"$TMP/err" || fail "precision run exited $?: $(cat "$TMP/err")"
python3 - "$TMP/p.json" <<'PY' || exit 1
import json, sys
c = {x["tracer"]: x for x in json.load(open(sys.argv[1]))["cells"]}
for t, x in c.items():
    print(t, "reps", x["reps"], "rounds", x["rounds"], x["precision"])
    assert x["reps"] % 2 == 0, "--precision stopped after an odd rep"
    assert x["rounds"] >= 2
b, n = c["bpf:tp/count"], c["none"]
assert b["precision"]["ended_by"] in ("precision", "max_time"), b["precision"]
assert n["rounds"] >= b["rounds"], "the A/A cell left before bpf:tp/count"
PY
assert_clean
