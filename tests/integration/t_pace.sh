# budget's counter taxes what it counts, and budget says by how much
# (measure/pace.h): a loop of getuid + close + stat pinned on a CPU makes
# fewer calls while the counter counts them; budget measures the counter's
# price per call, reads the loop's CPU over the window, and gives the
# loop's rate at its pace, which is nearer the rate the loop has alone
# (timed here, unobserved) than the count is. With --pid the price is not
# measured and the output says why. The document matches its schema.
. "$(dirname "$0")/lib.sh"
need_root
MIX=$B/tests/tt-syscall-mix
[ -x "$MIX" ] || fail "no $MIX: build it with make"
available 'bpf:tp/count' | grep -q . || skip "bpf:tp/count is not available here"
[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs: the loop on one, budget on another"
export TMPDIR=$TMP
pids=()
cleanup_pids() { for p in "${pids[@]+"${pids[@]}"}"; do kill -9 "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; }
trap 'cleanup_pids; rm -rf "$TMP"' EXIT

# the loop alone: ns a round, the least of 3 runs of 200000 rounds on CPU 1
alone=$(for _ in 1 2 3; do
	python3 -c 'import subprocess, sys, time
t = time.monotonic()
subprocess.run(["taskset", "-c", "1", sys.argv[1], "200000"], check=True)
print((time.monotonic() - t) / 200000 * 1e9)' "$MIX"
done | sort -g | head -n 1)
[ -n "$alone" ] || fail "the loop could not be timed"

taskset -c 1 "$MIX" 2000000000 & mix=$!; pids+=($mix)
sleep 0.2
"$TT" budget -t bpf:tp/count --for 2 --no-store --json "$TMP/b.json" >"$TMP/b.out" 2>&1 ||
	fail "budget: exit $?: $(cat "$TMP/b.out")"
cat "$TMP/b.out"
python3 tests/validate_json.py "$TMP/b.json" docs/schema.json || fail "b.json: schema"
grep -q "^  its price: .* ns more on every call it counts" "$TMP/b.out" || fail "no price line"
python3 - "$TMP/b.json" "$mix" "$alone" <<'PY' || exit 1
import json, sys
d, mix, alone = json.load(open(sys.argv[1])), int(sys.argv[2]), float(sys.argv[3])
r = d["rates"]
c = r["counter"]
assert c["price_ns"] is not None and c["price_ns"] > 0 and c["price_reason"] is None, c
assert c["price_base_ns"] > 0 and c["paced_events"] > 0, c
[p] = [p for p in r["top_processes"] if p["pid"] == mix]
# the loop kept its CPU busy: its CPU over the window is most of it
assert p["cpu_ns"] > 0.5 * r["seconds"] * 1e9, p
assert p["pace"] > 1, p
# its calls: the box's most, so the box's pace is near its own
assert 1 < c["pace"] <= p["pace"] + 1e-9, (c, p)
truth = 3 / (alone * 1e-9)          # calls/s alone
counted, paced = p["per_s"], p["per_s"] * p["pace"]
print("alone %.0f ns a round: %.0f calls/s; counted %.0f/s (%.3f), at its pace %.3f: %.0f/s (%.3f); price %.1f ns"
      % (alone, truth, counted, counted / truth, p["pace"], paced, paced / truth, c["price_ns"]))
assert abs(paced / truth - 1) < abs(counted / truth - 1), "the pace took the rate further from the loop's own"
assert 0.7 < paced / truth < 1.3, "at its pace, %.3f of the loop's own rate" % (paced / truth)
PY
[ $? = 0 ] || exit 1

# a filter: the price is not measured, and the output says why
"$TT" budget -t bpf:tp/count --pid $mix --for 1 --no-store --json "$TMP/p.json" >"$TMP/p.out" 2>&1 ||
	fail "budget --pid: exit $?: $(cat "$TMP/p.out")"
grep -q "its price on the calls it counts: not known (the counter's price is measured on a count of the whole box only" "$TMP/p.out" ||
	fail "budget --pid: no word of the price: $(cat "$TMP/p.out")"
json_get "$TMP/p.json" 'd["rates"]["counter"]["pace"] == 1 and d["rates"]["counter"]["price_ns"] is None' | grep -qx True ||
	fail "budget --pid: a pace without a price"
cleanup_pids
pids=()
assert_clean
exit 0
