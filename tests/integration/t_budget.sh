# tracetax budget: bad input is one line and exit 2 before anything is
# counted; the rate counter counts a known program's events exactly (its
# process, its CPU), also in a pid namespace of its own (a container's
# pids), and never budget's own; the prediction on programs of exactly
# known events (tt-getpid-n: N getpid; tt-syscall-mix: N getuid among
# close and stat) is checked against the measured run with an error; a
# tracer skipped on a command shows as skipped; the budget document
# matches its schema, and no counter is left loaded (seen by tracetax's
# own activity probe, which is shown to see one while budget counts).
. "$(dirname "$0")/lib.sh"
need_root
GN=$B/tests/tt-getpid-n
MIX=$B/tests/tt-syscall-mix
ACT=$B/tests/tt-activity
[ -x "$GN" ] && [ -x "$MIX" ] && [ -x "$ACT" ] || fail "no $GN, $MIX or $ACT: build them with make"
available 'bpf:tp/count' | grep -q . || skip "bpf:tp/count is not available here"
export TMPDIR=$TMP

# The rate counters loaded now that no live process holds: left behind.
# tt-activity lists BPF programs itself (no bpftool needed); "unknown" fails.
budget_left() {
	local held
	"$ACT" >"$TMP/act.out" 2>&1 || fail "tt-activity: $(cat "$TMP/act.out")"
	grep -q "^summary: .*bpf: unknown" "$TMP/act.out" && fail "tt-activity cannot list BPF programs"
	held=" $(cat /proc/[0-9]*/fdinfo/* 2>/dev/null | sed -n 's/^prog_id:\s*//p' | tr '\n' ' ') "
	sed -nE "s/^item: bpf prog ([0-9]+) 'tt_budget'.*/\1/p" "$TMP/act.out" | while read -r id; do
		case "$held" in *" $id "*) ;; *) echo "$id" ;; esac
	done
}

# bad input: one line, exit 2
bad() {
	"$TT" budget "$@" >"$TMP/bad.out" 2>&1
	rc=$?
	[ $rc = 2 ] || fail "budget $*: exit $rc, want 2: $(cat "$TMP/bad.out")"
	[ "$(wc -l <"$TMP/bad.out")" = 1 ] || fail "budget $*: not one line: $(cat "$TMP/bad.out")"
	grep -q "$WANT" "$TMP/bad.out" || fail "budget $*: want '$WANT': $(cat "$TMP/bad.out")"
}
# a pid that is surely gone: one we started and reaped
sh -c 'exit 0' & gone=$!; wait $gone
WANT="no process '$gone' (--pid)" bad -t bpf:tp/count --pid $gone
WANT="no cgroup '/sys/fs/cgroup/tt-no-such' (--cgroup)" bad -t bpf:tp/count --cgroup /sys/fs/cgroup/tt-no-such
WANT="invalid --for '0'" bad -t bpf:tp/count --for 0
WANT="which tracers" bad --for 1
WANT="unknown tracer" bad -t no-such-tracer
WANT="unknown syscall 'nope'" bad -t bpf:tp/count --target nope
WANT="cmd:'COMMAND' workloads only" bad -t bpf:tp/count -w getpid

# the probe sees a counter while one counts: the check at the end can fail.
# budget may first wait for the lock (TRACETAX_WAIT); it says when it counts.
# Its window is long enough for any box, and ended by SIGINT once seen: an
# interrupted budget detaches its counter too (the check at the end).
"$TT" budget -t bpf:tp/count --for 60 --no-store >"$TMP/seen.out" 2>"$TMP/seen.err" &
seen=$!
while kill -0 $seen 2>/dev/null && ! grep -q "^counting events" "$TMP/seen.err"; do sleep 0.05; done
saw=
for _ in $(seq 200); do
	"$ACT" 2>/dev/null | grep -q "'tt_budget'" && { saw=1; break; }
	kill -0 $seen 2>/dev/null || break
	sleep 0.05
done
kill -INT $seen 2>/dev/null
wait $seen
rc=$?
[ $rc = 130 ] && grep -q "interrupted by signal 2: the counter detached" "$TMP/seen.err" ||
	fail "budget --for 60, SIGINT: exit $rc, want 130: $(cat "$TMP/seen.err")"
[ -n "$saw" ] || fail "tt-activity never saw budget's counter loaded: $(cat "$TMP/seen.err")"

# the counter on one process: exactly its getuid calls, while it runs
# (long enough to outlast a wait for the lock: killed once counted)
"$MIX" 2000000000 & mix=$!
"$TT" budget -q -t bpf:tp/count --pid $mix --target getuid --for 1 --no-store \
	--json "$TMP/pid.json" >"$TMP/pid.out" 2>&1
rc=$?
kill $mix 2>/dev/null; wait $mix 2>/dev/null
[ $rc = 0 ] || fail "budget --pid: exit $rc: $(cat "$TMP/pid.out")"
python3 tests/validate_json.py "$TMP/pid.json" docs/schema.json || fail "pid.json: schema"
python3 - "$TMP/pid.json" $mix <<'PY' || exit 1
import json, sys
d, pid = json.load(open(sys.argv[1])), int(sys.argv[2])
r = d["rates"]
assert r["events"] > 1000, "the mix's getuid calls were not counted: %r" % r["events"]
assert [p["pid"] for p in r["top_processes"]] == [pid], r["top_processes"]
assert sum(c["events"] for c in r["per_cpu"]) == r["events"], r["per_cpu"]
assert [s["syscall"] for s in r["top_syscalls"]] == ["getuid"], r["top_syscalls"]
PY

# prediction on programs of known events: exactly N events per run (the mix
# makes a close and a stat beside each getuid: 3 calls of N / 4 each, a run
# as long as N getpid here)
N=200000
for spec in "getpid|$GN $N|$N" "getuid|$MIX $((N / 4))|$((N / 4))"; do
	target=${spec%%|*}; rest=${spec#*|}; cmd=${rest%|*}; want=${rest#*|}
	"$TT" budget -q -t bpf:tp/count --target $target --for 1 -w "cmd:'$cmd'" --reps 4 \
		--run-ms 50 --store "$TMP/store.db" --json "$TMP/b.json" >"$TMP/b.out" 2>&1
	rc=$?
	[ $rc = 0 ] || fail "budget -w cmd:'$cmd': exit $rc: $(cat "$TMP/b.out")"
	python3 tests/validate_json.py "$TMP/b.json" docs/schema.json ||
		fail "the budget document does not match docs/schema.json's budget"
	grep -q "predicted against measured" "$TMP/b.out" || fail "no check table: $(cat "$TMP/b.out")"
	grep -q "would cost" "$TMP/b.out" || fail "no verdict line: $(cat "$TMP/b.out")"
	python3 - "$TMP/b.json" "$want" <<'PY' || exit 1
import json, math, sys
d, want = json.load(open(sys.argv[1])), int(sys.argv[2])
t = d["tracers"][0]
assert t["cost"]["source"] == "measured", t["cost"]
[k] = d["checks"]
assert k["status"] == "ok", k
assert k["events_per_run"] == want, "events per run %d, want %d" % (k["events_per_run"], want)
p, m = k["predicted"]["ns_per_event"], k["measured"]["ns_per_event"]
assert math.isfinite(k["error_pct"]), k
# a cost the machine's noise does not tell from 0 predicts nothing to compare
# (seen with TCG guests beside: getpid at 17 us, its cost -50 [-420, 320] us)
if k["predicted"]["ci95"][0] <= 0:
    print("the cost is not told from 0 here now (%.0f ns [%.0f, %.0f]): ratio not checked"
          % (p, *k["predicted"]["ci95"]))
    sys.exit(0)
# the same kind of event, a hook's fixed cost: within a factor of 4 (timings
# as ratios) when the measured cost is told from 0; a short command's often
# is not (make asan: measured -172 ns [..]): then the prediction must still
# be one the measured interval could reach within that factor
lo, hi = k["measured"]["ci95"]
if lo > 0:
    assert 0.25 < p / m < 4, "predicted %.0f ns, measured %.0f ns per event" % (p, m)
else:
    assert p / 4 <= hi, "predicted %.0f ns, measured %.0f [%.0f, %.0f] ns per event" % (p, m, lo, hi)
PY
done

# budget's own waiting (a nanosleep every 20 ms) is not the box's: counting
# budget's own pid alone (the shell's, which execs it) finds no event
self_count() {  # self_count NAME [PREFIX...]: budget --pid itself, into $TMP/NAME.json
	local name=$1; shift
	"$@" sh -c 'exec "$0" budget -q -t bpf:tp/count --pid $$ --for 1 --no-store --json "$1"' \
		"$TT" "$TMP/$name.json" >"$TMP/$name.out" 2>&1 ||
		fail "budget --pid itself ($name): exit $?: $(cat "$TMP/$name.out")"
	python3 - "$TMP/$name.json" <<'PY' || exit 1
import json, sys
r = json.load(open(sys.argv[1]))["rates"]
assert r["events"] == 0, "budget counted itself: %d events, %r" % (r["events"], r["top_processes"])
PY
}
self_count self

# in a pid namespace of its own (a container): --pid and budget's own pid
# are the namespace's, not the init namespace's the kernel hands BPF
if unshare -p -f --mount-proc true 2>/dev/null; then
	unshare -p -f --mount-proc sh -c '"$0" 2000000000 & mix=$!; echo $mix >"$1/ns.pid"
		"$2" budget -q -t bpf:tp/count --pid $mix --target getuid --for 1 --no-store \
			--json "$1/ns.json" >"$1/ns.out" 2>&1; rc=$?
		kill $mix; exit $rc' "$MIX" "$TMP" "$TT" || fail "budget --pid in a pid namespace: exit $?: $(cat "$TMP/ns.out")"
	python3 - "$TMP/ns.json" "$(cat "$TMP/ns.pid")" <<'PY' || exit 1
import json, sys
r, pid = json.load(open(sys.argv[1]))["rates"], int(sys.argv[2])
assert r["events"] > 1000, "in a pid namespace, --pid %d counted %d events" % (pid, r["events"])
assert [p["pid"] for p in r["top_processes"]] == [pid], r["top_processes"]
PY
	self_count ns-self unshare -p -f --mount-proc
	echo "pid namespace: --pid counted its process, budget not itself"
else
	echo "no pid namespace here (unshare -p -f --mount-proc fails): that part not run"
fi

# -t and -w add up when repeated, as run's do: 2 tracers x 2 programs, 4 checks
"$TT" budget -q -t bpf:tp/count -t bpf:rawtp/count --target getpid --for 1 --reps 2 --run-ms 20 \
	-w "cmd:'$GN 1000'" -w "cmd:'$GN 3000'" --no-store --json "$TMP/b2.json" >"$TMP/b2.out" 2>&1 ||
	fail "budget -t -t -w -w: exit $?: $(cat "$TMP/b2.out")"
python3 - "$TMP/b2.json" <<'PY' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))
assert sorted(t["tracer"] for t in d["tracers"]) == ["bpf:rawtp/count", "bpf:tp/count"], d["tracers"]
got = sorted((k["tracer"], k["events_per_run"]) for k in d["checks"])
want = sorted((t, n) for t in ("bpf:tp/count", "bpf:rawtp/count") for n in (1000, 3000))
assert got == want, "checks %r, want %r" % (got, want)
PY

# a tracer skipped on the command (bpf:rawtp hooks syscalls, not the
# command's raw_syscalls tracepoint) is a check that says so, not a gap
"$TT" budget -q -t bpf:tp/count,bpf:rawtp/count --for 1 --reps 2 --run-ms 20 \
	-w "cmd:'$GN 1000'" --no-store --json "$TMP/sk.json" >"$TMP/sk.out" 2>&1 ||
	fail "budget with a skipped check: exit $?: $(cat "$TMP/sk.out")"
python3 - "$TMP/sk.json" <<'PY' || exit 1
import json, sys
k = {c["tracer"]: c for c in json.load(open(sys.argv[1]))["checks"]}
assert sorted(k) == ["bpf:rawtp/count", "bpf:tp/count"], "checks %r" % sorted(k)
s = k["bpf:rawtp/count"]
assert s["status"] == "skipped" and "tracepoint" in s["reason"], s
assert s["events_per_run"] is None, s
PY
grep -q "^bpf:rawtp/count .* skipped: hooks syscalls only" "$TMP/sk.out" ||
	fail "the table does not show the skipped check: $(cat "$TMP/sk.out")"

# stored: the report has a budget section with both budgets' verdicts
"$TT" report --store "$TMP/store.db" -o "$TMP/r.html" >"$TMP/r.out" 2>&1 ||
	fail "report: $(cat "$TMP/r.out")"
grep -q "<h2>Budgets" "$TMP/r.html" || fail "the report has no budget section"
[ "$(grep -c '<li>bpf:tp/count would cost' "$TMP/r.html")" = 2 ] || fail "want 2 budgets' verdicts in the report"

# a closed link frees its program from a work queue: one that is gone a
# moment later was on its way out (ours or another budget's), not left
left=$(budget_left)
for _ in $(seq 20); do
	[ -z "$left" ] && break
	sleep 0.5
	left=$(budget_left)
done
[ -z "$left" ] || fail "rate counters left loaded, held by no process for 10 s: $left"
exit 0
