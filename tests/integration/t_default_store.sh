# The default results store that cannot be had (no HOME, no XDG_DATA_HOME):
# a warning, and the measurement decides the exit code. A store the user
# named (--store, TRACETAX_DB) that cannot record still costs exit 1.
. "$(dirname "$0")/lib.sh"
need_root

env -u HOME -u XDG_DATA_HOME -u TRACETAX_DB "$TT" run -q -t none -n 2000 --reps 2 \
	>"$TMP/out" 2>"$TMP/err"
rc=$?
[ "$rc" = 0 ] || [ "$rc" = 3 ] || fail "no default store: exit $rc, want 0: $(cat "$TMP/err")"
grep -q 'the default store' "$TMP/err" || fail "no warning about the default store: $(cat "$TMP/err")"
[ "$(grep -c 'default store' "$TMP/err")" = 1 ] || fail "warned more than once: $(cat "$TMP/err")"
grep -q '^tracer' "$TMP/out" || fail "the table was not printed"
echo "no default store: exit $rc, warned once"

# a file where the store's directory should be: not even root can record there
touch "$TMP/file"
"$TT" run -q -t none -n 2000 --reps 2 --store "$TMP/file/r.db" >/dev/null 2>"$TMP/err"
rc=$?
[ "$rc" = 1 ] || fail "--store that cannot record: exit $rc, want 1: $(cat "$TMP/err")"
TRACETAX_DB="$TMP/file/r.db" "$TT" run -q -t none -n 2000 --reps 2 >/dev/null 2>"$TMP/err"
rc=$?
[ "$rc" = 1 ] || fail "TRACETAX_DB that cannot record: exit $rc, want 1: $(cat "$TMP/err")"
echo "a named store that cannot record: exit 1"
