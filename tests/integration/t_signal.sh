# SIGINT or SIGTERM in the middle of a run: tracetax tears everything down
# and exits 128+signal; no tracefs instance, enabled event, BPF program,
# perf fd holder or workload process is left, and no results file written.
. "$(dirname "$0")/lib.sh"
need_root

tracers=$(available | grep -E '^(ftrace:syscall/read|bpf:tp/ringbuf|bpf:rawtp/count|ptrace:all|perf:sample|seccomp:notify|uprobe:tracefs|bpf:uprobe/count)$' | tr '\n' ',' | sed 's/,$//')
[ -n "$tracers" ] || skip "none of the tracers this test interrupts is available"
i=0
for delay in 0.3 1.1 2.3 3.7; do
	for sig in INT TERM; do
		i=$((i + 1))
		"$TT" run -q -w func,getpid -t "$tracers" --reps 50 --run-ms 150 --json "$TMP/r$i.json" >"$TMP/out" 2>&1 &
		pid=$!
		sleep "$delay"
		kill -s "$sig" "$pid"
		# every wait in tracetax is bounded: it must be gone within 15 s
		for _ in $(seq 150); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
		kill -0 "$pid" 2>/dev/null && { kill -9 "$pid"; fail "tracetax still running 15 s after SIG$sig"; }
		wait "$pid"
		rc=$?
		want=$([ "$sig" = INT ] && echo 130 || echo 143)
		[ "$rc" = "$want" ] || fail "exit $rc after SIG$sig at ${delay}s, want $want: $(cat "$TMP/out")"
		[ -e "$TMP/r$i.json" ] && fail "a results file was written after SIG$sig"
		assert_clean
	done
done
exit 0
