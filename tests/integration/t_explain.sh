# --explain TRACER: after the table, the steps one event goes through with
# that tracer, in order, each figure marked measured or derived, and the
# derived ones adding up from the measured ones of the JSON document:
# dispatch = +ns/event - program, map update = program - the empty
# handler's program. A tracer with no program (ftrace) shows its reader's
# CPU instead; a tracer not in the run is a usage error.
. "$(dirname "$0")/lib.sh"
need_root

for t in bpf:tp/count bpf:tp/empty bpf:rawtp/count ftrace:syscall/mmap; do
	available "$t" | grep -q . || skip "$t is not available here"
done
"$TT" run -t bpf:tp/count,bpf:tp/empty,bpf:rawtp/count -n 50000 --reps 2 --color never \
	--explain bpf:tp --json "$TMP/r.json" >"$TMP/out" 2>"$TMP/err" ||
	fail "tracetax run --explain failed: $(cat "$TMP/err")"
"$TT" run -t ftrace:syscall/mmap -n 50000 --reps 2 --color never --explain ftrace:syscall/mmap \
	--json "$TMP/f.json" >"$TMP/fout" 2>"$TMP/err" ||
	fail "tracetax run --explain failed: $(cat "$TMP/err")"
python3 - "$TMP/r.json" "$TMP/out" "$TMP/f.json" "$TMP/fout" <<'PY' || exit 1
import json, re, sys

def steps(path, tracer):
    lines = open(path).read().splitlines()
    start = lines.index("%s on getpid, 1 thread: what one event goes through" % tracer)
    got = []
    for l in lines[start + 1:]:
        m = re.match(r"^  (\S.{9})  (.{8})  (.{8})  ", l)
        if not m:
            if l.startswith("  ") and l.strip() and got:
                continue        # a wrapped text line
            break
        name, fig, kind = (x.strip() for x in m.groups())
        got.append((name, None if fig in ("-", "}") else float(fig.split()[0]), kind))
    return got

def near(a, b):
    return abs(a - b) <= 0.06 + 0.001 * abs(b)   # the table prints 3-4 significant digits

bad = []
d = {c["tracer"]: c for c in json.load(open(sys.argv[1]))["cells"]}
s = steps(sys.argv[2], "bpf:tp/count")
names = [x[0] for x in s]
if names != ["syscall", "hook", "dispatch", "program", "map update", "reader", "total"]:
    bad.append("bpf:tp/count: steps %s" % names)
else:
    c, e = d["bpf:tp/count"], d["bpf:tp/empty"]
    want = [("syscall", c["baseline_ns_per_op"]["mean"], "measured"),
            ("hook", None, ""),
            ("dispatch", c["program"]["dispatch_ns_per_event"], "derived"),
            ("program", c["program"]["ns_per_run"], "measured"),
            ("map update", c["program"]["ns_per_run"] - e["program"]["ns_per_run"], "derived"),
            ("reader", None, ""),
            ("total", c["overhead_ns_per_event"]["mean"], "measured")]
    for (n, v, k), (wn, wv, wk) in zip(s, want):
        if k != wk or (wv is None) != (v is None) or (v is not None and not near(v, wv)):
            bad.append("bpf:tp/count %s: %s %s, want %s %s" % (n, v, k, wv, wk))
    if "  bpf:rawtp/count " not in open(sys.argv[2]).read():
        bad.append("no comparison with bpf:rawtp/count, the same handler on another hook")
f = json.load(open(sys.argv[3]))["cells"][0]
s = steps(sys.argv[4], "ftrace:syscall/mmap")
kinds = [(n, k) for n, v, k in s]
if kinds != [("syscall", "measured"), ("hook", ""), ("dispatch", "measured"), ("program", ""),
             ("reader", "measured"), ("total", "measured")]:
    bad.append("ftrace:syscall/mmap: steps %s" % kinds)
elif not near(s[2][1], f["overhead_ns_per_event"]["mean"]) or not near(s[4][1], f["consumer_ns_per_event"]):
    bad.append("ftrace:syscall/mmap: dispatch %s reader %s, want %s and %s" % (s[2][1], s[4][1],
               f["overhead_ns_per_event"]["mean"], f["consumer_ns_per_event"]))
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
PY
"$TT" run --dry-run -t bpf:tp/count --explain bpf:rawtp/count >"$TMP/out" 2>&1
rc=$?
[ "$rc" = 2 ] || fail "--explain of a tracer not in the run exited $rc, want 2: $(cat "$TMP/out")"
grep -q "^tracetax: --explain 'bpf:rawtp/count' is not a tracer of the run" "$TMP/out" ||
	fail "unexpected message: $(cat "$TMP/out")"
assert_clean
