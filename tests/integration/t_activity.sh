# The probe of what else is tracing (src/base/activity.c), on the real kernel:
# another tracer's BPF program appears and goes exactly, by id; a foreign
# instance, its event and a foreign kprobe are seen; what is ours (a program
# we hold an fd of, our instance, our dynamic event group) is not.
. "$(dirname "$0")/lib.sh"
need_root
ACT=$B/tests/tt-activity
ATTACH=$B/tests/tt-attach
[ -x "$ACT" ] && [ -x "$ATTACH" ] || fail "$ACT or $ATTACH not built"
T=/sys/kernel/tracing
[ -d $T/instances ] || skip "no tracefs at $T"

FOREIGN=tt-act-$$
apid= own=
cleanup() {
	[ -n "$apid" ] && kill "$apid" 2>/dev/null && wait "$apid"
	[ -d $T/instances/$FOREIGN ] && rmdir $T/instances/$FOREIGN
	grep -q "^p:ttact_$$/" $T/dynamic_events 2>/dev/null && echo "-:ttact_$$/probe" >>$T/dynamic_events
	if [ -n "$own" ]; then
		[ -d $T/instances/tracetax-$own ] && rmdir $T/instances/tracetax-$own
		grep -q "^p:tracetax_$own/" $T/dynamic_events && echo "-:tracetax_$own/own" >>$T/dynamic_events
	fi
	rm -rf "$TMP"
}
trap cleanup EXIT

# diff_around CMD...: d="diff: ..." of a sample taken before CMD and one
# after; CMD runs in this shell, so that what it sets stays set
diff_around() {
	local line
	coproc PROBE { "$ACT" -w; }
	read -r -t 10 line <&"${PROBE[0]}" && [ "$line" = ready ] || fail "tt-activity -w: '$line'"
	"$@"
	echo go >&"${PROBE[1]}"
	read -r -t 10 d <&"${PROBE[0]}" || fail "tt-activity -w gave no diff"
	wait "$PROBE_PID" || fail "tt-activity -w exited $?"
}

start_attach() {
	"$ATTACH" >"$TMP/attach.out" 2>&1 &
	apid=$!
	for _ in $(seq 100); do
		grep -q '^attached ' "$TMP/attach.out" && break
		kill -0 "$apid" 2>/dev/null || fail "tt-attach failed: $(cat "$TMP/attach.out")"
		sleep 0.1
	done
	id=$(sed -n 's/^attached //p' "$TMP/attach.out")
	[ -n "$id" ] || fail "tt-attach said nothing in 10 s"
}
stop_attach() {
	kill "$apid"
	wait "$apid" || fail "tt-attach exited $? after SIGTERM: $(cat "$TMP/attach.out")"
	apid=
}

# 1. exactly the new program appears, then exactly it goes
diff_around start_attach
want="diff: appeared: bpf prog $id 'tt_attach_tp' (tracepoint)"
[ "$d" = "$want" ] || fail "attach: got '$d', want '$want'"
echo "$d"
"$ACT" | grep -qxF "item: bpf prog $id 'tt_attach_tp' (tracepoint)" || fail "tt-attach's program not listed"
"$ACT" | grep -q "^summary: .*bpf prog $id 'tt_attach_tp' (tracepoint)" || fail "summary lacks the program"
# a program we hold an fd of is ours, not another tracer
"$ACT" -H "$id" | grep -q "bpf prog $id " && fail "a program held by the prober is listed"
diff_around stop_attach
want="diff: gone: bpf prog $id 'tt_attach_tp' (tracepoint)"
[ "$d" = "$want" ] || fail "detach: got '$d', want '$want'"
echo "$d"
grep -q "^detached $id: [0-9]* hits$" "$TMP/attach.out" || fail "tt-attach: $(cat "$TMP/attach.out")"

# 2. a foreign instance and the event enabled in it
foreign_instance() {
	mkdir $T/instances/$FOREIGN && echo syscalls:sys_enter_getppid >$T/instances/$FOREIGN/set_event
}
diff_around foreign_instance
want="diff: appeared: event syscalls:sys_enter_getppid in instance $FOREIGN, instance $FOREIGN"
[ "$d" = "$want" ] || fail "instance: got '$d', want '$want'"
echo "$d"
diff_around rmdir $T/instances/$FOREIGN
want="diff: gone: event syscalls:sys_enter_getppid in instance $FOREIGN, instance $FOREIGN"
[ "$d" = "$want" ] || fail "instance removed: got '$d', want '$want'"

# 3. a foreign uprobe is seen; our own instance and dynamic event group are
# not: a shell makes them with its pid, then execs the prober (same pid).
# The uprobes are defined, never enabled: the kernel only records them.
[ -e $T/uprobe_events ] || skip "kernel without uprobe events"
UP="$(readlink -f /bin/true):0x0"
diff_around eval "echo 'p:ttact_$$/probe $UP' >>$T/dynamic_events"
want="diff: appeared: dynamic event $(grep "^p:ttact_$$/probe " $T/dynamic_events)"
[ "$d" = "$want" ] || fail "uprobe: got '$d', want '$want'"
echo "$d"
echo "-:ttact_$$/probe" >>$T/dynamic_events
# shellcheck disable=SC2016
out=$(bash -c 'echo "pid $$"
	mkdir $1/instances/tracetax-$$ && echo syscalls:sys_enter_getppid >$1/instances/tracetax-$$/set_event &&
	echo "p:tracetax_$$/own $2" >>$1/dynamic_events && exec "$3"' _ $T "$UP" "$ACT")
own=$(echo "$out" | sed -n 's/^pid //p')
[ -d $T/instances/tracetax-$own ] && grep -q "^p:tracetax_$own/own " $T/dynamic_events ||
	fail "could not make the prober's own objects: $out"
echo "$out" | grep -q "tracetax[-_]$own" && fail "the prober lists its own objects: $out"
# the same objects, seen from another process, are another tracer's
out=$("$ACT")
for item in "instance tracetax-$own" "event syscalls:sys_enter_getppid in instance tracetax-$own" \
	    "dynamic event $(grep "^p:tracetax_$own/own " $T/dynamic_events)"; do
	echo "$out" | grep -qxF "item: $item" || fail "'$item' not listed by another process: $out"
done
rmdir $T/instances/tracetax-$own
echo "-:tracetax_$own/own" >>$T/dynamic_events
own=
assert_clean
