# What the audit tests share (sourced by tests/integration/t_audit*.sh):
# where they run, the skips that keep the box's own audit untouched, and the
# state compared before and after every path (`auditctl -s` but its
# counters, `auditctl -l`).
. "$(dirname "$0")/lib.sh"
need_root

# Where: never on this host unless asked. Once audit has been enabled on a
# boot, every process forked afterwards takes the syscall slow path until
# reboot (the kernel's audit_ever_enabled: about 95 ns more a syscall on
# a 2-vCPU VM), and every later measurement on the box pays it. So a test
# re-executes itself in a VM of Debian's kernel (`tracetax vm`, TCG: as
# t_vm.sh finds it), where the residue dies with the guest; it skips where
# no VM can boot. TRACETAX_TEST_HOST_AUDIT=1 (make check-audit-host) runs
# it here, and says what it leaves.
IN_VM=${TRACETAX_VM:+1}
IN_VM=${IN_VM:-0}
if [ "$IN_VM" = 0 ] && [ "${TRACETAX_TEST_HOST_AUDIT:-0}" != 1 ]; then
	bash "$(dirname "$0")/in_vm.sh" bash "$0"
	exit $?
fi
if [ "$IN_VM" = 0 ]; then
	echo "note: on this host (TRACETAX_TEST_HOST_AUDIT=1): audit enabled once leaves every process forked afterwards on the syscall audit slow path until reboot (audit_ever_enabled), whatever the audit state is put back to"
	# the host's audit cells ask for that consent (--accept-audit-residue),
	# where this tracetax knows the flag: TT becomes tracetax with it
	flagged=
	for c in run rate budget experiment; do
		"$TT" "$c" --help 2>/dev/null | grep -q -- --accept-audit-residue && flagged="$flagged $c"
	done
	if [ -n "$flagged" ]; then
		real=$(readlink -f "$TT")
		mkdir -p "$TMP/tt"
		cat >"$TMP/tt/tracetax" <<SH
#!/bin/bash
# $real, with --accept-audit-residue for:$flagged
case " $flagged " in *" \$1 "*)
	if [ "\$1" = experiment ] && [ "\${2:-}" = run ] && [ \$# -ge 3 ]; then
		set -- "\$1" "\$2" "\$3" --accept-audit-residue "\${@:4}"
	elif [ "\$1" != experiment ]; then
		set -- "\$1" --accept-audit-residue "\${@:2}"
	fi ;;
esac
exec "$real" "\$@"
SH
		chmod +x "$TMP/tt/tracetax"
		TT=$TMP/tt/tracetax
	fi
fi
command -v auditctl >/dev/null && command -v auditd >/dev/null ||
	skip "needs auditd (Debian: auditd)"
status=$(auditctl -s) || skip "auditctl -s fails here: $status"
pid=$(echo "$status" | sed -n 's/^pid //p')
# The box's own audit is never touched: its auditd is not stopped for a test.
[ "${pid:-0}" = 0 ] || skip "an auditd (pid $pid) is registered: the audit cells skip by design, and this test leaves the box's auditd alone"
echo "$status" | grep -qx 'enabled 2' && skip "audit is immutable (-e 2) until reboot"
[ "$(auditctl -l)" = "No rules" ] || skip "the box has audit rules loaded: the audit cells skip by design"

# The state: all but the counters (lost, backlog, backlog_wait_time_actual).
state() {
	auditctl -s | grep -E '^(enabled|failure|pid|rate_limit|backlog_limit|backlog_wait_time|loginuid_immutable) '
	auditctl -l
}
BEFORE=$(state)
RULES=/usr/share/doc/auditd/examples/rules
STIG=$RULES/30-stig.rules
[ -r "$STIG" ] || skip "no '$STIG' (Debian's auditd ships it)"

# A run that went through: 0, or 3 when another engineer's tracing disturbed it.
ran() { [ "$1" = 0 ] || [ "$1" = 3 ]; }

same_state() {  # same_state WHAT: the state is BEFORE's, no auditd or state file of ours left
	local now
	now=$(state)
	if [ "$now" != "$BEFORE" ]; then
		echo "$BEFORE" >"$TMP/state.before"
		echo "$now" >"$TMP/state.now"
		fail "$1: audit state changed: $(diff "$TMP/state.before" "$TMP/state.now" | tr '\n' ' ')"
	fi
	pgrep -a -x auditd | grep -q 'tt-tool-' && fail "$1: auditd left: $(pgrep -a -x auditd)"
	ls /run/tracetax-audit-*.state 2>/dev/null | while read -r f; do
		p=${f#/run/tracetax-audit-}; p=${p%.state}
		kill -0 "$p" 2>/dev/null || fail "$1: saved state left: $f"
	done || exit 1
	# assert_clean's other checks are tracefs' and BPF's, which audit cells do not
	# touch (and which other tracetax runs on a shared machine race with)
	left=$(tool_dead $(ls "${TMPDIR:-/tmp}" | grep '^tt-tool-'))
	[ -z "$left" ] || fail "$1: tool directory left: $left"
	for p in $(pgrep -x tracetax; pgrep -x tracetax-load); do
		case $(readlink /proc/"$p"/exe) in "$(readlink -f "$B")"/*)
			fail "$1: process left: $(ps -o pid,args -p "$p" | tail -1)" ;;
		esac
	done
	echo "$1: audit state as before"
}

# The test's background processes, by pid (pids+=($!)); stop_pids kills and
# reaps them and empties the list. audit_cleanup is the EXIT trap of a test
# that loads rules of key $KEY: its processes, its rules, enabled back to
# $enabled (the box's, read here), its directory.
pids=()
enabled=$(echo "$status" | sed -n 's/^enabled //p')
stop_pids() {
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
	pids=()
}
audit_cleanup() {
	stop_pids
	auditctl -D -k "$KEY" >/dev/null 2>&1
	auditctl -e "$enabled" >/dev/null 2>&1
	rm -rf "$TMP"
}

# hold_machine_lock: the machine's tracetax lock (src/base/lock.c's choice)
# on fd 9 while a test's own rules are loaded, so that no other measurement
# sees them (its own tracetax then takes TRACETAX_LOCK=$TMP/inner.lock);
# the box's audit as before, checked again under it. `exec 9>&-` drops it.
hold_machine_lock() {
	local lockf=${TRACETAX_LOCK:-/run/lock/tracetax.lock}
	[ -n "${TRACETAX_LOCK:-}" ] || [ "$(stat -c %a /run/lock 2>/dev/null)" = 1777 ] ||
		lockf=/dev/shm/tracetax.lock
	exec 9>>"$lockf" || fail "cannot open the lock file '$lockf'"
	flock -w "$TRACETAX_WAIT" 9 || fail "the machine's lock '$lockf' stayed held"
	[ "$(state)" = "$BEFORE" ] ||
		skip "another run changed the box's audit meanwhile: $(state | tr '\n' ' ')"
}

# audit_runs_ok DOC...: every cell of the results documents ok; every run of
# audit:rule's with its records exactly the calls (hits == events) and auditd's
# and kauditd's CPU (kauditd sends every record to auditd: its CPU, apart from
# auditd's); audit:enabled's and audit:nomatch's runs without hits (they record
# nothing); an audit:rule run at all. A FAIL: line each; 1 if any.
audit_runs_ok() {
	python3 - "$@" <<'PY'
import json, sys
bad, rule = [], 0
for path in sys.argv[1:]:
    for c in json.load(open(path))["cells"]:
        name = "%s %s" % (c["tracer"], c["workload"])
        if c["status"] != "ok":
            bad.append("%s: %s: %s" % (name, c["status"], c["reason"]))
            continue
        for i, r in enumerate(c["runs"]):
            if c["tracer"].startswith("audit:rule/"):
                rule += 1
                if r["hits"] != r["events"]:
                    bad.append("%s run %d: hits %s != events %s" % (name, i, r["hits"], r["events"]))
                if not r["consumer_ns"] > 0:
                    bad.append("%s run %d: no auditd CPU time (consumer_ns %s)"
                               % (name, i, r["consumer_ns"]))
                if not (r.get("kernel_consumer_ns") or 0) > 0:
                    bad.append("%s run %d: no kauditd CPU time (kernel_consumer_ns %s)"
                               % (name, i, r.get("kernel_consumer_ns")))
            elif c["tracer"].startswith(("audit:enabled", "audit:nomatch")) and r["hits"] is not None:
                bad.append("%s claims %s hits, but records nothing" % (name, r["hits"]))
if rule == 0:
    bad.append("no audit:rule run")
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
PY
}
