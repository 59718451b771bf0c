# lttng-ust on func-ust: hits == events exactly with a buffer sized for the
# run (lost 0), start-up and shut-down times; a workload without the
# tracepoint is skipped with the reason; and nothing of LTTng is left after
# a run, SIGINT, SIGTERM, or SIGKILL followed by `tracetax cleanup`: no
# lttng process, no /var/run/lttng, no /dev/shm/lttng-ust-wait-*, no session.
. "$(dirname "$0")/lib.sh"
need_root

[ -n "$(available lttng-ust ust tools)" ] ||
	skip "lttng-ust: $(json_get "$TMP/list.json" '[t["reason"] for t in d["tracers"] if t["name"] == "lttng-ust"][0]')"

# What was there before is not ours: the test needs a machine without it.
before=$(ls -d /var/run/lttng /dev/shm/lttng-ust-wait-* 2>/dev/null)
[ -z "$before" ] || skip "LTTng state already on the machine: $before"

lttng_clean() {
	local left
	for _ in $(seq 30); do pgrep -f '^lttng-(sessiond|consumerd)' >/dev/null || break; sleep 0.1; done
	left=$(pgrep -a -f '^lttng-(sessiond|consumerd)')
	[ -z "$left" ] || fail "lttng process left: $left"
	left=$(ls -d /var/run/lttng /dev/shm/lttng-ust-wait-* 2>/dev/null)
	[ -z "$left" ] || fail "LTTng state left: $left"
	assert_clean
}

N=5000
"$TT" run -q -w func-ust -t none,lttng-ust -T 1,2 -n $N --reps 2 --json "$TMP/r.json" >"$TMP/out" 2>&1 ||
	fail "tracetax run failed: $(cat "$TMP/out")"
python3 - "$TMP/r.json" "$N" <<'PY' || exit 1
import json, sys
bad = []
n = int(sys.argv[2])
for c in json.load(open(sys.argv[1]))["cells"]:
    name = "%s %dT" % (c["tracer"], c["threads"])
    if c["status"] != "ok":
        bad.append("%s: %s: %s" % (name, c["status"], c["reason"]))
        continue
    if c["tracer"] == "none":
        continue
    if not c["startup_ms"] or not c["shutdown_ms"]:
        bad.append("%s: start-up %s ms, shut-down %s ms" % (name, c["startup_ms"], c["shutdown_ms"]))
    want = c["threads"] * (n + c["warmup"])
    for i, r in enumerate(c["runs"]):
        if r["events"] != want or r["hits"] != want or r["lost"] != 0:
            bad.append("%s run %d: hits %s, lost %s, events %s, want %d" % (name, i, r["hits"], r["lost"], r["events"], want))
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
PY
python3 tests/validate_json.py "$TMP/r.json" docs/schema.json || fail "schema validation"
lttng_clean

# A workload without the tracepoint: skipped, the reason names one with it
"$TT" run -q -w func -t lttng-ust -n 1000 --reps 1 --json "$TMP/s.json" >"$TMP/out" 2>&1
reason=$(json_get "$TMP/s.json" 'd["cells"][0]["status"] + ": " + (d["cells"][0]["reason"] or "")')
case $reason in skipped:*func-ust*) ;; *) fail "lttng-ust on func: $reason" ;; esac

# A signal in the middle of a cell: tracetax tears down and dies of it;
# after SIGKILL the daemon dies with it and `tracetax cleanup` removes the rest
for sig in INT TERM KILL; do
	"$TT" run -q -w func-ust -t lttng-ust --reps 20 --run-ms 100 >"$TMP/out" 2>&1 &
	pid=$!
	for _ in $(seq 200); do pgrep -x lttng-sessiond >/dev/null && break; sleep 0.05; done
	pgrep -x lttng-sessiond >/dev/null || fail "SIG$sig: no lttng-sessiond started: $(cat "$TMP/out")"
	sleep 0.5
	kill -s "$sig" "$pid"
	for _ in $(seq 150); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
	kill -0 "$pid" 2>/dev/null && { kill -9 "$pid"; fail "tracetax still running 15 s after SIG$sig"; }
	wait "$pid"
	rc=$?
	want=$((128 + $(kill -l "$sig")))
	[ "$rc" = "$want" ] || fail "exit $rc after SIG$sig, want $want: $(cat "$TMP/out")"
	if [ "$sig" = KILL ]; then
		for _ in $(seq 50); do pgrep -f "$B/tracetax-load" >/dev/null || break; sleep 0.1; done
		"$TT" cleanup >"$TMP/out" 2>&1 || fail "cleanup failed: $(cat "$TMP/out")"
	fi
	lttng_clean
done
exit 0
