# tracetax pair: two BPF probes back to back on getpid's syscall entry.
# Per-CPU storage on one thread: no start overwritten, both probes' hits
# equal the workload's events, every end paired. Global storage on two
# threads: the overwrite count is there and adds up (it may be 0 on a
# quiet machine). Kernel refusals (fentry, kprobes, a lock, a clock) skip
# with the kernel's words, never fail.
. "$(dirname "$0")/lib.sh"
need_root
available 'bpf:tp/count' | grep -qx 'bpf:tp/count' || skip "BPF tracepoint programs are not available here"

N=20000
"$TT" pair -q -s percpu -n $N --json "$TMP/p1.json" >"$TMP/out" 2>&1 ||
	fail "tracetax pair -s percpu failed: $(cat "$TMP/out")"
"$TT" pair -q -s global,lock -T 2 -n $N --json "$TMP/p2.json" >"$TMP/out2" 2>&1 ||
	fail "tracetax pair -s global,lock -T 2 failed: $(cat "$TMP/out2")"
for j in p1 p2; do
	python3 tests/validate_json.py "$TMP/$j.json" || fail "pair document $j invalid"
done
# the pair schema refuses what a broken writer would produce
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["cells"][0]["reason"]="x"; d["cells"][0]["storage"]="percpus"; json.dump(d,open(sys.argv[2],"w"))' \
	"$TMP/p1.json" "$TMP/bad.json"
python3 tests/validate_json.py "$TMP/bad.json" 2>/dev/null && fail "the pair schema accepted a cell with an unknown storage"
python3 - "$TMP/p1.json" "$TMP/p2.json" $N <<'PY' || exit 1
import json, sys
p1, p2, n = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), int(sys.argv[3])
bad = []
def cell(d, storage, threads):
    for c in d["cells"]:
        if c["storage"] == storage and c["threads"] == threads:
            return c
    bad.append("no cell %s %d" % (storage, threads))
if p1["start_probe"] != "raw_syscalls:sys_enter" or p1["end_probe"] != "syscalls:sys_enter_getpid":
    bad.append("probes %s -> %s" % (p1["start_probe"], p1["end_probe"]))
c = cell(p1, "percpu", 1)
if c and c["status"] != "ok":
    bad.append("percpu 1T: %s: %s" % (c["status"], c["reason"]))
elif c:
    events = c["events"]
    if events < n:
        bad.append("percpu 1T: %d events for %d ops" % (events, n))
    for k in ("start_hits", "end_hits", "paired"):
        if c[k] != events:
            bad.append("percpu 1T: %s %d != events %d" % (k, c[k], events))
    if c["overwritten"] != 0 or c["unpaired"] != 0:
        bad.append("percpu 1T: %d overwritten, %d unpaired" % (c["overwritten"], c["unpaired"]))
    h = c["delay"]
    if h["count"] != c["paired"] or sum(b[2] for b in h["buckets"]) != h["count"]:
        bad.append("percpu 1T: %d delays, %d paired" % (h["count"], c["paired"]))
    if not (h["min"] <= h["p50"] <= h["p99"] <= h["max"]):
        bad.append("percpu 1T: not min <= p50 <= p99 <= max: %s" % {k: h[k] for k in ("min", "p50", "p99", "max")})
g = cell(p2, "global", 2)
if g and g["status"] != "ok":
    bad.append("global 2T: %s: %s" % (g["status"], g["reason"]))
elif g:
    if not (0 <= g["overwritten"] <= g["events"]):
        bad.append("global 2T: overwritten %s of %d events" % (g["overwritten"], g["events"]))
    if g["paired"] + g["overwritten"] + g["unpaired"] != g["end_hits"]:
        bad.append("global 2T: paired %d + overwritten %d + unpaired %d != ends %d"
                   % (g["paired"], g["overwritten"], g["unpaired"], g["end_hits"]))
    if g["start_hits"] != g["events"] or g["end_hits"] != g["events"]:
        bad.append("global 2T: hits %d, %d of %d events" % (g["start_hits"], g["end_hits"], g["events"]))
l = cell(p2, "lock", 2)
if l and l["status"] == "failed":
    bad.append("lock 2T failed: %s" % l["reason"])
if l and l["status"] == "ok" and l["lock"] not in ("bpf_res_spin_lock", "cmpxchg"):
    bad.append("lock 2T: locked by %s" % l["lock"])
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
PY
grep -Eq '^percpu +1 +[0-9]+' "$TMP/out" || fail "table lacks the percpu row: $(cat "$TMP/out")"
grep -q '^percpu: ns between the probes' "$TMP/out" || fail "no histogram of percpu"
grep -Eq '^global +2 ' "$TMP/out2" || fail "table lacks the global 2-thread row: $(cat "$TMP/out2")"

# what the kernel may refuse skips with its words; the other pair kinds and clocks run or skip
ran=0
for args in "--pair func" "--pair syscall" "--clock coarse" "--clock boot"; do
	"$TT" pair -q -s percpu -n 2000 $args --json "$TMP/k.json" >"$TMP/out" 2>&1 ||
		fail "tracetax pair $args exited $?: $(cat "$TMP/out")"
	python3 tests/validate_json.py "$TMP/k.json" || fail "pair $args: document invalid"
	python3 - "$TMP/k.json" "$args" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["cells"][0]
if c["status"] == "failed" or (c["status"] == "skipped" and not c["reason"]):
    sys.exit("FAIL: %s: %s: %s" % (sys.argv[2], c["status"], c["reason"]))
if c["status"] == "ok" and c["paired"] != c["events"]:
    sys.exit("FAIL: %s: %d paired of %d events" % (sys.argv[2], c["paired"], c["events"]))
print("%s: %s %s" % (sys.argv[2], c["status"], c["reason"] or ""))
sys.exit(0 if c["status"] == "ok" else 3)
PY
	case $? in 0) ran=$((ran + 1)) ;; 3) ;; *) exit 1 ;; esac
done
# the syscall pair and the boot clock need nothing a BPF-capable kernel lacks
[ $ran -ge 2 ] || fail "only $ran of the pair kinds and clocks ran: a loop of skips is no test"
"$TT" pair --storage bogus >/dev/null 2>&1; [ $? = 2 ] || fail "an unknown storage did not exit 2"
"$TT" pair -w func >/dev/null 2>&1; [ $? = 2 ] || fail "a workload without a syscall did not exit 2"
assert_clean
