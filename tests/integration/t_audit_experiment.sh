# tracetax experiment run audit, short (test-only: --reps 2 --run-ms 20 -n 500):
# every cell of its plan measured, the claims table with a figure on each of
# its rows, audit:rule's records exactly the calls in every run with auditd's
# and kauditd's CPU, the documents valid, and the box's audit state as before.
# t_experiment cannot run it: it runs early, and audit changes what every
# process forked afterwards pays; this runs last (tests/run.sh), as t_audit.
. "$(dirname "$0")/audit_lib.sh"

"$TT" experiment show audit >"$TMP/show" 2>&1 || fail "experiment show audit: $(cat "$TMP/show")"
nclaims=$(grep -c '^claim: ' "$TMP/show")
[ "$nclaims" -ge 6 ] || fail "experiment show audit: $nclaims claims, want 6 or more"
"$TT" experiment run audit --reps 2 --run-ms 20 -n 500 --no-store --json "$TMP/a.json" \
	>"$TMP/out" 2>"$TMP/err"
ran $? || fail "experiment run audit: exit $?: $(tail -5 "$TMP/err")"
same_state "experiment run audit"
for j in "$TMP/a.json"*; do
	python3 tests/validate_json.py "$j" >/dev/null || fail "document $j invalid"
done
python3 - "$TMP/out" "$nclaims" "$TMP/a.json" "$TMP/a.json.program" <<'PY' || fail "$(cat "$TMP/out")"
import json, sys
out, n = open(sys.argv[1]).read().split("\n"), int(sys.argv[2])
bad = []
if "claims" not in out:
    bad.append("no claims table")
else:
    rows = out[out.index("claims") + 2:]
    got = [rows[i + 1] for i in range(0, 2 * n, 2) if i + 1 < len(rows)]
    today = [r for r in got if r.startswith("    today: ")]
    if len(today) != n:
        bad.append("%d of %d claims with a figure:\n%s" % (len(today), n, "\n".join(rows)))
syscalls, program = json.load(open(sys.argv[3])), json.load(open(sys.argv[4]))
want = {"none", "audit:enabled", "audit:rule/async", "audit:rule/incremental", "audit:rule/sync",
        "audit:rule/none", "audit:rules"} | {"audit:nomatch/%d" % k for k in (1, 10, 25, 50, 100)}
for w in ("getpid", "stat"):
    have = {c["tracer"] for c in syscalls["cells"] if c["workload"] == w}
    if have != want:
        bad.append("%s: cells %s, want %s" % (w, sorted(have), sorted(want)))
if {c["tracer"] for c in program["cells"]} != {"none", "audit:enabled", "audit:nomatch/1",
                                              "audit:nomatch/100", "audit:rules"}:
    bad.append("program cells %s" % sorted(c["tracer"] for c in program["cells"]))
cl = syscalls.get("claims") or []
if len(cl) != n or any(c["today"] is None or c["ratio"] is None for c in cl):
    bad.append("the document's claims: %s" % cl)
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
PY
audit_runs_ok "$TMP/a.json" "$TMP/a.json.program" || fail "$(cat "$TMP/out")"
echo "experiment run audit: $nclaims claims with figures, audit:rule's records exact"
exit 0
