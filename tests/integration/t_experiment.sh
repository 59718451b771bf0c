# tracetax experiment: every shipped plan parses; a broken plan is one line
# naming file:line, exit 2; run --plan takes command-line overrides; each
# experiment, on a short run (test-only: --reps 2 --run-ms 20 -n 2000),
# prints its tables and a claims table whose every row has a figure or the
# reason it has none, and its documents carry the claims.
. "$(dirname "$0")/lib.sh"
need_root

names=$("$TT" experiment list | awk '$1 != "reproduces" { print $1 }')
for e in close-1000 getuid-buffer probe-pair stat-tools tcp-probes; do
	echo "$names" | grep -qx "$e" || fail "experiment list lacks '$e': $names"
	"$TT" experiment show "$e" >"$TMP/show.$e" 2>&1 || fail "experiment show $e: $(cat "$TMP/show.$e")"
	grep -q "^reproduces 00[0-4]_" "$TMP/show.$e" || fail "show $e names no seed"
done

# A plan error: file, line and field, one line, exit 2.
printf 'workloads = getpid\nreps = 2\ntrcers = none\n' >"$TMP/bad.tt"
"$TT" run --plan "$TMP/bad.tt" >"$TMP/out" 2>"$TMP/err"
rc=$?
[ $rc = 2 ] || fail "bad plan: exit $rc, not 2"
[ "$(wc -l <"$TMP/err")" = 1 ] || fail "bad plan: not one line: $(cat "$TMP/err")"
grep -q "bad.tt:3: unknown field 'trcers'" "$TMP/err" || fail "bad plan: $(cat "$TMP/err")"
"$TT" experiment show nosuch >/dev/null 2>"$TMP/err"; rc=$?
[ $rc = 2 ] || fail "unknown experiment: exit $rc"

# run --plan: the file's fields, the command line's over them.
cat >"$TMP/p.tt" <<'P'
workloads = getpid
tracers = none, ptrace:all
reps = 9
[claim]
claim = nothing attached
source = test
was = 10 ns/op
tracer = none
field = base
P
"$TT" run --plan "$TMP/p.tt" --reps 2 -n 2000 -t none --json "$TMP/p.json" >"$TMP/out" 2>&1 ||
	fail "run --plan: $(cat "$TMP/out")"
python3 tests/validate_json.py "$TMP/p.json" >/dev/null || fail "run --plan: document invalid"
python3 - "$TMP/p.json" <<'PY' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))
bad = []
if [c["tracer"] for c in d["cells"]] != ["none"]:
    bad.append("cells %s: -t did not replace the plan's tracers" % [c["tracer"] for c in d["cells"]])
if d["options"]["reps"] != 2:
    bad.append("reps %s, not the command line's 2" % d["options"]["reps"])
cl = d["claims"]
if len(cl) != 1 or cl[0]["today"] is None or cl[0]["ratio"] is None:
    bad.append("claims %s" % cl)
if bad:
    print("FAIL: " + "; ".join(bad)); sys.exit(1)
PY
# --quiet quiets the experiment's header and its command lines too (they
# printed whatever -q said); the table and the claims stay
"$TT" run --plan "$TMP/p.tt" --quiet --reps 2 -n 2000 -t none --no-store >"$TMP/out" 2>"$TMP/err" ||
	fail "run --plan --quiet: $(cat "$TMP/out" "$TMP/err")"
grep -E '^(experiment |reproduces |note: |\[run)' "$TMP/out" "$TMP/err" &&
	fail "run --plan --quiet printed the experiment's header"
grep -q '^none ' "$TMP/out" || fail "run --plan --quiet: no table: $(cat "$TMP/out")"
grep -q 'nothing attached' "$TMP/out" || fail "run --plan --quiet: no claims: $(cat "$TMP/out")"

# Each experiment, short: tables, then a claims row per claim, each with a figure or a reason.
for e in close-1000 getuid-buffer probe-pair stat-tools tcp-probes; do
	"$TT" experiment run "$e" --reps 2 --run-ms 20 -n 2000 --json "$TMP/$e.json" \
		>"$TMP/run.$e" 2>"$TMP/err.$e"
	rc=$?
	# a cell that fails is a failure here too; another tracer meanwhile (3) is not ours
	[ $rc = 0 ] || [ $rc = 3 ] || fail "experiment run $e: exit $rc: $(tail -3 "$TMP/err.$e")"
	nclaims=$(grep -c '^claim: ' "$TMP/show.$e")
	python3 - "$TMP/run.$e" "$nclaims" "$e" <<'PY' || exit 1
import sys
out, n, e = open(sys.argv[1]).read().split("\n"), int(sys.argv[2]), sys.argv[3]
if "claims" not in out:
    print("FAIL: %s: no claims table" % e); sys.exit(1)
rows = out[out.index("claims") + 2:]
got = [rows[i + 1] for i in range(0, 2 * n, 2) if i + 1 < len(rows)]
ok = [r for r in got if r.startswith("    today: ") or r.startswith("    no figure: ")]
if len(ok) != n:
    print("FAIL: %s: %d of %d claims with a figure or a reason:\n%s" % (e, len(ok), n, "\n".join(rows)))
    sys.exit(1)
if not any(l.startswith("tracer ") or l.startswith("storage ") for l in out):
    print("FAIL: %s: no results table" % e); sys.exit(1)
PY
	for j in "$TMP/$e.json"*; do
		head -c1 "$j" | grep -q '{' || continue
		# a pair's document has its own definition in the schema (validate_json.py picks it)
		python3 tests/validate_json.py "$j" || fail "$e: document $j invalid"
		if grep -q '"start_probe"' "$j"; then
			python3 - "$j" <<'PY' || fail "$e: pair document $j: more paired than events"
import json, sys
d = json.load(open(sys.argv[1]))
for c in d["cells"]:
    assert c["status"] != "ok" or c["paired"] <= c["events"], "more paired than events"
PY
		fi
	done
done
assert_clean
