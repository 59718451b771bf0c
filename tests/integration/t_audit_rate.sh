# tracetax rate on the real kernel audit: a short climb of two flush modes.
# Every kept step's records are exactly the calls made (hits == events, from
# our auditd's log), the paced load made its rate, auditd's and kauditd's CPU
# per record are figures (never 0 or missing), each mode's verdict line is
# there, and the box's audit state is as before: after a normal end, with
# the backlog fixed, and after SIGINT. Runs last (tests/run.sh), as t_audit.
. "$(dirname "$0")/audit_lib.sh"

check() {  # check OUT TRACERS...: the step tables and verdict lines of a rate run
	python3 - "$@" <<'PY'
import re, sys
out, tracers = open(sys.argv[1]).read().split("\n"), sys.argv[2:]
bad, cur, steps = [], None, {}
for l in out:
    if l in tracers:
        cur = l
        steps[cur] = []
        continue
    f = l.split()
    if cur and len(f) == 10 and re.fullmatch(r"\d+/\d+", f[2]):
        steps[cur].append(f)
    elif not l.startswith("  "):
        cur = None
for t in tracers:
    st = steps.get(t, [])
    if not st:
        bad.append("%s: no steps" % t)
    for f in st:
        rate, reached, (hits, events), backlog, lost, wait, cons, kern, secs, verdict = \
            int(f[0]), float(f[1]), map(int, f[2].split("/")), int(f[3]), int(f[4]), f[5], f[6], f[7], f[8], f[9]
        if verdict == "kept":
            if hits != events:
                bad.append("%s %d/s kept with hits %d != events %d" % (t, rate, hits, events))
            if not 0.9 * rate <= reached <= 1.1 * rate:
                bad.append("%s %d/s kept, but the load reached %.0f/s" % (t, rate, reached))
            if lost or wait != "0":
                bad.append("%s %d/s kept with lost %d, wait %s" % (t, rate, lost, wait))
        if events < 3 * backlog:
            bad.append("%s %d/s: %d events, fewer than 3 backlogs of %d" % (t, rate, events, backlog))
        for name, v in (("auditd", cons), ("kauditd", kern)):
            if not re.fullmatch(r"[0-9.]+k?", v) or float(v.rstrip("k")) <= 0:
                bad.append("%s %d/s: %s's CPU per record is %r" % (t, rate, name, v))
    if not any(l.startswith(t + " ") and ("first not kept" in l or "/s:" in l or "none up to" in l)
               for l in out):
        bad.append("%s: no verdict line" % t)
# a load that is not paced outruns auditd at once: no step would be kept
if not any(f[9] == "kept" for s in steps.values() for f in s):
    bad.append("no step kept at all")
for b in bad:
    print("FAIL:", b)
print("%d steps checked" % sum(len(s) for s in steps.values()))
sys.exit(1 if bad else 0)
PY
}

# A short climb: its steps a third of a second, three rates.
"$TT" rate -t audit:rule/async,audit:rule/none -r 200,1k,5k --step-ms 300 >"$TMP/out" 2>"$TMP/err" ||
	fail "rate exited $?: $(tail -5 "$TMP/err")"
cat "$TMP/out"
check "$TMP/out" audit:rule/async audit:rule/none || fail "rate: $(cat "$TMP/out")"
same_state "rate, a normal end"

# The backlog fixed: every step three of it, whatever the rate (--all: both
# steps, kept or not: a busy box may pause auditd longer than 100 records).
"$TT" rate -q --all -t audit:rule/async -r 500,2k --backlog 100 >"$TMP/out" 2>&1 ||
	fail "rate --backlog exited $?: $(cat "$TMP/out")"
for r in 500 2000; do
	grep -qE "^ +$r +[0-9]+ +300/300 +100 " "$TMP/out" ||
		fail "rate --backlog 100: not 300 records at $r/s, all counted: $(cat "$TMP/out")"
done
same_state "rate --backlog"

# SIGINT in the middle of a climb.
"$TT" rate -q -t audit:rule/async -r 100,200 --step-ms 3000 >"$TMP/out" 2>&1 &
tt=$!
for _ in $(seq 600); do [ -e "/run/tracetax-audit-$tt.state" ] && break; sleep 0.1; done
sleep 2
kill -INT "$tt"
for _ in $(seq 300); do kill -0 "$tt" 2>/dev/null || break; sleep 0.1; done
kill -0 "$tt" 2>/dev/null && { kill -9 "$tt"; fail "rate still running 30 s after SIGINT"; }
wait "$tt"
rc=$?
[ "$rc" = 130 ] || fail "rate: exit $rc after SIGINT, want 130: $(cat "$TMP/out")"
same_state "rate, SIGINT"
exit 0
