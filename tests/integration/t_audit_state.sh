# The box's audit, as far as it is still tracetax's (issue 35): after a
# tracetax SIGKILLed in an audit cell, the next plain run puts back only
# what still holds what tracetax set, and nothing once audit is someone's
# (the rules flushed and -e 1, as auditd.service does: audit stays on, and
# the run says what it found) or immutable (-e 2: said once, no run fails
# for it); a box with failure 2 (panic on a lost record) has failure 1
# while tracetax measures; the box's own `-a never,task` (tracetax's
# advice) does not make the cells skip, and stays; an audit:rules cell
# names the rule set the kernel holds (-A first), and none when rules were
# refused. Audit is enabled here: in a guest of `tracetax vm` only.
if [ -z "${TRACETAX_VM:-}" ] && [ "${TRACETAX_TEST_HOST_AUDIT:-0}" != 1 ] &&
	! grep -q TRACETAX_TEST_HOST_AUDIT "$(dirname "$0")/audit_lib.sh"; then
	echo "audit enabled on this host leaves every later syscall slower until reboot: run it in a guest (tracetax vm --kernel IMAGE -- bash $0)"
	exit 77
fi
. "$(dirname "$0")/audit_lib.sh"

# a tracetax SIGKILLed while its @1 cell has audit on and its rules loaded; its pid in $tt
killed_in_cell() {
	"$TT" run -q -w getpid -t "$1" --reps 8 --run-ms 100 --no-store >"$TMP/k.out" 2>&1 &
	tt=$!
	for _ in $(seq 600); do
		kill -0 "$tt" 2>/dev/null || break
		if auditctl -s | grep -qx 'enabled 1' && auditctl -l | grep -q "tracetax-$tt"; then
			kill -9 "$tt"
			break
		fi
		sleep 0.05
	done
	wait "$tt" 2>/dev/null
	[ -e "/run/tracetax-audit-$tt.state" ] || fail "$1: not killed in a cell: $(cat "$TMP/k.out")"
}

# a plain run: it goes through, and what it says of audit in $TMP/p.err
plain() {
	"$TT" run -q -w getpid -t none --reps 2 --run-ms 20 --no-store >"$TMP/p.out" 2>"$TMP/p.err"
	ran $? || fail "$1: the plain run failed: $(cat "$TMP/p.err")"
	[ -e "/run/tracetax-audit-$tt.state" ] && fail "$1: the state file stays"
	true
}

# 1. nothing foreign since: everything back
killed_in_cell audit:nomatch
plain "killed, nothing since"
same_state "killed in audit:nomatch, then a plain run"

# 1. killed between saving a new backlog limit and setting it (TRACETAX_FAULT):
# the kernel holds tracetax's earlier limit, which the file still calls its
# own, so the next run puts the box's back and says nothing
TRACETAX_FAULT=audit:rule/async@backlog-kill "$TT" run -q -w getpid -t audit:rule/async -n 5000 \
	--reps 2 --no-store >"$TMP/k.out" 2>&1 &
tt=$!
wait "$tt"
rc=$?
[ "$rc" = 137 ] || fail "backlog-kill: exit $rc, want 137 (SIGKILL): $(cat "$TMP/k.out")"
[ -e "/run/tracetax-audit-$tt.state" ] || fail "backlog-kill: no state file left by the kill"
grep -q '^set_was_backlog_limit ' "/run/tracetax-audit-$tt.state" ||
	fail "backlog-kill: the limit it replaces not in the state file: $(cat "/run/tracetax-audit-$tt.state")"
plain "killed between the backlog's save and its set"
grep -q 'left as someone set it' "$TMP/p.err" &&
	fail "backlog-kill: tracetax's own limit taken for someone's: $(cat "$TMP/p.err")"
same_state "killed between the backlog's save and its set"

# 1. killed in the teardown's restore, once its rules are deleted: the marker
# rule goes last, so the next run still knows audit is tracetax's and puts
# it back (the marker went first once: a kill there left enabled 1 and
# tracetax's backlog, "flushed by someone")
TRACETAX_FAULT=audit:nomatch/1@restore-kill "$TT" run -q -w getpid -t audit:nomatch --reps 2 --run-ms 50 \
	--no-store >"$TMP/k.out" 2>&1 &
tt=$!
wait "$tt"
rc=$?
[ "$rc" = 137 ] || fail "restore-kill: exit $rc, want 137 (SIGKILL): $(cat "$TMP/k.out")"
auditctl -s | grep -qx 'enabled 1' || fail "restore-kill: not killed with audit on: $(auditctl -s)"
plain "killed in the teardown's restore"
grep -q 'warning: audit' "$TMP/p.err" && fail "restore-kill: $(cat "$TMP/p.err")"
same_state "killed in the teardown's restore"

# 1. the rules flushed and audit switched on, as auditd.service does: left on, and said
killed_in_cell audit:nomatch
auditctl -D >/dev/null && auditctl -e 1 >/dev/null
plain "killed, then -D and -e 1"
auditctl -s | grep -qx 'enabled 1' || fail "-D, -e 1: the run switched audit off: $(auditctl -s)"
grep -q "^tracetax: warning: audit left as it is, the rules tracetax loaded are gone .*: enabled 1" "$TMP/p.err" ||
	fail "-D, -e 1: the run does not say what it found: $(cat "$TMP/p.err")"
[ -z "$(auditctl -l | grep tracetax)" ] || fail "-D, -e 1: rules of tracetax left: $(auditctl -l)"
echo "killed, then -D and -e 1: audit left on; $(grep warning "$TMP/p.err")"
# as the admin would: off again, and what tracetax left (its backlog) is the box's now
auditctl -e 0 >/dev/null
BEFORE=$(state)

# 1. one field someone set since: that one left, said; the others back
killed_in_cell audit:enabled
auditctl -r 7 >/dev/null
plain "killed, then -r 7"
grep -q "left as someone set it .*: rate_limit 7 (tracetax set 0, the box had 0)" "$TMP/p.err" ||
	fail "-r 7: not said: $(cat "$TMP/p.err")"
auditctl -s | grep -qx 'enabled 0' || fail "-r 7: enabled not put back: $(auditctl -s)"
auditctl -r 0 >/dev/null
same_state "killed, then -r 7 (put back by hand)"

# 2. failure 2 (panic on a lost record): 1 while tracetax measures, 2 again after
auditctl -f 2 >/dev/null
BEFORE=$(state)
"$TT" run -q -w getpid -t audit:enabled --reps 2 --run-ms 50 --no-store >"$TMP/f.out" 2>&1 &
tt=$!
seen=
while kill -0 "$tt" 2>/dev/null; do
	s=$(auditctl -s)
	echo "$s" | grep -qx 'enabled 1' && seen="$seen $(echo "$s" | sed -n 's/^failure //p')"
	sleep 0.05
done
wait "$tt"
ran $? || fail "failure 2: the run failed: $(cat "$TMP/f.out")"
[ -n "$seen" ] || fail "failure 2: audit never seen on during the run"
case " $seen " in *" 2 "*) fail "failure 2 kept while measuring:$seen" ;; esac
same_state "failure 2: 1 while measuring (seen:$(echo $seen | tr ' ' '\n' | sort -u | tr '\n' ' '))"
auditctl -f 1 >/dev/null

# 3. the box's own -a never,task: the cells run (records and all), the rule stays
auditctl -a never,task >/dev/null
BEFORE=$(state)
"$TT" run -q -w getpid -t audit:rule/async --reps 2 --run-ms 50 --no-store --json "$TMP/n.json" \
	>"$TMP/n.out" 2>&1
ran $? || fail "-a never,task: $(cat "$TMP/n.out")"
audit_runs_ok "$TMP/n.json" || fail "-a never,task: the cell did not measure"
same_state "the box's -a never,task: audit:rule measured, the rule kept"
auditctl -D >/dev/null
BEFORE=$(state)

# 5. the rule set is what the kernel holds: -A first in its list, as the
# same rules in that order; none recorded when rules were refused
printf -- '-a always,exit -F arch=b64 -S unlink -k x\n-A always,exit -F arch=b64 -S getuid -k y\n' >"$TMP/a.rules"
printf -- '-a always,exit -F arch=b64 -S getuid\n-a always,exit -F arch=b64 -S unlink\n' >"$TMP/b.rules"
printf -- '-a always,exit -F arch=b64 -S getuid\n-a always,exit -F dir=/nonexistent/tt -F perm=w\n' >"$TMP/c.rules"
for f in a b c; do
	"$TT" run -q -w getpid -t audit:rules --audit-rules "$TMP/$f.rules" --reps 2 --run-ms 30 \
		--no-store --json "$TMP/$f.json" >"$TMP/$f.out" 2>&1
	ran $? || fail "$f.rules: $(cat "$TMP/$f.out")"
done
da=$(json_get "$TMP/a.json" 'd["cells"][0]["audit_rules"]["digest"]')
db=$(json_get "$TMP/b.json" 'd["cells"][0]["audit_rules"]["digest"]')
[ "$da" = "$db" ] || fail "-A: rule set $da, not the $db of the same rules in the kernel's order"
[ "$(json_get "$TMP/c.json" '"audit_rules" in d["cells"][0]')" = False ] ||
	fail "a refused rule: a rule set recorded: $(json_get "$TMP/c.json" 'd["cells"][0]["audit_rules"]')"
grep -q "1 refused: not the file's rule set" "$TMP/c.json" || fail "a refused rule: not said"
same_state "audit:rules: -A in the kernel's order ($da), no rule set with a refused rule"

# 1. immutable since (-e 2): said once, no run fails for it; last: nothing changes after it,
# and an audit test after this one in the same guest skips
killed_in_cell audit:nomatch
auditctl -e 2 >/dev/null
plain "killed, then -e 2"
grep -q "audit is immutable now (-e 2)" "$TMP/p.err" || fail "-e 2: not said: $(cat "$TMP/p.err")"
plain "-e 2, a second run"
grep -q "immutable" "$TMP/p.err" && fail "-e 2: said again: $(cat "$TMP/p.err")"
echo "killed, then -e 2: said once, the runs go on"
echo ok
