# compare flags a cell's hits by the rule run's note uses (results_hits_ok):
# every event on the workload's own syscall, none on a --target it does not
# make (collateral), nothing to check on a tracepoint --target. compare once
# had its own copy, which flagged every tracepoint-target cell ("(A: hits
# 6027 of 6024 events)" beside a cell run called correct).
. "$(dirname "$0")/lib.sh"

python3 - "$TMP" <<'PY' || fail "cannot make the documents"
import json, sys
d = json.load(open("tests/fixtures/docs/small.json"))
want = {  # (tracer, workload): (target, hits); events are 9900
    ("bpf:tp/count", "getpid"): ("raw_syscalls:sys_enter", 9903),   # tracepoint: any
    ("ftrace:syscall/noread", "getpid"): ("close", 0),              # collateral, right
    ("bpf:tp/count", "close"): ("close", 9899),                     # own, one missed
    ("ftrace:syscall/noread", "close"): ("getpid", 5),              # collateral, 5 seen
}
for c in d["cells"]:
    t = want.get((c["tracer"], c["workload"]))
    if t:
        c["target"], c["hits"] = t
json.dump(d, open(sys.argv[1] + "/a.json", "w"), indent=1)
PY
python3 tests/validate_json.py "$TMP/a.json" || fail "the synthetic document is not valid"
"$TT" compare "$TMP/a.json" "$TMP/a.json" >"$TMP/out" 2>"$TMP/err" ||
	fail "compare exited $?: $(cat "$TMP/err")"
flagged() { grep "^$1  *$2 " "$TMP/out" | grep -c "(A: hits $3 of 9900 events)  (B: hits $3 of 9900 events)"; }
[ "$(flagged bpf:tp/count getpid 9903)" = 0 ] ||
	fail "a tracepoint --target cell flagged, run does not check it: $(cat "$TMP/out")"
[ "$(flagged ftrace:syscall/noread getpid 0)" = 0 ] ||
	fail "a collateral cell with 0 hits flagged: $(cat "$TMP/out")"
[ "$(flagged bpf:tp/count close 9899)" = 1 ] ||
	fail "a cell that missed an event of its own syscall not flagged: $(cat "$TMP/out")"
[ "$(flagged ftrace:syscall/noread close 5)" = 1 ] ||
	fail "a collateral cell that saw 5 events not flagged: $(cat "$TMP/out")"
[ "$(grep -c '(A: hits' "$TMP/out")" = 2 ] || fail "want 2 flagged rows: $(cat "$TMP/out")"

# A real run with a tracepoint --target: compare agrees with run's note.
need_root
available 'bpf:tp/count' | grep -q . || skip "no bpf:tp/count here (the synthetic part passed)"
"$TT" run -q -w getpid -t none,bpf:tp/count --target raw_syscalls:sys_enter --reps 2 \
	--run-ms 30 --json "$TMP/r.json" >"$TMP/run" 2>&1 || fail "run failed: $(cat "$TMP/run")"
[ "$(json_get "$TMP/r.json" '[c["status"] for c in d["cells"]]')" = "['ok', 'ok']" ] ||
	fail "the run's cells did not measure: $(cat "$TMP/run")"
note=$(json_get "$TMP/r.json" 'd["cells"][1]["note"] or ""')
case $note in *hits*) fail "run flagged a tracepoint --target cell: $note" ;; esac
"$TT" compare "$TMP/r.json" "$TMP/r.json" >"$TMP/out" 2>"$TMP/err" ||
	fail "compare exited $?: $(cat "$TMP/err")"
! grep -q '(A: hits' "$TMP/out" || fail "compare flagged what run did not: $(cat "$TMP/out")"
assert_clean
