# Outputs: --json - is the document alone on stdout (the table goes to
# stderr, or nowhere with -q); a results path that cannot be written is
# found before the first cell runs (exit 2 within seconds, nothing measured).
. "$(dirname "$0")/lib.sh"

# A bad output path: exit 2 at once, one line, no cell run.
for path in "$TMP/no/such/dir/r.json" "$TMP"; do
	start=$(date +%s%N)
	timeout 20 "$TT" run -t none,ptrace:all --reps 50 --json "$path" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	ms=$(( ($(date +%s%N) - start) / 1000000 ))
	[ "$rc" = 2 ] || fail "--json '$path' exited $rc, want 2: $(cat "$TMP/err")"
	[ "$(wc -l <"$TMP/err")" = 1 ] || fail "--json '$path': want one line: $(cat "$TMP/err")"
	grep -q "^tracetax: cannot write results to '$path'" "$TMP/err" || fail "message: $(cat "$TMP/err")"
	grep -q '\[1/' "$TMP/out" "$TMP/err" && fail "a cell ran before the bad path was found"
	[ "$ms" -lt 3000 ] || fail "the bad path took $ms ms to find"
done
echo "bad paths: exit 2 at once"

need_root
# exit 3: another tracer on this shared machine disturbed a cell; the outputs are whole
ok() { [ "$1" = 0 ] || [ "$1" = 3 ]; }
"$TT" run -t none,bpf:tp/count -n 3000 --reps 2 --json - >"$TMP/doc" 2>"$TMP/err"
rc=$?
ok $rc || fail "--json - exited $rc: $(cat "$TMP/err")"
python3 tests/validate_json.py "$TMP/doc" || fail "stdout is not a valid results document"
grep -q 'bpf:tp/count' "$TMP/err" || fail "the table did not go to stderr: $(cat "$TMP/err")"
"$TT" run -q -t none -n 3000 --reps 2 --json - >"$TMP/doc" 2>"$TMP/err"
rc=$?
ok $rc || fail "-q --json - exited $rc"
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$TMP/doc" || fail "-q --json -: stdout is not JSON"
# (the lock's line, when another measurement holds the machine, is not the table)
grep -v '^tracetax: waiting for another measurement' "$TMP/err" | grep -q . &&
	fail "-q --json - still printed: $(cat "$TMP/err")"

# --csv - and --markdown -: the export alone on stdout, as for --json -;
# the table on stderr, or nowhere with -q (issue 15, defect 10)
for fmt in csv markdown; do
	"$TT" run -t none -n 3000 --reps 2 --"$fmt" - >"$TMP/out" 2>"$TMP/err"
	rc=$?
	ok $rc || fail "--$fmt - exited $rc: $(cat "$TMP/err")"
	grep -q '^tracer  *base ns' "$TMP/out" && fail "--$fmt -: the table is on stdout: $(cat "$TMP/out")"
	grep -q '^tracer  *base ns' "$TMP/err" || fail "--$fmt -: the table is not on stderr: $(cat "$TMP/err")"
	"$TT" export last --format "$fmt" >"$TMP/export" || fail "export last --format $fmt exited $?"
	cmp -s "$TMP/out" "$TMP/export" ||
		fail "--$fmt -: stdout is not the export alone: $(diff "$TMP/out" "$TMP/export" | head -5)"
	"$TT" run -q -t none -n 3000 --reps 2 --"$fmt" - >"$TMP/out" 2>"$TMP/err"
	rc=$?
	ok $rc || fail "-q --$fmt - exited $rc"
	grep -v '^tracetax: waiting for another measurement' "$TMP/err" | grep -q . &&
		fail "-q --$fmt - still printed: $(cat "$TMP/err")"
done
"$TT" run -t none --csv - --markdown - >"$TMP/out" 2>"$TMP/err"
rc=$?
[ "$rc" = 2 ] && [ "$(wc -l <"$TMP/err")" = 1 ] ||
	fail "--csv - --markdown - exited $rc, want 2 and one line: $(cat "$TMP/err")"
echo "--csv - and --markdown -: the export alone on stdout"

# stdout and stderr to one file (make run > log 2>&1): whole lines, in the
# order written. A block-buffered stdout was flushed at exit, 4 KiB at a
# time, so the store's line on stderr landed inside a table row (defect 4).
# Enough cells and histograms to pass 4 KiB of table.
"$TT" run -t none -w getpid,getuid,close,stat -T 1,2 --latency -n 3000 --reps 2 >"$TMP/log" 2>&1
rc=$?
ok $rc || fail "run > log 2>&1 exited $rc: $(tail -5 "$TMP/log")"
"$TT" show last >"$TMP/show" || fail "show last exited $?"
[ "$(wc -c <"$TMP/show")" -gt 6144 ] || fail "the table is too short to test buffering ($(wc -c <"$TMP/show") bytes)"
python3 - "$TMP/log" "$TMP/show" <<'PY' || fail "stdout and stderr mixed in one file: $(grep -n recorded "$TMP/log")"
import sys
log, table = open(sys.argv[1]).read(), open(sys.argv[2]).read()
assert table in log, "the table is not whole in the log"
assert log.split(table, 1)[1].startswith("recorded as run "), "the store's line is not right after the table"
PY
echo "stdout and stderr in one file: whole lines, in order"
assert_clean
