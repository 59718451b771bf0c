# Bad input: one clear line on stderr, exit 2, no results file. Help: exit 0.
. "$(dirname "$0")/lib.sh"

bad() {
	local want=$1; shift
	"$TT" "$@" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	[ "$rc" = 2 ] || fail "'$*' exited $rc, want 2"
	[ "$(wc -l <"$TMP/err")" = 1 ] || fail "'$*' printed $(wc -l <"$TMP/err") lines: $(cat "$TMP/err")"
	grep -q -- "$want" "$TMP/err" || fail "'$*' said '$(cat "$TMP/err")', want '$want'"
	grep -q '^tracetax: ' "$TMP/err" || fail "'$*' message lacks the 'tracetax: ' prefix"
}

bad "is not a tracetax command" frob
bad "rates must rise: '3' after 5" rate -r 5,3
bad "invalid rate 'x'" rate -r x
bad "unknown tracer 'nosuch'" rate -t nosuch
bad "has no variants to expand" rate -t 'none/*'
bad "invalid --backlog '0'" rate --backlog 0
bad "unknown workload 'nope'" run -w nope --json "$TMP/r.json"
bad "unknown tracer 'bpf:nope'" run -t bpf:nope
bad "invalid --reps '0'" run --reps 0
bad "invalid --rounds '0'" run --rounds 0
bad "invalid thread count" run --threads 0
bad "unknown target syscall 'open'" run --target open
bad "needs a value" run --json
bad "unknown option" list --frob
bad "invalid --precision" run --precision 0
bad "is the budget of --precision" run --max-time 9
bad "compare needs two runs" compare 1
bad "history takes no --format" history --format csv
bad "invalid --format 'xml'" export last --format xml
bad "--store and --no-store" run --store x.db --no-store
# cmd: templates are checked before anything runs
bad "needs a command" run -t cmd
bad "neither {cmd} nor {pid}" run -t "cmd:'strace -f'"
bad "{cmd} must be the last word" run -t "cmd:'strace {cmd} -f'"
bad "an unquoted '|'" run -t "cmd:'strace -f {cmd} | grep x'"
bad "an unbalanced \"" run -t "cmd:'strace -e \"trace=getpid {cmd}'"
bad "both {cmd} and {pid}" run -t "cmd:'strace -p {pid} {cmd}'"
bad "invalid --hits '('" run -t "cmd:'strace -f {cmd}'" --hits '('
bad "are for cmd: tracers" run -t none --ready attached
# one hint per line: the parser's own "(see 'tracetax list')" is enough
"$TT" run -t nosuchtracer >"$TMP/out" 2>"$TMP/err"
[ "$(grep -o "(see '" "$TMP/err" | wc -l)" = 1 ] || fail "want one hint: $(cat "$TMP/err")"
"$TT" run --reps 0 >"$TMP/out" 2>"$TMP/err"
grep -q "(see 'tracetax run --help')" "$TMP/err" || fail "want the --help hint: $(cat "$TMP/err")"
[ -e "$TMP/r.json" ] && fail "a results file was written on bad input"
"$TT" >/dev/null 2>&1; [ $? = 2 ] || fail "no command should exit 2"
for c in "--help" "run --help" "list --help" "cleanup --help" "history --help" "show --help" \
	"compare --help" "export --help" "import --help" "report --help" "vm --help"; do
	# shellcheck disable=SC2086
	"$TT" $c >"$TMP/out" 2>&1 || fail "'$c' failed"
	grep -q usage "$TMP/out" || fail "'$c' printed no usage"
done
"$TT" --version >"$TMP/out" 2>&1 || fail "--version exited $?: $(cat "$TMP/out")"
grep -q '^tracetax ' "$TMP/out" || fail "--version"
exit 0
