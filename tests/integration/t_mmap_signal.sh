# SIGINT in the middle of an ftrace mmap cell: while tracetax tears down
# (the fault switch makes its teardown last 3 s), the ring buffer is no
# longer mapped into it, no reader thread runs and its instance is gone;
# then it dies of the signal and nothing of it is left.
. "$(dirname "$0")/lib.sh"
need_root

tracer=ftrace:syscall/mmap
available "$tracer" | grep -q . || skip "$tracer is not available here: $(grep -o "\"$tracer\"[^}]*" "$TMP/list.json" | head -1)"
TRACETAX_FAULT="$tracer@slow-teardown" "$TT" run -q -t "$tracer" -n 2000000 --reps 50 \
	>"$TMP/out" 2>&1 &
pid=$!
# Mapped only during a traced run: wait for one, so the signal lands in it.
mapped=0
for _ in $(seq 300); do
	grep -q 'trace_pipe_raw' "/proc/$pid/maps" 2>/dev/null && { mapped=1; break; }
	sleep 0.05
done
[ "$mapped" = 1 ] || { kill -9 "$pid"; fail "no trace_pipe_raw mapping seen in 15 s: $(cat "$TMP/out")"; }
threads=$(cat /proc/"$pid"/task/*/comm | grep -c '^tt-ftrace-')
[ "$threads" -gt 0 ] || { kill -9 "$pid"; fail "mapped, but no tt-ftrace reader thread"; }
kill -INT "$pid"
# teardown done, tracetax still alive in its 3 s sleep: what is left now is left for good
for _ in $(seq 100); do
	[ -e "/sys/kernel/tracing/instances/tracetax-$pid" ] || break
	sleep 0.05
done
kill -0 "$pid" 2>/dev/null || fail "tracetax gone before its slow teardown ended: $(cat "$TMP/out")"
[ -e "/sys/kernel/tracing/instances/tracetax-$pid" ] && fail "instance tracetax-$pid still there 5 s after SIGINT"
grep 'trace_pipe_raw' "/proc/$pid/maps" && fail "ring buffer still mapped after teardown"
cat /proc/"$pid"/task/*/comm | grep '^tt-ftrace-' && fail "reader thread alive after teardown"
wait "$pid"
rc=$?
[ "$rc" = 130 ] || fail "exit $rc after SIGINT, want 130: $(cat "$TMP/out")"
assert_clean
