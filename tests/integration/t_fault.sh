# A tracer that fails in setup, after spawn, at start or at stop leaves
# nothing behind, its cell says it failed and why, the exit code is 1, and
# the next cell still runs. TRACETAX_FAULT makes the op fail after it ran,
# so its effects (a loaded program, a reader thread, an instance, a ptrace
# helper) are there to be torn down.
. "$(dirname "$0")/lib.sh"
need_root

# The tracers of a workload fail together, one run per op: each faulted cell
# is followed by the next tracer's, and `none` comes last. A run per tracer
# and op cost 28 runs; one tracefs tracer a run, so that no later cell's
# instance (named after the pid) takes the place of one a teardown left.
tested=0
n=0
for w in getpid func; do
	case $w in
	getpid) set -- ftrace:syscall/read bpf:tp/ringbuf perf:sample seccomp:notify ptrace:all ;;
	func) set -- uprobe:tracefs bpf:uprobe/count ;;
	esac
	tracers=$(for t in "$@"; do available "$t"; done)
	[ -n "$tracers" ] || continue
	for op in setup spawned start stop; do
		n=$((n + 1))
		TRACETAX_FAULT=$(for t in $tracers; do echo "$t@$op"; done | tr '\n' ',' | sed 's/,$//') \
			"$TT" run -q -w "$w" -t "$(echo $tracers none | tr ' ' ',')" -n 3000 --reps 2 \
			--json "$TMP/f$n.json" >"$TMP/out" 2>&1
		rc=$?
		[ "$rc" = 1 ] || fail "$(echo $tracers) @$op: exit $rc, want 1: $(cat "$TMP/out")"
		echo "$TMP/f$n.json $op" $tracers >>"$TMP/faults"
		assert_clean
	done
	tested=$((tested + $(echo $tracers | wc -w)))
done
[ "$tested" = 0 ] || python3 - "$TMP/faults" <<'PY' || exit 1
import json, sys
bad = 0
for line in open(sys.argv[1]):
    path, op, *tracers = line.split()
    d = json.load(open(path))
    c = {x["tracer"]: x for x in d["cells"]}
    for tracer in tracers:
        f = c[tracer]
        if f["status"] != "failed" or "fault injected" not in (f["reason"] or "") or op not in f["reason"]:
            print("FAIL: %s@%s: %s: %s" % (tracer, op, f["status"], f["reason"])); bad = 1
    n = c["none"]
    if n["status"] != "ok":
        print("FAIL: %s@%s: the next cell did not run: %s" % (tracers[-1], op, n["reason"])); bad = 1
    # every faulted cell's next one ran: its own fault, or none ok
    if not bad:
        print("%s: %s faults: failed, torn down, next cell ok" % (" ".join(tracers), op))
sys.exit(bad)
PY

# die() deep inside a cell (out of memory, a BUG): the cell's tracer is torn
# down before tracetax exits 1, nothing is left (issue 15, defect 15)
for tracer in ftrace:syscall/read bpf:tp/count perf:sample uprobe:tracefs; do
	available "$tracer" | grep -q . || continue
	w=getpid
	case $tracer in uprobe:*) w=func ;; esac
	TRACETAX_FAULT="$tracer@die" "$TT" run -q -w "$w" -t "$tracer" -n 3000 --reps 2 --no-store \
		>"$TMP/out" 2>&1
	rc=$?
	[ "$rc" = 1 ] || fail "$tracer@die: exit $rc, want 1: $(cat "$TMP/out")"
	grep -q 'fatal: fault injected by TRACETAX_FAULT at die' "$TMP/out" || fail "$tracer@die: $(cat "$TMP/out")"
	assert_clean
	echo "$tracer@die: exit 1, torn down"
done
[ "$tested" -gt 0 ] || skip "none of the tracers this test breaks is available"

# A failure after the reps -- the --latency runs, the BPF-stats pass, the
# pairs measuring what stats cost -- costs what that step adds, not the
# reps' figures: the cell stays ok with its overhead, and its note says
# what failed. (It ended failed, its figures null.)
t=bpf:tp/count
if available "$t" | grep -q .; then
	for phase in latency stats-pass stats-cost; do
		extra=
		[ "$phase" = latency ] && extra=--latency
		TRACETAX_FAULT="$t@stop-in-$phase" "$TT" run -q -t "$t" -n 3000 --reps 2 $extra \
			--json "$TMP/p.json" >"$TMP/out" 2>&1
		rc=$?
		[ "$rc" = 0 ] || fail "$t@stop-in-$phase: exit $rc, want 0: $(cat "$TMP/out")"
		python3 tests/validate_json.py "$TMP/p.json" || fail "$t@stop-in-$phase: schema"
		python3 - "$TMP/p.json" "$phase" <<'PY' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))
phase = sys.argv[2]
c = d["cells"][0]
bad = []
if c["status"] != "ok" or c["reason"]:
    bad.append("cell %s: %s" % (c["status"], c["reason"]))
if not c["overhead_ns_per_event"] or c["overhead_ns_per_event"]["mean"] is None or c["reps"] != 2:
    bad.append("the reps' overhead is gone: %d reps, %s" % (c["reps"], c["overhead_ns_per_event"]))
note = c["note"] or ""
step = {"latency": "the --latency runs failed", "stats-pass": "the BPF-stats pass failed",
        "stats-cost": "the pairs measuring what BPF stats cost failed"}[phase]
if step + ", the reps' figures stand: " not in note or "fault injected" not in note:
    bad.append("the note does not say what failed: %r" % note)
if phase == "latency" and c.get("latency") is not None:
    bad.append("half the latency runs kept: %s" % c["latency"])
if phase == "stats-pass" and c["program"]["ns_per_run"] is not None:
    bad.append("program time from a failed pass: %s" % c["program"])
if phase == "stats-cost" and d["bpf_stats_cost"] is not None:
    bad.append("a stats cost from failed pairs: %s" % d["bpf_stats_cost"])
if phase == "stats-cost" and c["program"]["ns_per_run"] is None:
    bad.append("the pass before the cost pairs lost its figure: %s" % c["program"])
for b in bad:
    print("FAIL: %s: %s" % (phase, b))
if not bad:
    print("bpf:tp/count@stop-in-%s: ok, reps kept, note: %s" % (phase, note))
sys.exit(1 if bad else 0)
PY
		assert_clean
	done
fi
