# budget --attached prices what each consumer costs, and no more: one
# window (--for 1) over agents whose answers are known.
#  - A BPF program on sys_enter_getuid (tt-attach) puts every task on the
#    syscall slow path: the box's other syscalls pay its collateral, the
#    stored `run -w getpid -t bpf:tp/count --target close` cell's, never 0;
#    an ftrace instance with a syscall event shares that slow path and says
#    so (the kernel's flag is per task, not per hook).
#  - Its events are priced with bpf:tp/count's cell on getuid, the syscall
#    it hooks, with that cell's own interval: not a mean over the stored
#    workloads bounded by the widest (getpid's is stored too, and differs).
#  - A counting perf event (perf stat -e task-clock) is not counted: its
#    count is a clock's ns, not events hooked.
#  - Rates over a 1 s window: each source's delta over its own interval
#    (the BPF program's getuid count against the syscall counter's count
#    of a seccomp'd loop that makes one getuid in three syscalls).
#  - A holder renamed "\xff" leaves the JSON and Prometheus files valid.
#  - This boot never enabled audit: no residue is said.
#  - budget -t bpf:tp/count --target getuid: the box's other calls at the
#    collateral, in the share.
. "$(dirname "$0")/lib.sh"
need_root
MIX=$B/tests/tt-syscall-mix
ATTACH=$B/tests/tt-attach
[ -x "$MIX" ] && [ -x "$ATTACH" ] || fail "no $MIX or $ATTACH: build them with make"
T=/sys/kernel/tracing
[ -d $T/instances ] || skip "no tracefs at $T"
command -v perf >/dev/null || skip "no perf here (scripts/deps.sh test installs it)"
[ -n "$(available 'bpf:tp/count' syscall)" ] || skip "bpf:tp/count is not available here"

INST=tt-coll-$$
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
	if [ -d $T/instances/$INST ]; then
		echo >$T/instances/$INST/set_event
		rmdir $T/instances/$INST
	fi
	rm -rf "$TMP"
}
trap cleanup EXIT

# bpf:tp/count's costs, stored: getpid 100 [95, 105], getuid 300 [290, 310],
# and on getpid with the hook on close (the collateral) 40 [35, 45]. Measured
# for this host's identity, then set to figures the test knows.
"$TT" run -q -t bpf:tp/count -w getpid,getuid -r 2 --run-ms 10 --no-store --json "$TMP/own.json" \
	>"$TMP/r1.out" 2>&1 || fail "run: $(cat "$TMP/r1.out")"
"$TT" run -q -t bpf:tp/count -w getpid --target close -r 2 --run-ms 10 --no-store \
	--json "$TMP/coll.json" >"$TMP/r2.out" 2>&1 || fail "run --target close: $(cat "$TMP/r2.out")"
python3 - "$TMP/own.json" "$TMP/coll.json" <<'PY' || exit 1
import json, sys
want = {("getpid", "getpid"): (100, 95, 105), ("getuid", "getuid"): (300, 290, 310),
        ("getpid", "close"): (40, 35, 45)}
for f in sys.argv[1:]:
    d = json.load(open(f))
    for c in d["cells"]:
        if c["tracer"] != "bpf:tp/count":
            continue
        assert c["status"] == "ok", c
        m, lo, hi = want[(c["workload"], c["target"])]
        o = c["overhead_ns_per_event"]
        o["mean"], o["ci95"] = m, [lo, hi]
        c["disturbed"] = False
    json.dump(d, open(f, "w"))
PY
"$TT" import "$TMP/own.json" "$TMP/coll.json" --store "$TMP/s.db" >"$TMP/imp.out" 2>&1 ||
	fail "import: $(cat "$TMP/imp.out")"

# the agents: a loop under an allow-all seccomp filter (its syscalls are the
# counter's), the BPF program on getuid, a counting perf event on the loop,
# and a reader of an instance's syscall event (filtered to pid 1: nothing
# flows) renamed "\xff"
python3 -c '
import ctypes, os, struct, sys
libc = ctypes.CDLL(None, use_errno=True)
prog = struct.pack("HBBI", 0x06, 0, 0, 0x7fff0000)          # BPF_RET|BPF_K, SECCOMP_RET_ALLOW
buf = ctypes.create_string_buffer(prog)
fprog = struct.pack("HxxxxxxQ", 1, ctypes.addressof(buf))
assert libc.prctl(38, 1, 0, 0, 0) == 0                       # PR_SET_NO_NEW_PRIVS
assert libc.prctl(22, 2, ctypes.c_char_p(fprog), 0, 0) == 0  # PR_SET_SECCOMP, filter
os.execv(sys.argv[1], sys.argv[1:])' "$MIX" 2000000000 & mix=$!; pids+=($mix)
"$ATTACH" syscalls:sys_enter_getuid >"$TMP/attach.out" 2>&1 & ap=$!; pids+=($ap)
perf stat -e task-clock -p $mix -o /dev/null & ps=$!; pids+=($ps)
mkdir $T/instances/$INST || fail "cannot make instance $INST"
echo "common_pid == 1" >$T/instances/$INST/events/syscalls/sys_enter_getuid/filter
echo syscalls:sys_enter_getuid >$T/instances/$INST/set_event
python3 -c 'import ctypes, os, sys, time
ctypes.CDLL(None).prctl(15, b"\xff\xfe", 0, 0, 0)           # PR_SET_NAME
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_NONBLOCK)
time.sleep(3600)' $T/instances/$INST/trace_pipe & rd=$!; pids+=($rd)
for _ in $(seq 100); do
	grep -q '^attached ' "$TMP/attach.out" && grep -q '^Seccomp:.2' /proc/$mix/status &&
		ls -l /proc/$ps/fd 2>/dev/null | grep -q perf_event &&
		ls -l /proc/$rd/fd 2>/dev/null | grep -q "instances/$INST/trace_pipe" && break
	sleep 0.1
done
id=$(sed -n 's/^attached //p' "$TMP/attach.out")
[ -n "$id" ] || fail "tt-attach: $(cat "$TMP/attach.out")"
grep -q '^Seccomp:.2' /proc/$mix/status || fail "the loop is not under its seccomp filter"
ls -l /proc/$ps/fd 2>/dev/null | grep -q perf_event || fail "perf stat holds no perf event"

mkdir "$TMP/prom"
"$TT" budget --attached --for 1 --store "$TMP/s.db" --no-store --json "$TMP/a.json" \
	--prometheus-textfile "$TMP/prom" >"$TMP/a.out" 2>"$TMP/a.err" ||
	fail "budget --attached: exit $?: $(cat "$TMP/a.err" "$TMP/a.out")"
cat "$TMP/a.out"
python3 tests/validate_json.py "$TMP/a.json" docs/schema.json || fail "a.json: schema"
grep -q "^collateral: a syscall tracepoint puts every task on the syscall slow path" "$TMP/a.out" ||
	fail "no collateral lines"
grep -q "^total: .*: the events seen .*, the collateral " "$TMP/a.out" || fail "no seen and collateral parts"
python3 - "$TMP/a.json" "$id" "$mix $ps $rd" <<'PY' || exit 1
import json, sys
d, id = json.load(open(sys.argv[1])), int(sys.argv[2])
mix, ps, rd = map(int, sys.argv[3].split())
[b] = [c for c in d["consumers"] if c["prog_id"] == id]
assert b["state"] == "counted" and b["attached_to"] == "sys_enter_getuid", b
# its events at getuid's cell, with that cell's interval
k = b["cost"]
assert k["source"] == "store" and k["workloads"] == ["getuid"], k
assert k["tracer_ns_per_event"] == 300 and k["tracer_ci95"] == [290, 310], k
# the syscalls it does not see, at the stored collateral, never 0
x = b["collateral"]
assert x["box"] and not x["shared"] and x["why"] is None, x
assert x["tracer"] == "bpf:tp/count" and x["workload"] == "getpid" and x["target"] == "close", x
assert x["ns_per_syscall"] == 40 and x["ci95"] == [35, 45], x
assert x["events"] > 0 and x["share_pct"] > 0, x
share = x["per_s"] * 40 / (d["cpus"] * 1e9) * 100
assert abs(x["share_pct"] - share) <= 1e-6 * share, (x, share)
# the instance's event shares the slow path: counted once, on the program
[f] = [c for c in d["consumers"] if rd in [h["pid"] for h in c["holders"]]]
assert f["kind"] == "ftrace" and f["collateral"]["shared"], f
assert f["collateral"]["share_pct"] == 0 and b["key"] in f["collateral"]["why"], f
# a "\xff" comm, replaced, not refused
assert f["holders"][0]["comm"].startswith("\ufffd"), f["holders"]
t = d["total"]
assert abs(t["collateral_share_pct"] - x["share_pct"]) < 1e-7, t
assert abs(t["share_pct"] - t["seen_share_pct"] - t["collateral_share_pct"]) < 1e-7, t
assert d["slow_path"]["audit_residue"] is False, d["slow_path"]
# a counting perf event: not counted, no events, no cost
[p] = [c for c in d["consumers"] if ps in [h["pid"] for h in c["holders"]]]
assert p["kind"] == "perf" and p["state"] == "not counted", p
assert p["events"] is None and p["per_s"] is None and p["cost"]["share_pct"] is None, p
# rates, each over its own interval: the loop's getuid calls (one in
# three of its syscalls, the counter's) against the program's count of
# every getuid on the box (the loop's, and the few of other processes)
[s] = [c for c in d["consumers"] if c["kind"] == "seccomp" and c["target_pid"] == mix]
ratio = b["per_s"] / (s["per_s"] / 3)
assert 0.97 <= ratio <= 1.08, "program %.0f/s vs the loop's getuid %.0f/s: %.3f" % (
    b["per_s"], s["per_s"] / 3, ratio)
print("collateral %.3g%% of the box at %.0f syscalls/s; rates: %.3f" % (x["share_pct"], x["per_s"], ratio))
PY
[ $? = 0 ] || exit 1
python3 -c 'import sys; open(sys.argv[1], encoding="utf-8").read()' "$TMP/prom/tracetax-attached.prom" ||
	fail "the Prometheus file is not UTF-8"
grep -q "owner=\"$(printf '\xef\xbf\xbd')" "$TMP/prom/tracetax-attached.prom" || fail "no \\xff owner's series"
# budget -t with --target: the target's calls at getuid's cell, the box's
# other calls at the collateral, both in the share
# (recorded in the test's store: run's options refuse --store with --no-store)
"$TT" budget -t bpf:tp/count --target getuid --for 1 --store "$TMP/s.db" \
	--json "$TMP/b.json" >"$TMP/b.out" 2>&1 || fail "budget --target: $(cat "$TMP/b.out")"
python3 tests/validate_json.py "$TMP/b.json" docs/schema.json || fail "b.json: schema"
python3 - "$TMP/b.json" <<'PY' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))
[t] = d["tracers"]
r, k, x = d["rates"], t["cost"], t["collateral"]
assert k["workload"] == "getuid" and k["ns_per_event"] == 300, k
assert x["ns_per_event"] == 40 and x["ci95"] == [35, 45] and x["target"] == "close", x
assert x["events"] > r["events"] > 0, (x, r)
cpu_ns = r["seconds"] * r["cpus"] * 1e9
assert abs(x["share_pct"] - x["events"] * 40 / cpu_ns * 100) < 1e-7, x
seen = r["events"] * 300 / cpu_ns * 100
assert abs(t["share_pct"] - seen - x["share_pct"]) < 1e-7, (t["share_pct"], seen, x)
assert "the collateral on" in t["verdict"], t["verdict"]
PY
[ $? = 0 ] || exit 1
for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
pids=()
assert_clean
