# t_slowpath: a run's header says why a fresh task takes the syscall slow
# path, and only when something is there (src/measure/slowpath.c):
#  (a) on a box where nothing is there, no line and no field;
#  (b) with a syscall tracepoint enabled in a tracefs instance of the
#      test's own, the header names it, and the document has the cause;
#  (c) on a boot that never enabled audit, an audit cell (run, rate, budget
#      --measure, an experiment) without --accept-audit-residue is refused: one line, exit
#      2, what it would leave and this box's fresh getpid; audit untouched;
#  (d) in a --kernel guest (tracetax vm), the audit residue itself: an
#      audit cell runs without the flag, and the next run's header names the
#      residue with its size (tests/integration/slowpath_guest.sh).
# Audit is never enabled on the host: (c) runs while the test holds a lock of
# its own that tracetax takes, so that a tracetax without the refusal stops at
# that lock (exit 2, another line) before any cell.
# TT_SLOWPATH_PARTS=bc runs those parts alone (default abcd).
. "$(dirname "$0")/lib.sh"
need_root
PARTS=${TT_SLOWPATH_PARTS:-abcd}
part() { case $PARTS in *"$1"*) return 0 ;; esac; return 1; }
[ -r /sys/kernel/btf/vmlinux ] || skip "no kernel BTF: the probe says unknown here"
[ -n "${TRACETAX_VM:-}" ] && skip "in a guest: this test boots its own"
TR=/sys/kernel/tracing
INST=tt-slowpath-$$
HOLDER=
ATTACH=
cleanup() {
	[ -n "$ATTACH" ] && kill "$ATTACH" 2>/dev/null
	if [ -d "$TR/instances/$INST" ]; then
		echo 0 >"$TR/instances/$INST/events/syscalls/sys_enter_getuid/enable"
		rmdir "$TR/instances/$INST"
	fi
	[ -n "$HOLDER" ] && kill "$HOLDER" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The machine's lock (base/lock.h): held by the test while its instance
# exists, so that no other measurement runs beside it; tracetax's own runs
# then take a lock file of the test's.
if [ -n "${TRACETAX_LOCK:-}" ]; then LOCK=$TRACETAX_LOCK
elif [ -d /run/lock ] && [ -w /run/lock ] && [ "$(stat -c %a /run/lock)" = 1777 ]; then
	LOCK=/run/lock/tracetax.lock
else LOCK=/dev/shm/tracetax.lock; fi
residue=
if part a || part b; then
[ -e "$LOCK" ] || : >>"$LOCK"
exec 9<"$LOCK"
flock -w "$TRACETAX_WAIT" 9 || fail "the machine's lock ($LOCK) was not free in $TRACETAX_WAIT s"
fi

short() {  # short NAME: a short run; its exit code
	TRACETAX_LOCK=$TMP/run.lock "$TT" run -t none -w getpid -r 2 --run-ms 5 --no-store \
		--color never --json "$TMP/$1.json" >"$TMP/$1.out" 2>"$TMP/$1.err"
}

# (a) nothing there: nothing said
if part a; then
short clean; rc=$?
[ "$rc" = 0 ] || [ "$rc" = 3 ] || fail "(a) run exited $rc: $(cat "$TMP/clean.err")"
python3 tests/validate_json.py "$TMP/clean.json" || fail "(a) the document is not valid"
residue=$(json_get "$TMP/clean.json" '" ".join((d.get("syscall_slow_path") or {}).get("causes") or [])')
if grep -q 'slow path' "$TMP/clean.out"; then
	# the one cause a test cannot rule out from outside: this boot enabled audit earlier
	[ "$residue" = audit ] || fail "(a) a slow path named on a box where none was set up: $(grep 'slow path' "$TMP/clean.out")"
	echo "(a) this boot carries the audit residue already: $(grep 'slow path' "$TMP/clean.out")"
else
	json_get "$TMP/clean.json" '"syscall_slow_path" in d' | grep -qx False ||
		fail "(a) no line, yet the document has syscall_slow_path"
	echo "(a) nothing said, nothing written"
fi
fi

# (b) a syscall tracepoint of our own, in our instance: every task on the slow path
if part b; then
mkdir "$TR/instances/$INST" || fail "cannot make a tracefs instance"
echo 1 >"$TR/instances/$INST/events/syscalls/sys_enter_getuid/enable" ||
	fail "cannot enable syscalls:sys_enter_getuid"
short tp; rc=$?
echo 0 >"$TR/instances/$INST/events/syscalls/sys_enter_getuid/enable"
rmdir "$TR/instances/$INST" || fail "cannot remove the instance"
[ "$rc" = 0 ] || [ "$rc" = 3 ] || fail "(b) run exited $rc: $(cat "$TMP/tp.err")"
python3 tests/validate_json.py "$TMP/tp.json" || fail "(b) the document is not valid"
line=$(grep 'syscall slow path' "$TMP/tp.out")
[ "$(grep -c 'syscall slow path' "$TMP/tp.out")" = 1 ] || fail "(b) not one slow path line: $(cat "$TMP/tp.out")"
case $line in
"syscall slow path: every new task takes it ("*"a syscall tracepoint is enabled: syscalls:sys_enter_getuid in instance $INST"*"); a fresh process's getpid "*" ns"*"; a syscall hook's cost below is marginal to it") ;;
*) fail "(b) the header does not name the tracepoint: $line" ;;
esac
python3 - "$TMP/tp.json" "$INST" "$residue" <<'PY' || fail "(b) the document's syscall_slow_path is wrong"
import json, sys
s = json.load(open(sys.argv[1])).get("syscall_slow_path")
want = ["audit", "syscall_tracepoint"] if sys.argv[3] == "audit" else ["syscall_tracepoint"]
bad = []
if not s:
    bad.append("no syscall_slow_path")
else:
    if s["causes"] != want:
        bad.append("causes %r, want %r" % (s["causes"], want))
    if "syscalls:sys_enter_getuid in instance " + sys.argv[2] not in (s["tracepoints"] or ""):
        bad.append("tracepoints %r" % s["tracepoints"])
    if not isinstance(s["getpid_ns"], (int, float)) or s["getpid_ns"] <= 0:
        bad.append("getpid_ns %r" % s["getpid_ns"])
    if s["unknown"] is not None or s["audit_enabled"] != 0:
        bad.append("unknown %r, audit_enabled %r" % (s["unknown"], s["audit_enabled"]))
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
PY
[ -d "$TR/instances/$INST" ] && fail "(b) the instance is still there"
echo "(b) $line"
# and a BPF program on that tracepoint, named with its holder
if [ -x "$B/tests/tt-attach" ]; then
	"$B/tests/tt-attach" syscalls:sys_enter_getuid 0 >"$TMP/attach" 2>&1 &
	ATTACH=$!
	for _ in $(seq 100); do grep -q '^attached' "$TMP/attach" && break; sleep 0.1; done
	id=$(sed -n 's/^attached \([0-9]*\).*/\1/p' "$TMP/attach")
	[ -n "$id" ] || { kill "$ATTACH"; fail "(b) tt-attach did not attach: $(cat "$TMP/attach")"; }
	short bpf; rc=$?
	kill "$ATTACH"
	wait "$ATTACH"
	ATTACH=
	[ "$rc" = 0 ] || [ "$rc" = 3 ] || fail "(b) run beside tt-attach exited $rc: $(cat "$TMP/bpf.err")"
	line=$(grep 'syscall slow path' "$TMP/bpf.out")
	case $line in
	*"a syscall tracepoint is enabled: sys_enter_getuid by bpf prog $id 'tt_attach_tp' (tt-attach "[1-9]*")); a fresh process's getpid "*) ;;
	*) fail "(b) the header does not name tt-attach's program $id: $line" ;;
	esac
	echo "(b) $line"
fi
fi
if part a || part b; then
	flock -u 9
	exec 9<&-
fi

# (c) the refusal, with audit off and nobody's
if ! part c; then
	:
elif ! command -v auditctl >/dev/null; then
	echo "(c) not checked: no auditctl (Debian: auditd)"
elif [ "$residue" = audit ]; then
	echo "(c) not checked: this boot has enabled audit already, there is nothing to refuse"
else
	st=$(auditctl -s) || fail "(c) auditctl -s: $st"
	echo "$st" | grep -qx 'enabled 0' && echo "$st" | grep -qx 'pid 0' &&
		[ "$(auditctl -l)" = "No rules" ] ||
		fail "(c) audit is not off and nobody's here, yet (a) saw no residue: $st $(auditctl -l)"
	: >"$TMP/held.lock"
	flock "$TMP/held.lock" sleep 600 &
	HOLDER=$!
	for _ in $(seq 50); do flock -n "$TMP/held.lock" true || break; sleep 0.1; done
	refused() {  # refused WHAT TRACER CMD...: one line, exit 2, and audit as it was
		local what=$1 tracer=$2 rc
		shift 2
		TRACETAX_LOCK=$TMP/held.lock "$TT" "$@" --no-wait >"$TMP/c.out" 2>"$TMP/c.err"
		rc=$?
		[ "$rc" = 2 ] || fail "(c) $what: exit $rc, want 2: $(cat "$TMP/c.err")"
		# an experiment introduces itself on stdout first
		[ "$(wc -l <"$TMP/c.err")" = 1 ] && { [ ! -s "$TMP/c.out" ] || [ "$1" = experiment ]; } ||
			fail "(c) $what: not one line: $(cat "$TMP/c.out" "$TMP/c.err")"
		grep -qE "^tracetax: '$tracer' would leave every process started until reboot on the syscall audit slow path: this boot has never enabled audit, and a fresh process's getpid takes [1-9][0-9]* ns now; pass --accept-audit-residue, or run it in a guest \(--kernel\)\$" "$TMP/c.err" ||
			fail "(c) $what: not the refusal: $(cat "$TMP/c.err")"
		[ "$(auditctl -s | sed -n 's/^enabled //p')" = 0 ] && [ "$(auditctl -l)" = "No rules" ] ||
			fail "(c) $what: audit changed: $(auditctl -s | head -1), $(auditctl -l)"
		echo "(c) $what: $(cat "$TMP/c.err")"
	}
	refused run audit:enabled run -t audit:enabled -w getpid -r 2 --no-store
	refused "run 'audit:*'" audit:enabled run -t 'audit:*' -w getpid -r 2 --no-store
	refused rate audit:rule/async rate
	refused "budget --measure" 'audit:nomatch(/1)?' budget -t audit:nomatch --measure --no-store
	refused "experiment audit" audit:enabled experiment run audit --no-store
	kill "$HOLDER"
	HOLDER=
	# the flag is taken (a dry run touches nothing), and no refusal without audit cells
	"$TT" run -t audit:enabled --accept-audit-residue --dry-run >"$TMP/d.out" 2>&1 ||
		fail "(c) --accept-audit-residue --dry-run: $(cat "$TMP/d.out")"
fi

# (d) the residue itself, in a guest of Debian's kernel
part d || exit 0
if [ "$(uname -m)" != x86_64 ] || ! command -v qemu-system-x86_64 >/dev/null || [ ! -x /bin/busybox ]; then
	echo "(d) not checked: no x86_64 qemu or busybox for a guest"
	exit 0
fi
K=$(scripts/debian-kernel.sh "$B/kernel" 2>"$TMP/dk.err" | tail -n 1)
if [ ! -f "$K" ]; then
	echo "(d) not checked: no Debian kernel: $(tail -n 1 "$TMP/dk.err")"
	exit 0
fi
TRACETAX_VM_ACCEL=${TRACETAX_VM_ACCEL:-tcg} "$TT" vm --kernel "$K" -- \
	env TRACETAX_BUILD="$B" bash tests/integration/slowpath_guest.sh >"$TMP/g.out" 2>"$TMP/g.err"
rc=$?
cat "$TMP/g.out"
[ "$rc" = 0 ] || fail "(d) the guest exited $rc: $(tail -n 5 "$TMP/g.err")"
g() { sed -n "s/^$1: //p" "$TMP/g.out"; }
[ "$(g 'audit before')" = 0 ] || fail "(d) the guest's audit was on at boot"
[ "$(g 'fresh lines')" = 0 ] && [ "$(g 'fresh doc')" = null ] ||
	fail "(d) a fresh guest's run names a slow path: $(g 'fresh line')"
case $(g 'audit rc') in 0|3) ;; *) fail "(d) the audit cell in the guest: $(g 'audit rc'): $(g 'audit err')" ;; esac
[ "$(g 'audit after')" = "0 rules: No rules" ] || fail "(d) audit not put back: $(g 'audit after')"
case $(g 'residue line') in
"syscall slow path: every new task takes it (audit: this boot has enabled audit, off now); a fresh process's getpid "*" ns, "*" ns with -a never,task; a syscall hook's cost below is marginal to it") ;;
*) fail "(d) the residue is not named: $(g 'residue line')" ;;
esac
[ "$(g 'residue lines')" = 1 ] || fail "(d) the residue said $(g 'residue lines') times"
python3 - "$(g 'residue doc')" <<'PY' || fail "(d) the residue's document is wrong: $(g 'residue doc')"
import json, sys
s = json.loads(sys.argv[1])
ok = (s["causes"] == ["audit"] and s["audit_enabled"] == 0 and s["unknown"] is None
      and s["getpid_ns"] > 0 and s["never_task_getpid_ns"] > 0)
sys.exit(0 if ok else 1)
PY
[ "$(g 'never lines')" = 0 ] || fail "(d) with -a never,task loaded, a slow path is still named: $(g 'never line')"
[ "$(g 'rules at the end')" = "No rules" ] || fail "(d) the guest's rule was left: $(g 'rules at the end')"
echo "(d) $(g 'residue line')"
