# tracetax budget --attached with the box's `-a never,task` (tracetax's own
# advice) among the audit rules: a task forked since it was loaded has no
# audit context and walks no rule (the kernel's audit_alloc), while a task
# forked before keeps its context and walks them on every call. Two busy
# getpid loops, one forked before the rule and one after, under a rule on
# getuid: the view says the set holds the never rule, counts the second
# loop's calls as of no audit context (no walk, no record, not priced), the
# first loop's as walked, and the row's note says so. The box's audit
# state is the same after as before.
#
# Runs with t_audit, in a VM (audit_lib.sh): audit turned on leaves its
# residue until reboot.
. "$(dirname "$0")/audit_lib.sh"
N=$B/tests/tt-getpid-n
[ -x "$N" ] || fail "no $N: build it with make"
KEY=tt-never-$$
cleanup() {
	auditctl -d never,task >/dev/null 2>&1
	audit_cleanup
}
trap cleanup EXIT

# the machine's lock while our rules are loaded (audit_lib.sh)
hold_machine_lock

auditctl -e 1 >/dev/null || fail "auditctl -e 1 refused"
auditctl -a always,exit -F arch=b64 -S getuid -k "$KEY" >/dev/null || fail "auditctl -a refused"
"$N" 4000000000 & before=$!; pids+=($before)       # forked with audit on: a context
auditctl -a never,task >/dev/null || fail "auditctl -a never,task refused"
"$N" 4000000000 & after=$!; pids+=($after)         # forked since the never rule: none
sleep 0.2
TRACETAX_LOCK=$TMP/inner.lock "$TT" budget --attached --for 1 --store "$TMP/s.db" --no-store \
	--json "$TMP/a.json" >"$TMP/a.out" 2>&1 || fail "budget --attached: $(cat "$TMP/a.out")"
stop_pids
auditctl -D -k "$KEY" >/dev/null || fail "cannot delete our rule"
auditctl -d never,task >/dev/null || fail "cannot delete the never,task rule"
auditctl -e "$enabled" >/dev/null || fail "cannot set audit back to enabled $enabled"
exec 9>&-
same_state "budget --attached with -a never,task"

python3 tests/validate_json.py "$TMP/a.json" docs/schema.json || fail "a.json: schema"
grep -q "^  no audit context .*-a never,task: tasks forked since it was loaded have none" "$TMP/a.out" ||
	fail "no line on the calls of no audit context: $(cat "$TMP/a.out")"
python3 - "$TMP/a.json" "$before" "$after" <<'PY' || fail "$(cat "$TMP/a.out")"
import json, sys
d, before, after = json.load(open(sys.argv[1])), int(sys.argv[2]), int(sys.argv[3])
[c] = [c for c in d["consumers"] if c["kind"] == "audit"]
assert c["key"] == "audit rules" and c["state"] == "counted", c
assert c["why"] and "-a never,task: tasks forked since it was loaded have no audit context" in c["why"], c
a = d["audit_rules"]
assert a["task_never"] is True, a
calls, none, walk = a["calls_per_s"], a["no_context_per_s"], a["walk_per_s"]
# the two loops make about as many calls each: the one forked since the
# rule is of no context, the one forked before walks the rules
assert none is not None and none > 0.25 * calls, a
assert walk > 0.25 * calls, a
r = a["records_per_s"]
assert abs(walk + r["point"] + none - calls) <= 1e-6 * calls + 1, a
print("audit with -a never,task: %.0f calls/s, %.0f of no audit context (%.0f%%), %.0f walked"
      % (calls, none, 100 * none / calls, walk))
PY
exit 0
