# One measurement at a time: while a run holds the machine's lock, a second
# run with --no-wait exits 2 at once naming the holder, and one without it
# waits (saying for whom), then runs; neither run's hits are wrong, and
# neither is disturbed -- without the lock, one run's BPF program on the
# getpid tracepoint silenced the other's perf:count.
. "$(dirname "$0")/lib.sh"
need_root
for t in perf:count bpf:tp/count bpf:rawtp/count; do
	available "$t" | grep -q . || skip "tracer '$t' not available here"
done

# A lasts a few seconds after its first round begins: what follows needs about
# two, all of them waiting at once.
"$TT" run -t none,bpf:tp/count,perf:count --reps 6 --run-ms 100 --json "$TMP/a.json" \
	>"$TMP/a.out" 2>"$TMP/a.err" &
a=$!
# A may wait for another engineer's or test's run first (TRACETAX_WAIT): as long as it lives
# (its first round's line says it holds the lock)
while kill -0 $a 2>/dev/null && ! grep -qE '^(round 1/|\[1/)' "$TMP/a.err"; do sleep 0.1; done
grep -qE '^(round 1/|\[1/)' "$TMP/a.err" || fail "run A never got going: $(cat "$TMP/a.err")"

start=$(date +%s%N)
"$TT" run -t perf:count --no-wait --json "$TMP/b.json" >"$TMP/b.out" 2>"$TMP/b.err"
rc=$?
ms=$(( ($(date +%s%N) - start) / 1000000 ))
[ "$rc" = 2 ] || fail "--no-wait while A runs: exit $rc, want 2: $(cat "$TMP/b.err")"
grep -q "another measurement is running: pid $a " "$TMP/b.err" || fail "B does not name A ($a): $(cat "$TMP/b.err")"
[ "$(wc -l <"$TMP/b.err")" = 1 ] || fail "B printed more than one line: $(cat "$TMP/b.err")"
[ "$ms" -lt 3000 ] || fail "--no-wait took $ms ms"
[ -e "$TMP/b.json" ] && fail "B wrote results"
echo "B: $(cat "$TMP/b.err")"
# pair takes the same lock, and has the same --no-wait
"$TT" pair -p enter -s global --no-wait >"$TMP/p.out" 2>"$TMP/p.err"
rc=$?
[ "$rc" = 2 ] || fail "pair --no-wait while A runs: exit $rc, want 2: $(cat "$TMP/p.err")"
grep -q "another measurement is running: pid $a " "$TMP/p.err" ||
	fail "pair does not name A ($a): $(cat "$TMP/p.err")"
[ -s "$TMP/p.out" ] && fail "pair --no-wait printed a table: $(cat "$TMP/p.out")"
echo "pair: $(cat "$TMP/p.err")"

# Anybody can hold the lock: a waiter gives up after --wait, naming the
# holder's pid, command and user, instead of waiting forever. budget takes
# the same lock the same way: --no-wait, --wait, and $TRACETAX_WAIT. The
# waiters wait at the same time (each its own second), each timed alone.
"$TT" budget -t bpf:tp/count --no-wait --no-store >"$TMP/bn.out" 2>"$TMP/bn.err"
rc=$?
[ "$rc" = 2 ] && [ "$(wc -l <"$TMP/bn.err")" = 1 ] &&
	grep -q "another measurement is running: pid $a .*(--no-wait)\$" "$TMP/bn.err" ||
	fail "budget --no-wait while A runs: exit $rc: $(cat "$TMP/bn.err")"
waiter() {  # waiter NAME CMD...: CMD's output in $TMP/NAME.{out,err}, "rc ms" in $TMP/NAME.st
	local name=$1 start rc
	shift
	start=$(date +%s%N)
	"$@" >"$TMP/$name.out" 2>"$TMP/$name.err"
	rc=$?
	echo "$rc $(( ($(date +%s%N) - start) / 1000000 ))" >"$TMP/$name.st"
}
waiters=
waiter w "$TT" run -t perf:count --wait 1 --json "$TMP/w.json" & waiters="$waiters $!"
waiter l "$TT" list --wait 1 & waiters="$waiters $!"
waiter bw1 "$TT" budget -t bpf:tp/count --wait 1 --no-store & waiters="$waiters $!"
waiter bw2 env TRACETAX_WAIT=1 "$TT" budget -t bpf:tp/count --no-store & waiters="$waiters $!"
wait $waiters
read -r rc ms <"$TMP/w.st"
[ "$rc" = 2 ] || fail "--wait 1 while A runs: exit $rc, want 2: $(cat "$TMP/w.err")"
grep -q "gave up after waiting 1 s: another measurement is running: pid $a (.*run.*), user root (--wait)\$" \
	"$TMP/w.err" || fail "the waiter does not name A ($a), its command and user: $(cat "$TMP/w.err")"
[ "$ms" -ge 900 ] && [ "$ms" -lt 5000 ] || fail "--wait 1 gave up after $ms ms"
[ -e "$TMP/w.json" ] && fail "the waiter wrote results"
read -r rc ms <"$TMP/l.st"
[ "$rc" = 2 ] && grep -q "gave up after waiting 1 s: .*pid $a " "$TMP/l.err" ||
	fail "list --wait 1 while A runs: exit $rc: $(cat "$TMP/l.err")"
echo "W: $(tail -1 "$TMP/w.err")"
for how in bw1:"--wait 1" bw2:"TRACETAX_WAIT=1"; do
	read -r rc ms <"$TMP/${how%%:*}.st"
	[ "$rc" = 2 ] && grep -q "gave up after waiting 1 s: .*pid $a .*(--wait)\$" "$TMP/${how%%:*}.err" ||
		fail "budget ${how#*:} while A runs: exit $rc: $(cat "$TMP/${how%%:*}.err")"
	[ "$ms" -ge 900 ] || fail "budget ${how#*:} gave up after $ms ms: it did not wait"
done
echo "budget: $(tail -1 "$TMP/bw2.err")"

"$TT" run -t perf:count,bpf:rawtp/count --reps 2 --run-ms 50 --json "$TMP/c.json" \
	>"$TMP/c.out" 2>"$TMP/c.err" &
c=$!
wait "$a" || fail "run A exited $?: $(tail -5 "$TMP/a.err")"
wait "$c" || fail "run C exited $?: $(tail -5 "$TMP/c.err")"
grep -q "waiting up to [0-9]* s for another measurement to end: .*pid $a " "$TMP/c.err" ||
	fail "C did not say it waits for A: $(head -3 "$TMP/c.err")"
echo "C: $(grep waiting "$TMP/c.err")"
python3 - "$TMP/a.json" "$TMP/c.json" <<'PY' || exit 1
import json, sys
bad = []
for f in sys.argv[1:]:
    for c in json.load(open(f))["cells"]:
        name = "%s: %s" % (f.rsplit("/", 1)[1], c["tracer"])
        if c["status"] != "ok":
            bad.append("%s %s: %s" % (name, c["status"], c["reason"]))
        elif c["disturbed"]:
            bad.append("%s disturbed: %s" % (name, c["disturbed_by"]))
        elif c["hits"] is not None and c["hits"] != c["events"]:
            bad.append("%s hits %d != events %d" % (name, c["hits"], c["events"]))
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
PY
assert_clean
