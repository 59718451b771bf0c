# tracetax budget --attached, against real agents attached as a user would:
# a bpftrace script counting getuid calls, `strace -f -p` and `perf trace -p`
# on busy programs, an ftrace instance with a syscall event and a reader of
# its trace_pipe, and one read through a CPU's trace_pipe_raw.
# Discovery is exact (each agent's consumers are found, with its pid as
# owner, and nothing else is said to be theirs), the rates agree with known
# counts (the bpftrace program and the instance see the same getuid calls,
# which are a third of the busy programs' syscalls), a program that goes
# away during the window is "gone", not 0, and the box is as it was after
# (BPF stats off, the instance and programs ours only). Each owner's own CPU
# over the window: a reader that spins in user space shows what /proc/PID/stat
# says it took (as a ratio), one that sleeps almost none, strace's is
# not added (its tracee's cost holds it), one that exits during the window
# has none and why, never 0. Bad input: -t with
# --attached is one line and exit 2; unprivileged, one line says what needs root.
. "$(dirname "$0")/lib.sh"
need_root
MIX=$B/tests/tt-syscall-mix
ATTACH=$B/tests/tt-attach
[ -x "$MIX" ] && [ -x "$ATTACH" ] || fail "no $MIX or $ATTACH: build them with make"
T=/sys/kernel/tracing
[ -d $T/instances ] || skip "no tracefs at $T"
for tool in bpftrace strace perf; do
	command -v $tool >/dev/null || skip "no $tool here (scripts/deps.sh test installs it)"
done
stats_before=$(cat /proc/sys/kernel/bpf_stats_enabled)

INST=tt-agent-$$ INST2=tt-agent2-$$ INST3=tt-agent3-$$ INST4=tt-agent4-$$
pids=() busy=()
# the agents first: a signal sent to a program while strace stops it can be
# lost with strace; then the busy programs, which ignore nothing
# bpftrace 0.17 can miss a signal that comes just before it waits (see
# src/tracers/tools/bpftrace.c): each agent is asked again every 0.5 s
# (looked at every 0.05 s: most are gone at once)
stop_all() {
	local p i
	for p in "${pids[@]}"; do
		# SIGINT first: perf trace killed by SIGTERM leaves its copy of the
		# vDSO in /tmp (perf-vdso.so-XXXXXX); it cleans up on SIGINT
		kill -INT "$p" 2>/dev/null
		for i in $(seq 200); do
			kill -0 "$p" 2>/dev/null || break
			sleep 0.05
			[ $((i % 10)) = 0 ] && kill "$p" 2>/dev/null
		done
		kill -9 "$p" 2>/dev/null
	done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
	for p in "${busy[@]}"; do kill -9 "$p" 2>/dev/null; done
	for p in "${busy[@]}"; do wait "$p" 2>/dev/null; done
	pids=() busy=()
}
cleanup() {
	stop_all
	for i in $INST $INST2 $INST3 $INST4; do
		[ -d $T/instances/$i ] || continue
		echo >$T/instances/$i/set_event
		rmdir $T/instances/$i
	done
	rm -rf "$TMP"
}
trap cleanup EXIT

# bad input, before anything is read
"$TT" budget --attached -t bpf:tp/count >"$TMP/bad.out" 2>&1
rc=$?
[ $rc = 2 ] && [ "$(wc -l <"$TMP/bad.out")" = 1 ] && grep -q "^tracetax: --attached .*-t 'bpf:tp/count'" "$TMP/bad.out" ||
	fail "--attached -t: exit $rc: $(cat "$TMP/bad.out")"
"$TT" budget --attached --for 0 >"$TMP/bad.out" 2>&1
[ $? = 2 ] && grep -q "invalid --for '0'" "$TMP/bad.out" || fail "--for 0: $(cat "$TMP/bad.out")"
if uid=$(id -u nobody 2>/dev/null) && command -v setpriv >/dev/null; then
	setpriv --reuid="$uid" --regid="$(id -g nobody)" --clear-groups "$(readlink -f "$TT")" \
		budget --attached >"$TMP/nonroot.out" 2>&1
	rc=$?
	[ $rc = 1 ] && [ "$(wc -l <"$TMP/nonroot.out")" = 1 ] && grep -q "needs root" "$TMP/nonroot.out" ||
		fail "unprivileged: exit $rc: $(cat "$TMP/nonroot.out")"
fi

# strace's cost stored on two syscall workloads, per CPU (--placement
# rotate), before any agent is attached: the strace consumer below is
# costed from both, their mean, weighted by the box's syscalls per CPU
"$TT" run -q -t strace -w getpid,stat -r 4 --run-ms 50 --placement rotate --store "$TMP/s.db" \
	--json "$TMP/s.json" >"$TMP/s.out" 2>&1 || fail "storing strace's costs: $(cat "$TMP/s.out")"

# the agents, each on a busy program of its own. All at the lowest
# priority: they may wait a long time for the machine lock, and must not
# take the CPUs from the measurements of whoever holds it meanwhile (the
# checks below are ratios of counts, whatever the speed).
N="nice -n 19"
$N "$MIX" 2000000000 & m1=$!; busy+=($m1)
$N "$MIX" 2000000000 & m2=$!; busy+=($m2)
$N "$MIX" 2000000000 & m3=$!; busy+=($m3)
$N bpftrace -e 'tracepoint:syscalls:sys_enter_getuid { @calls = count(); }' >"$TMP/bt.out" 2>&1 &
bt=$!; pids+=($bt)
$N strace -f -p $m2 -o /dev/null 2>"$TMP/strace.err" & st=$!; pids+=($st)
$N perf trace -p $m3 -o /dev/null 2>"$TMP/perf.err" & pt=$!; pids+=($pt)
mkdir $T/instances/$INST || fail "cannot make instance $INST"
# the instance sees perf trace's tracee's getuid calls only: one per 3 syscalls
echo "common_pid == $m3" >$T/instances/$INST/events/syscalls/sys_enter_getuid/filter
echo syscalls:sys_enter_getuid >$T/instances/$INST/set_event
$N cat $T/instances/$INST/trace_pipe >/dev/null & rd=$!; pids+=($rd)
# the same event, read as binary pages from CPU 0's trace_pipe_raw (by a
# reader that goes on after an end of file: cat stops at the first)
mkdir $T/instances/$INST2 || fail "cannot make instance $INST2"
echo "common_pid == $m3" >$T/instances/$INST2/events/syscalls/sys_enter_getuid/filter
echo syscalls:sys_enter_getuid >$T/instances/$INST2/set_event
$N python3 -c 'import os, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY)
while True:
    if not os.read(fd, 65536):
        time.sleep(0.05)' $T/instances/$INST2/per_cpu/cpu0/trace_pipe_raw & rd2=$!; pids+=($rd2)
# a reader that spins in user space (a slow agent formatting its events):
# its instance's event never fires (pid 1 makes no getuid call)
mkdir $T/instances/$INST3 || fail "cannot make instance $INST3"
echo "common_pid == 1" >$T/instances/$INST3/events/syscalls/sys_enter_getuid/filter
echo syscalls:sys_enter_getuid >$T/instances/$INST3/set_event
$N python3 -c 'import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_NONBLOCK)
while True:
    pass' $T/instances/$INST3/trace_pipe & sp=$!; pids+=($sp)
# and one that sleeps, holding another such instance's
mkdir $T/instances/$INST4 || fail "cannot make instance $INST4"
echo "common_pid == 1" >$T/instances/$INST4/events/syscalls/sys_enter_getuid/filter
echo syscalls:sys_enter_getuid >$T/instances/$INST4/set_event
$N python3 -c 'import os, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_NONBLOCK)
time.sleep(3600)' $T/instances/$INST4/trace_pipe & sl=$!; pids+=($sl)
for _ in $(seq 100); do
	grep -q "^Attaching" "$TMP/bt.out" && [ "$(awk '/TracerPid/{print $2}' /proc/$m2/status)" = $st ] && break
	sleep 0.1
done
grep -q "^Attaching" "$TMP/bt.out" || fail "bpftrace did not attach: $(cat "$TMP/bt.out")"
# the readers hold their files before the window opens (a loaded box may not
# have run them yet: their instances were "unknown owner")
holds() { ls -l /proc/"$1"/fd 2>/dev/null | grep -q "$2"; }
for _ in $(seq 100); do
	holds $rd "instances/$INST/trace_pipe" && holds $rd2 "instances/$INST2/per_cpu/cpu0/trace_pipe_raw" &&
		holds $sp "instances/$INST3/trace_pipe" && holds $sl "instances/$INST4/trace_pipe" && break
	sleep 0.1
done
holds $rd "instances/$INST/trace_pipe" || fail "cat did not open $INST's trace_pipe"
holds $rd2 "instances/$INST2/per_cpu/cpu0/trace_pipe_raw" || fail "the reader did not open $INST2's trace_pipe_raw"
holds $sp "instances/$INST3/trace_pipe" || fail "the spinner did not open $INST3's trace_pipe"
holds $sl "instances/$INST4/trace_pipe" || fail "the sleeper did not open $INST4's trace_pipe"
sleep 1	# perf trace has no line of its own to say it is attached
kill -0 $pt || fail "perf trace failed: $(cat "$TMP/perf.err")"

mkdir "$TMP/prom"
# the spinner's CPU by another way (stat's utime + stime, in clock ticks),
# from when budget says it counts to its end: a little more than its window
cpu_s() { awk -v hz="$(getconf CLK_TCK)" '{ sub(/^.*\) /, ""); print ($12 + $13) / hz }' /proc/"$1"/stat; }
"$TT" budget --attached --for 3 --json "$TMP/a.json" --prometheus-textfile "$TMP/prom" \
	>"$TMP/a.out" 2>"$TMP/a.err" & tp=$!
for _ in $(seq 6000); do grep -q "^counting" "$TMP/a.err" && break; sleep 0.1; done
sp0=$(cpu_s $sp) w0=$(date +%s.%N)
wait $tp || fail "budget --attached: exit $?: $(cat "$TMP/a.err" "$TMP/a.out")"
sp1=$(cpu_s $sp) w1=$(date +%s.%N)
cat "$TMP/a.out"
grep -q "^pid .* own CPU  command line" "$TMP/a.out" || fail "no own CPU column"
grep -q "^the owners' own CPU: [0-9.]*% more (.*); [0-9.]*% more is not added: the consumers' cost holds it" \
	"$TMP/a.out" || fail "no owners' own CPU beside the total"
python3 tests/validate_json.py "$TMP/a.json" docs/schema.json || fail "a.json: schema"
python3 - "$TMP/a.json" "$bt $st $pt $rd $rd2" "$m1 $m2 $m3" "$INST $INST2" "$sp $tp $sl" \
	"$sp0 $sp1 $w0 $w1" <<'PY' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))
bt, st, pt, rd, rd2 = map(int, sys.argv[2].split())
sp, tp, sl = map(int, sys.argv[5].split())
sp0, sp1, w0, w1 = map(float, sys.argv[6].split())
mixes = list(map(int, sys.argv[3].split()))
inst, inst2 = sys.argv[4].split()
assert d["bpf_stats"]["on"], d["bpf_stats"]
def held_by(pid):
    return [c for c in d["consumers"] if pid in [h["pid"] for h in c["holders"]]]
def one(rows, kind, what):
    got = [c for c in rows if c["kind"] == kind]
    assert len(got) == 1, "%s: want one %s consumer, got %r" % (what, kind, got)
    assert got[0]["state"] == "counted", got[0]
    return got[0]
# bpftrace: its tracepoint program, and its output perf events (no program)
rows = held_by(bt)
assert sorted(c["kind"] for c in rows) == ["bpf", "perf"], rows
prog = one(rows, "bpf", "bpftrace")
assert prog["mechanism"] == "tracepoint" and prog["attached_to"] == "sys_enter_getuid", prog
assert prog["run_cnt"] == prog["events"] and prog["events"] > 0, prog
assert prog["prog_ns_per_run"] > 0, prog
# strace: exactly the tracee, by ptrace
[c] = held_by(st)
assert c["kind"] == "ptrace" and c["target_pid"] == mixes[1] and c["state"] == "counted", c
assert c["events"] > 0, c
# perf trace: perf events without a program, counted
[c] = held_by(pt)
assert c["kind"] == "perf" and c["state"] == "counted" and c["events"] > 0, c
perf_rate = c["per_s"]
# the reader's instance, with the event on
[c] = held_by(rd)
assert c["kind"] == "ftrace" and c["name"] == inst, c
assert c["attached_to"] == "events syscalls:sys_enter_getuid; read through trace_pipe", c
# costed by its reader's file: the text trace_pipe, woken and formatting per event
assert c["cost"]["tracer"] == "ftrace:syscall/pipe", c
ft = c
[c] = held_by(rd2)
assert c["kind"] == "ftrace" and c["name"] == inst2, c
assert c["attached_to"] == "events syscalls:sys_enter_getuid; read through trace_pipe_raw", c
assert c["cost"]["tracer"] == "ftrace:syscall/read", c
# nothing else names the busy programs
for c in d["consumers"]:
    if c["target_pid"] in mixes:
        assert c["kind"] == "ptrace" and c["target_pid"] == mixes[1], c
# the owners: one row each
owners = {o["pid"]: o for o in d["owners"] if o["pid"]}
for pid, n in ((bt, 2), (st, 1), (pt, 1), (rd, 1), (rd2, 1)):
    assert owners[pid]["consumers"] == n, owners.get(pid)
# rates that must agree, counted apart: perf trace counts its tracee's
# sys_enter and sys_exit, 6 events per round of 3 syscalls; the instance
# the same tracee's getuid calls, one per round; the bpftrace program every
# getuid call on the box, those of the other two busy programs too
def near(a, b, tol, what):
    assert abs(a - b) <= tol * max(a, b), "%s: %.0f vs %.0f" % (what, a, b)
near(perf_rate, 6 * ft["per_s"], 0.10, "perf trace's events vs 6 x the instance's")
assert ft["lost"] is not None, ft
assert prog["per_s"] > ft["per_s"] * 1.2, (prog, ft)
# no cost stored in the test's store, no --measure: the program's time
# alone, a floor, for the BPF program; no cost, and why, for the others
assert prog["cost"]["floor"] and prog["cost"]["ns_per_event"] == prog["prog_ns_per_run"], prog
for c in d["consumers"]:
    if c["kind"] != "bpf" and c["state"] == "counted" and c["cost"]["tracer"]:
        assert c["cost"]["ns_per_event"] is None and "--measure" in c["cost"]["why"], c
assert d["total"]["bpftop_share_pct"] > 0 and d["total"]["floors"] > 0, d["total"]
# the owners' own CPU, % of the box: every agent's read; strace's is in
# its tracee's cost already, the others' are added to the total
assert tp not in owners, "tracetax is its own owner: %r" % owners[tp]
for pid in (bt, st, pt, rd, rd2, sp, sl):
    o = owners[pid]
    assert o["own_cpu_pct"] is not None and o["own_cpu_pct"] >= 0, o
    assert o["own_cpu_added"] == (pid != st), o
    assert (o["own_cpu_why"] is None) == (pid != st), o
assert "not added" in owners[st]["own_cpu_why"], owners[st]
t = d["total"]
added = [o["own_cpu_pct"] for o in d["owners"] if o["own_cpu_added"]]
kept = [o["own_cpu_pct"] for o in d["owners"] if o["own_cpu_pct"] is not None and not o["own_cpu_added"]]
assert abs(t["own_cpu_pct"] - sum(added)) < 1e-6, (t, added)
assert abs(t["own_cpu_in_cost_pct"] - sum(kept)) < 1e-6, (t, kept)
# the spinner: what stat says it took, per second, within a wide ratio (the
# stat interval holds the window and a little more); one thread, one CPU at most
own = owners[sp]["own_cpu_pct"] / 100 * d["cpus"] * d["seconds"]
ext = sp1 - sp0
assert ext >= 0.1, "the spinner had %.2f s of CPU: too little to compare" % ext
ratio = (own / d["seconds"]) / (ext / (w1 - w0))
assert 0.5 <= ratio <= 2, "spinner: %.2f s in %.2f s vs stat's %.2f s in %.2f s" % (own, d["seconds"], ext, w1 - w0)
assert owners[sp]["own_cpu_pct"] <= 100 / d["cpus"] * 1.05, owners[sp]
# the sleeper: next to nothing, and less than the spinner
assert owners[sl]["own_cpu_pct"] < 0.05, owners[sl]
assert owners[sl]["own_cpu_pct"] < owners[sp]["own_cpu_pct"], (owners[sl], owners[sp])
print("discovery: ok; bpftrace %.0f/s, instance %.0f/s, perf trace %.0f/s; spinner's own CPU %.2f s "
      "in %.2f s, stat's %.2f s in %.2f s; the sleeper's %.4f%% of the box"
      % (prog["per_s"], ft["per_s"], perf_rate, own, d["seconds"], ext, w1 - w0,
         owners[sl]["own_cpu_pct"]))
PY
[ $? = 0 ] || exit 1
# the same agents, costed from the store: strace's (every syscall of its
# tracee) from one cell, the first stored of the loops of the box's most
# frequent syscalls (the busy programs make getuid, close and stat alike:
# stat, unless the agents' own calls push it out of the top 8), else getpid;
# with an auditctl in PATH that lies: audit is read from the kernel, not from it
mkdir "$TMP/fakebin"
printf '#!/bin/sh\ncase "$1" in -s) echo "enabled 1"; echo "pid 0";; -l) echo "-a always,exit -S getpid -k fake-from-path";; esac\n' \
	>"$TMP/fakebin/auditctl"
chmod +x "$TMP/fakebin/auditctl"
PATH="$TMP/fakebin:$PATH" "$TT" budget --attached --for 1 --store "$TMP/s.db" --no-store --json "$TMP/c.json" \
	>"$TMP/c.out" 2>&1 || fail "budget --attached --store: $(cat "$TMP/c.out")"
python3 - "$TMP/c.json" <<'PY' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))
a = d["unknown"]["audit"]
assert "fake" not in json.dumps(d) and not a.startswith("unknown"), "audit from PATH's auditctl: " + a
print("audit, from the kernel:", a)
PY
grep -Eq "^  strace .*on (stat|getpid); weighted by the box's syscalls per CPU" "$TMP/c.out" ||
	fail "no strace cost from one cell, per CPU: $(cat "$TMP/c.out")"
python3 - "$TMP/c.json" "$TMP/s.json" "$st" <<'PY' || exit 1
import json, sys
d, s, st = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), int(sys.argv[3])
[c] = [c for c in d["consumers"] if st in [h["pid"] for h in c["holders"]]]
k = c["cost"]
assert k["tracer"] == "strace" and k["source"] == "store", k
assert k["workloads"] in (["stat"], ["getpid"]) and k["per_cpu_weighted"], k
# that cell alone: its CPUs' means, weighted by the box's syscalls per CPU
[cell] = [x for x in s["cells"] if x["tracer"] == "strace" and x["workload"] == k["workloads"][0]]
means = [p["mean"] for p in cell["overhead_per_cpu"]]
assert min(means) <= k["tracer_ns_per_event"] <= max(means), (k, means)
assert k["tracer_ci95"][0] <= k["tracer_ns_per_event"] <= k["tracer_ci95"][1], k
PY
[ $? = 0 ] || exit 1
P=$TMP/prom/tracetax-attached.prom
for pid in $bt $st $pt $rd; do
	grep -q "^tracetax_attached_consumer_info{.*owner_pid=\"$pid\".*state=\"counted\"" "$P" ||
		fail "no consumer_info series of pid $pid in $P"
done
grep -q '^tracetax_attached_bpftop_cpu_share_ratio{consumer="bpf prog' "$P" || fail "no bpftop series: $(cat "$P")"
grep -q "^tracetax_attached_owner_own_cpu_share_ratio{owner=\"python3\",owner_pid=\"$sp\",added=\"1\"" "$P" ||
	fail "no own CPU series of the spinner $sp: $(cat "$P")"
grep -q "^tracetax_attached_owner_own_cpu_share_ratio{owner=\"strace\",owner_pid=\"$st\",added=\"0\"" "$P" ||
	fail "no own CPU series of strace $st, not added: $(cat "$P")"
grep -q "^tracetax_attached_total_owners_own_cpu_share_ratio{" "$P" || fail "no owners' total series"
if command -v promtool >/dev/null; then
	promtool check metrics <"$P" || fail "promtool: $P"
fi

# recorded beside the budgets: report's section shows each owner and the total
"$TT" report tests/fixtures/docs/small.json -o "$TMP/r.html" 2>"$TMP/r.err" || fail "report: $(cat "$TMP/r.err")"
grep -q "what is attached (budget --attached)" "$TMP/r.html" || fail "no attached view in the report"
grep -q "bpftrace $bt: " "$TMP/r.html" || fail "no bpftrace line in the report"
# (the page escapes the apostrophes)
grep -q "strace $st: .*; its own CPU [0-9.e-]*% (in its consumers.* cost already)" "$TMP/r.html" ||
	fail "no strace's own CPU in the report"
grep -q "the owners.* own CPU [0-9.e-]*% more" "$TMP/r.html" || fail "no owners' own CPU in the report"

# a program that goes away during the window is "gone", not 0
"$ATTACH" syscalls:sys_enter_getuid >"$TMP/attach.out" 2>&1 & ap=$!; pids+=($ap)
for _ in $(seq 100); do grep -q '^attached ' "$TMP/attach.out" && break; sleep 0.1; done
id=$(sed -n 's/^attached //p' "$TMP/attach.out")
[ -n "$id" ] || fail "tt-attach: $(cat "$TMP/attach.out")"
"$TT" budget --attached --for 4 --json "$TMP/g.json" >"$TMP/g.out" 2>"$TMP/g.err" & bp=$!
for _ in $(seq 6000); do grep -q "^counting" "$TMP/g.err" && break; sleep 0.1; done
sleep 1.5
kill $ap
wait $bp || fail "budget --attached (gone): exit $?: $(cat "$TMP/g.err")"
python3 - "$TMP/g.json" "$id" <<'PY' || exit 1
import json, sys
d, id = json.load(open(sys.argv[1])), int(sys.argv[2])
[c] = [c for c in d["consumers"] if c["prog_id"] == id]
assert c["state"] == "gone" and c["events"] is None and c["per_s"] is None, c
# its holder exited: no own CPU, and why, never 0
[o] = [o for o in d["owners"] if o["pid"] == c["holders"][0]["pid"]]
assert o["own_cpu_pct"] is None and not o["own_cpu_added"], o
assert "exited during the window" in o["own_cpu_why"], o
assert d["total"]["own_cpu_unread"] >= 1, d["total"]
PY

# the agents gone, nothing of theirs is left, and the box is as it was
stop_all
for i in $INST $INST2 $INST3 $INST4; do
	echo >$T/instances/$i/set_event
	rmdir $T/instances/$i
done
"$TT" budget --attached --for 1 --json "$TMP/b.json" >/dev/null 2>"$TMP/b.err" ||
	fail "budget --attached after: $(cat "$TMP/b.err")"
python3 - "$TMP/b.json" "$bt $st $pt $rd $rd2 $sp $sl" "$INST $INST2 $INST3 $INST4" <<'PY' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))
agents = set(map(int, sys.argv[2].split()))
for c in d["consumers"]:
    assert not agents & {h["pid"] for h in c["holders"]}, "left: %r" % c
    assert c["name"] not in sys.argv[3].split(), c
assert d["bpf_stats"]["sysctl_before"] == d["bpf_stats"]["sysctl_after"], d["bpf_stats"]
PY
[ "$(cat /proc/sys/kernel/bpf_stats_enabled)" = "$stats_before" ] || fail "kernel.bpf_stats_enabled changed"
# other engineers' runs end meanwhile, and their programs linger a moment
# after (the kernel frees them after a grace period): what assert_clean
# calls left must still be there a little later to be a leak
for try in 1 2 3; do
	(assert_clean) >"$TMP/clean.out" 2>&1 && break
	[ $try = 3 ] && fail "$(cat "$TMP/clean.out")"
	sleep 3
done
