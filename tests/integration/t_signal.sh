# SIGINT or SIGTERM in the middle of a run: tracetax tears everything down
# and exits 128+signal; no tracefs instance, enabled event, BPF program,
# perf fd holder or workload process is left, and no results file written.
. "$(dirname "$0")/lib.sh"
need_root

tracers=$(available | grep -E '^(ftrace:syscall/read|bpf:tp/ringbuf|bpf:rawtp/count|ptrace:all|perf:sample|seccomp:notify|uprobe:tracefs|bpf:uprobe/count)$' | tr '\n' ',' | sed 's/,$//')
[ -n "$tracers" ] || skip "none of the tracers this test interrupts is available"
# at PID WHEN: until run PID gets there, or at the latest when the fixed
# delay that aimed at it did (0.3, 1.1, 2.3 and 3.7 s). "start": 0.3 s in,
# before any cell; "calib": the first cell being prepared (a workload
# warming up 100 calls: syscheck's or calibration's); "reps": a rep's
# workload (its warm-up sized by calibration); "next": a cell prepared
# after some reps ran.
at() {
	local pid=$1 when=$2 c args reps=0 t0=${EPOCHREALTIME/./} end
	case $when in start) end=300000 ;; calib) end=1100000 ;; reps) end=2300000 ;; *) end=3700000 ;; esac
	end=$((t0 + end))
	[ "$when" = start ] && { sleep 0.3; return; }
	while [ "${EPOCHREALTIME/./}" -lt "$end" ]; do
		for c in $(pgrep -P "$pid" -x tracetax-load); do
			args=" $(tr '\0' ' ' 2>/dev/null <"/proc/$c/cmdline")"
			case $when:$args in
			calib:*" -W 100 "*) ;;
			reps:*" -W 100 "*|next:*" -W 100 "*) [ "$when:$reps" = next:1 ] || continue ;;
			reps:*" -W "[0-9]*) ;;
			next:*" -W "[0-9]*) reps=1; continue ;;
			*) continue ;;
			esac
			echo "$when: $(( (${EPOCHREALTIME/./} - t0) / 1000 )) ms in"
			return
		done
		sleep 0.02
	done
	echo "$when: not seen in $(( (${EPOCHREALTIME/./} - t0) / 1000 )) ms"
}
i=0
for when in start calib reps next; do
	for sig in INT TERM; do
		i=$((i + 1))
		"$TT" run -q -w func,getpid -t "$tracers" --reps 50 --run-ms 150 --json "$TMP/r$i.json" >"$TMP/out" 2>&1 &
		pid=$!
		at "$pid" "$when"
		kill -s "$sig" "$pid"
		# every wait in tracetax is bounded: it must be gone within 15 s
		for _ in $(seq 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
		kill -0 "$pid" 2>/dev/null && { kill -9 "$pid"; fail "tracetax still running 15 s after SIG$sig"; }
		wait "$pid"
		rc=$?
		want=$([ "$sig" = INT ] && echo 130 || echo 143)
		[ "$rc" = "$want" ] || fail "exit $rc after SIG$sig at $when, want $want: $(cat "$TMP/out")"
		[ -e "$TMP/r$i.json" ] && fail "a results file was written after SIG$sig"
		assert_clean
	done
done

# list probes every tracer (instances, events, BPF programs, perf fds):
# Ctrl-C in the middle of it tears down the probe under way, probes no
# more, and dies of the signal, as run does.
interrupted=0
for delay in 0.05 0.15 0.3 0.6 1.0; do
	"$TT" list >"$TMP/l.out" 2>&1 &
	pid=$!
	sleep "$delay"
	kill -s INT "$pid" 2>/dev/null
	for _ in $(seq 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
	kill -0 "$pid" 2>/dev/null && { kill -9 "$pid"; fail "list still running 15 s after SIGINT"; }
	wait "$pid"
	rc=$?
	case $rc in
	0) ;;	# done before the signal came
	130) interrupted=$((interrupted + 1)) ;;
	*) fail "list: exit $rc after SIGINT at ${delay}s, want 130: $(tail -3 "$TMP/l.out")" ;;
	esac
	assert_clean
done
[ "$interrupted" -gt 0 ] || fail "list was never interrupted: it ended before 50 ms every time"
echo "list: interrupted $interrupted times of 5, nothing left"

# After teardown tracetax dies of the signal it got (the parent sees the
# real cause, not exit(130)); a second signal during teardown says what it
# is still waiting for. The fault switch makes the teardown take 3 s.
python3 - "$TT" <<'PY' || exit 1
import os, signal, subprocess, sys, time
tt = sys.argv[1]
env = dict(os.environ, TRACETAX_FAULT="ptrace:all@slow-teardown")
p = subprocess.Popen([tt, "run", "-q", "-t", "ptrace:all", "--reps", "50", "--run-ms", "50"],
                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, text=True)

def traced_workload(ppid):
    """A workload of ours under ptrace: ptrace:all is set up (calibrating or running)."""
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            stat = open("/proc/%s/stat" % pid).read()
            status = open("/proc/%s/status" % pid).read()
        except OSError:
            continue
        comm, rest = stat[stat.index("(") + 1:stat.rindex(")")], stat[stat.rindex(")") + 2:].split()
        if comm == "tracetax-load" and int(rest[1]) == ppid and \
           "\nTracerPid:\t0\n" not in status:
            return True
    return False

# (a fixed 1.5 s sleep waited for it)
deadline = time.time() + 30
while time.time() < deadline and p.poll() is None and not traced_workload(p.pid):
    time.sleep(0.05)
p.send_signal(signal.SIGINT)
time.sleep(0.5)              # now in the slow teardown
p.send_signal(signal.SIGINT)
_, err = p.communicate(timeout=30)
print("returncode", p.returncode, "stderr:", err.strip())
if p.returncode != -signal.SIGINT:
    print("FAIL: want death by SIGINT (returncode -2), got", p.returncode); sys.exit(1)
if "still tearing down tracer 'ptrace:all'" not in err:
    print("FAIL: the second SIGINT did not say what tracetax waits for"); sys.exit(1)
PY
assert_clean
exit 0
