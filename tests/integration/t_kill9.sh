# SIGKILL cannot be caught: what tracetax then leaves must die with it or be
# removable. The workload and the ptrace helper die with it (PDEATHSIG,
# EXITKILL); its tracefs instance and uprobe event are found and removed by
# `tracetax cleanup`; BPF programs and perf events go with its fds.
. "$(dirname "$0")/lib.sh"
need_root
T=/sys/kernel/tracing
for want in ftrace:syscall/read uprobe:tracefs ptrace:all; do
	available "$want" | grep -q . || skip "tracer '$want' not available here"
done
for t in ftrace:syscall/read uprobe:tracefs ptrace:all bpf:tp/count; do
	w=getpid; [ "$t" = uprobe:tracefs ] && w=func
	"$TT" run -q -w "$w" -t "$t" --reps 50 --run-ms 200 >/dev/null 2>&1 &
	pid=$!
	# wait until it is measuring: past calibration, a workload running and,
	# for tracefs tracers, the instance there. A rep's workload is the one
	# whose warm-up calibration sized: syscheck's and calibration's runs warm
	# up with 100 calls (-W 100). (A fixed second's sleep waited for it.)
	for _ in $(seq 300); do
		rep=
		for c in $(pgrep -P "$pid" -x tracetax-load); do
			case " $(tr '\0' ' ' 2>/dev/null <"/proc/$c/cmdline")" in
			*" -W 100 "*) ;;
			*" -W "[0-9]*) rep=$c ;;
			esac
		done
		[ -n "$rep" ] &&
			{ [ "$t" = ptrace:all ] || [ "$t" = bpf:tp/count ] || [ -d "$T/instances/tracetax-$pid" ]; } && break
		sleep 0.05
	done
	kill -9 "$pid"
	wait "$pid" 2>/dev/null
	for _ in $(seq 50); do pgrep -f "$B/tracetax-load" >/dev/null || break; sleep 0.1; done
	pgrep -a -f "$B/tracetax-load" && fail "$t: workload survived SIGKILL of tracetax"
	case $t in
	ftrace:*|uprobe:*)
		[ -d "$T/instances/tracetax-$pid" ] || fail "$t: expected the killed run's instance to be left"
		"$TT" cleanup >"$TMP/out" 2>&1 || fail "cleanup failed: $(cat "$TMP/out")"
		[ -d "$T/instances/tracetax-$pid" ] && fail "$t: cleanup left tracetax-$pid"
		grep -q "tracetax_$pid" "$T/uprobe_events" && fail "$t: cleanup left the uprobe event"
		;;
	esac
done
assert_clean
