# run --placement rotate crosses the CPUs with the rounds (issue 26, item 2):
# every round visits every allowed CPU, so each CPU's reps span all the
# rounds and its interval is over its round means; --dry-run counts the
# reps it adds. With a CPU per round (the old layout) the per-CPU figures
# were the drift between rounds.
. "$(dirname "$0")/lib.sh"
need_root
ncpu=$(nproc)
[ "$ncpu" -ge 2 ] || skip "needs 2 CPUs to rotate over, this machine has $ncpu"
[ "$ncpu" -le 16 ] || ncpu=16
available 'bpf:tp/count' | grep -q . || skip "bpf:tp/count is not available here"

# 4 reps in 2 rounds, on n CPUs: each round runs a pair on each, 4n reps
"$TT" run -t bpf:tp/count -w getpid -r 4 --rounds 2 --placement rotate --dry-run \
	>"$TMP/plan.out" 2>&1 || fail "--dry-run: $(cat "$TMP/plan.out")"
grep -q "$((4 * ncpu)) reps each in 2 rounds" "$TMP/plan.out" ||
	fail "--dry-run does not count a pair per CPU per round: $(head -1 "$TMP/plan.out")"

"$TT" run -q -t bpf:tp/count -w getpid -r 4 --rounds 2 --run-ms 10 --placement rotate \
	--no-store --json "$TMP/r.json" >"$TMP/r.out" 2>&1
rc=$?
[ $rc = 0 ] || [ $rc = 3 ] || fail "run --placement rotate: exit $rc: $(cat "$TMP/r.out")"
python3 tests/validate_json.py "$TMP/r.json" docs/schema.json || fail "r.json: schema"
python3 - "$TMP/r.json" "$ncpu" <<'PY' || exit 1
import json, sys
d, ncpu = json.load(open(sys.argv[1])), int(sys.argv[2])
for c in d["cells"]:
    if c["status"] != "ok":
        continue
    per = c.get("overhead_per_cpu")
    assert per and len(per) == ncpu, "%s: per CPU %r, want %d CPUs" % (c["tracer"], per, ncpu)
    for p in per:
        # a pair on each CPU in each of the 2 rounds: 4 reps over 2 rounds
        assert p["rounds"] == 2 and p["reps"] == 4, "%s: cpu %d: %r" % (c["tracer"], p["cpu"], p)
        lo, hi = p["ci95"]
        assert lo is not None and lo <= p["mean"] <= hi, p
PY
exit 0
