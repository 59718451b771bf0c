# Whole tools as tracers (strace, bpftrace, perf): on getpid with a fixed
# count, hits == events where the tool counts exactly; strace --seccomp-bpf
# costs less than strace where the workload's calls are not the traced one;
# a tool that exits with an error fails its own cell only, with its words;
# and nothing of a tool is left after a run, a failure, SIGINT or SIGKILL.
. "$(dirname "$0")/lib.sh"
need_root

tools=$(available '*' syscall tools | tr '\n' ',' | sed 's/,$//')
[ -n "$tools" ] || skip "no tool installed (strace, bpftrace, perf: scripts/deps.sh)"
# calls per thread and run, each counted: a tool's start and stop cost more
# than its calls here (bpftrace compiles, perf record writes its file)
N=5000
"$TT" run -q -w getpid -t "none,$tools" -T 1,2 -n $N --reps 2 --json "$TMP/r.json" >"$TMP/out" 2>&1 ||
	fail "tracetax run failed: $(cat "$TMP/out")"
python3 - "$TMP/r.json" "$N" <<'PY' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))
n = int(sys.argv[2])
bad = []
# perf 6.1 on this kernel misses a few calls per 100k without a LOST record
# (docs/tracers.md), and once in CI 6 of 5500 (0.11%): its counts must be
# within 1% (a miscounted warm-up is 9% off), the others exact
approx = ("perf-trace", "perf-record")
for c in d["cells"]:
    name = "%s %dT" % (c["tracer"], c["threads"])
    if c["tracer"] == "bpftrace:filter" and c["status"] == "skipped":
        continue    # getpid has no path to compare
    if c["status"] != "ok":
        bad.append("%s: %s: %s" % (name, c["status"], c["reason"]))
        continue
    if c["tracer"] == "none":
        continue
    if c["startup_ms"] is None or c["shutdown_ms"] is None:
        bad.append("%s: no start-up or shut-down time" % name)
    for i, r in enumerate(c["runs"]):
        want = c["threads"] * (n + c["warmup"])
        h = r["hits"]
        if r["events"] != want or h is None:
            bad.append("%s run %d: events %s (want %d), hits %s" % (name, i, r["events"], want, h))
        elif c["tracer"] in approx and not (0.99 * want <= h <= want):
            bad.append("%s run %d: hits %d, events %d" % (name, i, h, want))
        elif c["tracer"] not in approx and (h != want or r["lost"]):
            bad.append("%s run %d: hits %d, lost %d, events %d" % (name, i, h, r["lost"], want))
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
PY
python3 tests/validate_json.py "$TMP/r.json" docs/schema.json || fail "schema validation"
assert_clean

# The user-space tools, each on a workload whose call it hooks: exact counts
for t in $(available '*' function tools); do
	w=$([ "$t" = uftrace ] && echo func || echo getpid-libc)
	# ltrace 0.7.3 returns a wrong value now and then to one of two threads
	# (docs/tracers.md): its cell then fails, rightly; it is tested on one
	T=$([ "$t" = ltrace ] && echo 1 || echo 1,2)
	# uftrace 0.13 dropped 31 of 11000 calls once without saying LOST (a
	# loaded machine, 2 threads; not again in 7 tries under load): a tool's rare
	# drop gets one more try, a miscount of ours fails both
	for try in 1 2; do
		"$TT" run -q -w "$w" -t "$t" -T "$T" -n 2000 --reps 2 --json "$TMP/u.json" >"$TMP/out" 2>&1 ||
			fail "$t on $w failed: $(cat "$TMP/out")"
		python3 - "$TMP/u.json" >"$TMP/exact" <<'PY' && break
import json, sys
for c in json.load(open(sys.argv[1]))["cells"]:
    want = c["threads"] * (2000 + c["warmup"])
    for r in c["runs"]:
        if c["status"] != "ok" or r["hits"] != want or r["events"] != want or r["lost"]:
            print("FAIL: %s %s %dT: %s, hits %s, lost %s, events %s, want %d: %s" % (c["tracer"],
                  c["workload"], c["threads"], c["status"], r["hits"], r["lost"], r["events"], want, c["reason"]))
            sys.exit(1)
PY
		[ "$try" = 2 ] && { cat "$TMP/exact"; exit 1; }
		echo "$t: try 1 $(cat "$TMP/exact"), trying again"
	done
	assert_clean
done

# The post's predicate needs a path: stat-libc has one (newfstatat on glibc 2.36)
if available bpftrace:filter syscall tools | grep -q .; then
	"$TT" run -q -w stat-libc -t bpftrace:filter,bpftrace -n $N --reps 1 --json "$TMP/f.json" >"$TMP/out" 2>&1 ||
		fail "bpftrace:filter on stat-libc failed: $(cat "$TMP/out")"
	python3 - "$TMP/f.json" <<'PY' || exit 1
import json, sys
for c in json.load(open(sys.argv[1]))["cells"]:
    if c["status"] != "ok" or c["hits"] != c["events"]:
        print("FAIL: %s on stat-libc: %s, hits %s of %s: %s" % (c["tracer"], c["status"], c["hits"], c["events"], c["reason"]))
        sys.exit(1)
PY
fi

# The collateral case: the getpid workload never makes close, the traced
# call. The mechanism, ptrace:seccomp, stops only at close and is far
# cheaper than ptrace:all. strace 6.1 --seccomp-bpf lets a thread it follows
# (clone) stop at every syscall until the thread's first traced call
# (docs/tracers.md): on our workload, whose loop runs in such a thread, it
# then costs what strace costs. It must never cost more, and count nothing.
if available strace:seccomp syscall tools | grep -q .; then
	"$TT" run -q -w getpid -t strace,strace:seccomp,ptrace:all,ptrace:seccomp --target close -n 10000 --reps 3 \
		--json "$TMP/c.json" >"$TMP/out" 2>&1 || fail "collateral run failed: $(cat "$TMP/out")"
	python3 - "$TMP/c.json" <<'PY' || exit 1
import json, sys
c = {x["tracer"]: x for x in json.load(open(sys.argv[1]))["cells"]}
for x in c.values():
    if x["status"] != "ok" or x["hits"] != 0:
        print("FAIL: %s: %s, %s hits on close: %s" % (x["tracer"], x["status"], x["hits"], x["reason"])); sys.exit(1)
m = {k: v["overhead_ns_per_event"]["median"] for k, v in c.items()}
print("collateral, +ns per getpid: " + ", ".join("%s %.0f" % kv for kv in m.items()))
if not m["ptrace:all"] > 5 * max(m["ptrace:seccomp"], 50):
    print("FAIL: ptrace:seccomp is not far cheaper than ptrace:all"); sys.exit(1)
if m["strace:seccomp"] > 1.5 * m["strace"]:
    print("FAIL: strace --seccomp-bpf costs more than strace"); sys.exit(1)
PY
fi

# A tool that refuses its command line fails its own cell, with its words;
# the next cell runs
for t in $(available 'strace' syscall tools) $(available 'bpftrace' syscall tools); do
	TRACETAX_FAULT="$t@tool-error" "$TT" run -q -t "$t,none" -n 2000 --reps 1 --json "$TMP/e.json" >"$TMP/out" 2>&1
	rc=$?
	[ "$rc" = 1 ] || fail "$t with a bad option: exit $rc, want 1: $(cat "$TMP/out")"
	python3 - "$TMP/e.json" "$t" <<'PY' || exit 1
import json, sys
c = {x["tracer"]: x for x in json.load(open(sys.argv[1]))["cells"]}
t = c[sys.argv[2]]
if t["status"] != "failed" or "tracetax-no-such-option" not in (t["reason"] or ""):
    print("FAIL: %s: %s, reason %s: want the tool's complaint about its option" % (sys.argv[2], t["status"], t["reason"])); sys.exit(1)
if c["none"]["status"] != "ok":
    print("FAIL: the cell after the failed one: %s" % c["none"]["reason"]); sys.exit(1)
print("%s: %s" % (sys.argv[2], t["reason"]))
PY
	assert_clean
done

# SIGINT in the middle of a tool's cell: tracetax exits 130, nothing is left;
# SIGKILL: the tool dies with it, `tracetax cleanup` removes its directory
for t in $(available 'bpftrace' syscall tools) $(available 'strace' syscall tools); do
	for sig in INT KILL; do
		"$TT" run -q -t "$t" --reps 20 --run-ms 100 >"$TMP/out" 2>&1 &
		pid=$!
		for _ in $(seq 100); do
			ls -d /tmp/tt-tool-"$pid"-* >/dev/null 2>&1 && pgrep -P "$pid" >/dev/null && break
			sleep 0.05
		done
		sleep 0.7
		kill -s "$sig" "$pid"
		for _ in $(seq 150); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
		kill -0 "$pid" 2>/dev/null && { kill -9 "$pid"; fail "$t: tracetax still running 15 s after SIG$sig"; }
		wait "$pid"
		rc=$?
		want=$([ "$sig" = INT ] && echo 130 || echo 137)
		[ "$rc" = "$want" ] || fail "$t: exit $rc after SIG$sig, want $want: $(cat "$TMP/out")"
		if [ "$sig" = KILL ]; then
			for _ in $(seq 50); do pgrep -f "$B/tracetax-load" >/dev/null || break; sleep 0.1; done
			"$TT" cleanup >"$TMP/out" 2>&1 || fail "cleanup failed: $(cat "$TMP/out")"
		fi
		assert_clean
	done
done
exit 0
