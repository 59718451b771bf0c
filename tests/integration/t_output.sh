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
"$TT" run -t none,bpf:tp/count -n 3000 --reps 2 --json - >"$TMP/doc" 2>"$TMP/err" ||
	fail "--json - exited $?: $(cat "$TMP/err")"
python3 tests/validate_json.py "$TMP/doc" || fail "stdout is not a valid results document"
grep -q 'bpf:tp/count' "$TMP/err" || fail "the table did not go to stderr: $(cat "$TMP/err")"
"$TT" run -q -t none -n 3000 --reps 2 --json - >"$TMP/doc" 2>"$TMP/err" || fail "-q --json - exited $?"
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$TMP/doc" || fail "-q --json -: stdout is not JSON"
[ -s "$TMP/err" ] && fail "-q --json - still printed: $(cat "$TMP/err")"
assert_clean
