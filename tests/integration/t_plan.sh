# The plan is built before anything runs: --dry-run prints it and touches
# nothing; a cell's rep order does not depend on the rest of the plan; each
# side of a cell is calibrated on its own, so a slow tracer's baseline runs
# are as long as its traced runs, not a timer tick or two.
. "$(dirname "$0")/lib.sh"

# --dry-run: the plan, at once, and no kernel tracing call at all
"$TT" run --dry-run -t none,bpf:tp/count,ptrace:all -T 1,2 --reps 6 >"$TMP/plan" 2>&1 ||
	fail "--dry-run exited $?: $(cat "$TMP/plan")"
grep -q '^plan: 6 cells, 6 reps each in 3 rounds' "$TMP/plan" || fail "no plan line: $(cat "$TMP/plan")"
[ "$(grep -cE '^ +[0-9]+  getpid .* [TB]{2} [TB]{2} [TB]{2}$' "$TMP/plan")" = 6 ] ||
	fail "want 6 cells with 3 rounds of 2 rep orders: $(cat "$TMP/plan")"
# the rounds: each a permutation of the 6 cells, not all in one order
python3 - "$TMP/plan" <<'PY' || fail "the rounds' orders: $(cat "$TMP/plan")"
import re, sys
text = open(sys.argv[1]).read().split("rounds: the cells' order in each")[1]
orders = [l.split()[1:] for l in text.splitlines() if re.match(r"^ +[0-9]+ +[0-9]", l)]
print("round orders:", orders)
assert len(orders) == 3, orders
assert all(sorted(map(int, o)) == list(range(1, 7)) for o in orders), orders
assert len({tuple(o) for o in orders}) > 1, "every round in the same order"
PY
if command -v strace >/dev/null; then
	# LeakSanitizer cannot run under ptrace (the ASan build): no leak check here
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	strace -f -qq -e trace=bpf,perf_event_open,mount,ptrace,execve,clone,clone3,fork,vfork,seccomp,open,openat \
		-o "$TMP/trace" "$TT" run --dry-run -t 'bpf:*,ftrace:*,ptrace:*' --json "$TMP/d.json" >/dev/null 2>&1 ||
		fail "--dry-run under strace failed"
	grep -q '/tracing' "$TMP/trace" && fail "--dry-run touched tracefs: $(grep /tracing "$TMP/trace")"
	calls=$(grep -vE '^[0-9]+ +(execve\("[^"]*tracetax", |open(at)?\()' "$TMP/trace" | grep -vE 'exited with|\+\+\+' || true)
	[ -z "$calls" ] || fail "--dry-run made tracing or process calls: $calls"
	[ -e "$TMP/d.json" ] && fail "--dry-run wrote a results file"
fi

need_root
# The same cell in two different plans: the same rep order.
"$TT" run -q -t none,bpf:tp/count -n 2000 --reps 6 --seed 5 --json "$TMP/a.json" >"$TMP/out" 2>&1 ||
	fail "run a: $(cat "$TMP/out")"
"$TT" run -q -t ptrace:all,seccomp:filter,bpf:tp/count -n 2000 --reps 6 --seed 5 --json "$TMP/b.json" >"$TMP/out" 2>&1 ||
	fail "run b: $(cat "$TMP/out")"
python3 - "$TMP/a.json" "$TMP/b.json" <<'PY' || exit 1
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
def order(d, t):
    c = [c for c in d["cells"] if c["tracer"] == t][0]
    return "".join("T" if r["traced_first"] else "B" for r in c["runs"]), c["seed"]
oa, ob = order(a, "bpf:tp/count"), order(b, "bpf:tp/count")
print("bpf:tp/count alone with none:", oa, "among others:", ob)
if oa != ob:
    print("FAIL: the rep order of a cell changed with the rest of the plan"); sys.exit(1)
for d in (a, b):
    for c in d["cells"]:
        o = "".join("T" if r["traced_first"] else "B" for r in c["runs"])
        if any(o[i] == o[i + 1] for i in range(0, len(o) - 1, 2)):
            print("FAIL: %s: pair of reps in the same order: %s" % (c["tracer"], o)); sys.exit(1)
PY

# A tracer at x20 or more: its baseline runs still get --run-ms of timed work.
available ptrace:all | grep -q . || skip "ptrace:all not available"
"$TT" run -q -t ptrace:all --run-ms 40 --reps 2 --json "$TMP/c.json" >"$TMP/out" 2>&1 ||
	fail "run c: $(cat "$TMP/out")"
python3 - "$TMP/c.json" <<'PY' || exit 1
import json, sys
c = json.load(open(sys.argv[1]))["cells"][0]
base_ms = c["baseline_iterations"] * c["baseline_ns_per_op"]["mean"] / 1e6
traced_ms = c["iterations"] * c["traced_ns_per_op"]["mean"] / 1e6
print("ptrace:all: baseline runs %.1f ms (%d iterations), traced %.1f ms (%d)" %
      (base_ms, c["baseline_iterations"], traced_ms, c["iterations"]))
# calibrated to 40 ms each; a noisy machine moves that, not by 10x
if not (base_ms > 10 and traced_ms > 10):
    print("FAIL: a side got far less than --run-ms of timed work"); sys.exit(1)
if not c["baseline_iterations"] > 5 * c["iterations"]:
    print("FAIL: the baseline was not calibrated on its own"); sys.exit(1)
PY
assert_clean
