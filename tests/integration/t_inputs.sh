# Every file tracetax reads from a path the user gave is a regular file of
# a bounded size: /dev/zero (endless), a FIFO (its open waits for a writer)
# and a directory are each one line and exit 2 within a second, for every
# such option; an oversized rule file, plan and document too. A results
# store that is not a regular file is refused in one line (exit 1, as every
# store error).
. "$(dirname "$0")/lib.sh"

mkfifo "$TMP/fifo" || skip "cannot make a FIFO in $TMP"
mkdir "$TMP/dir"

# one line on stderr, exit $want, under a second (a hang is cut at 5 s)
refused() {
	local want=$1 says=$2; shift 2
	local t0 t1 rc
	t0=$(date +%s%N)
	timeout 5 "$TT" "$@" >"$TMP/out" 2>"$TMP/err" </dev/null
	rc=$?
	t1=$(date +%s%N)
	[ "$rc" = 124 ] && fail "'$*' hung (cut after 5 s)"
	[ "$rc" = "$want" ] || fail "'$*' exited $rc, want $want: $(cat "$TMP/err")"
	[ $(((t1 - t0) / 1000000)) -lt 1000 ] || fail "'$*' took $(((t1 - t0) / 1000000)) ms"
	[ "$(wc -l <"$TMP/err")" = 1 ] || fail "'$*' printed $(wc -l <"$TMP/err") lines: $(cat "$TMP/err")"
	grep -q -- "$says" "$TMP/err" || fail "'$*' said '$(cat "$TMP/err")', want '$says'"
}

n=0
for f in /dev/zero "$TMP/fifo" "$TMP/dir"; do
	[ -d "$f" ] && what="is a directory" || what="is not a regular file"
	refused 2 "rule file '$f' $what" run -t none -w getpid --audit-rules "$f" --dry-run
	refused 2 "rule file '$f' $what" budget -t audit:rules --audit-rules "$f"
	refused 2 "plan '$f' $what" run --plan "$f" --dry-run
	refused 2 "plan '$f' $what" experiment show "$f"
	refused 2 "plan '$f' $what" experiment run "$f"
	for c in show import report; do
		refused 2 "results document '$f' $what" $c "$f"
	done
	refused 2 "results document '$f' $what" compare "$f" "$f"
	refused 1 "results store '$f' is not a regular file" history --store "$f"
	refused 2 "kernel '$f' is not a file" run --kernel "$f" -w getpid -t none
	n=$((n + 13))
done
echo "/dev/zero, a FIFO, a directory: $n refusals, each one line under a second"

# too large: a rule file over 1 MiB, a plan over 64 KiB, a line over 8 KiB
head -c $((1024 * 1024 + 1)) /dev/zero | tr '\0' '\n' >"$TMP/big.rules"
refused 2 "rule file '$TMP/big.rules' is larger than 1 MiB" run -t none --audit-rules "$TMP/big.rules" --dry-run
head -c $((64 * 1024 + 1)) /dev/zero | tr '\0' '#' >"$TMP/big.plan"
refused 2 "plan '$TMP/big.plan' is larger than 64 KiB" run --plan "$TMP/big.plan" --dry-run
{ printf -- '-a always,exit -S getpid -F a0='; head -c 9000 /dev/zero | tr '\0' '1'; echo; } >"$TMP/long.rules"
refused 2 "line 1: longer than 8192 bytes" run -t none --audit-rules "$TMP/long.rules" --dry-run
printf -- '-a always,exit -S getpid\n\0\n' >"$TMP/nul.rules"
refused 2 "rule file '$TMP/nul.rules' is not text" run -t none --audit-rules "$TMP/nul.rules" --dry-run
echo "oversized rule file, plan and line, a NUL byte: refused"
