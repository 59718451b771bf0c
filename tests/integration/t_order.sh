# Orderings that must hold on any kernel: a ptrace stop per syscall costs far
# more than a BPF counter, which costs more than nothing. Timings are only
# compared as ratios, with wide margins, on medians over reps.
. "$(dirname "$0")/lib.sh"
need_root
for t in ptrace:all bpf:tp/count; do
	available "$t" | grep -q . || skip "tracer '$t' not available here"
done
"$TT" run -q -w getpid -t none,bpf:tp/count,ptrace:all --reps 7 --run-ms 60 --json "$TMP/r.json" >"$TMP/out" ||
	fail "tracetax run failed: $(cat "$TMP/out")"
python3 - "$TMP/r.json" <<'PY' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))
c = {x["tracer"]: x for x in d["cells"]}
for n in ("none", "bpf:tp/count", "ptrace:all"):
    if c[n]["status"] != "ok":
        print("FAIL: %s %s: %s" % (n, c[n]["status"], c[n]["reason"])); sys.exit(1)
tr = {n: c[n]["traced_ns_per_op"]["median"] for n in c}
ov = {n: c[n]["overhead_ns_per_event"]["median"] for n in c}
print("traced ns/op:", tr, "overhead:", ov)
ok = True
if not tr["ptrace:all"] > 5 * tr["bpf:tp/count"]:
    print("FAIL: ptrace:all (%.0f ns/op) not well above bpf:tp/count (%.0f)" % (tr["ptrace:all"], tr["bpf:tp/count"])); ok = False
# a BPF program on every getpid adds work: its traced runs are slower than
# their own baselines, by more than the untraced tracer's are than theirs.
# (Not traced ns/op across cells: their baselines drift apart by more than
# the program costs, and once here none's traced runs were 5% the slower.)
if not ov["bpf:tp/count"] > 0:
    print("FAIL: bpf:tp/count overhead %.1f ns is not positive" % ov["bpf:tp/count"]); ok = False
if not ov["bpf:tp/count"] > ov["none"]:
    print("FAIL: bpf:tp/count overhead (%.1f ns) not above none's (%.1f)" % (ov["bpf:tp/count"], ov["none"])); ok = False
if not ov["ptrace:all"] > 10 * max(ov["bpf:tp/count"], 1):
    print("FAIL: ptrace:all overhead not 10x bpf:tp/count"); ok = False
sys.exit(0 if ok else 1)
PY
assert_clean
