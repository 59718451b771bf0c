# A tracetax killed with SIGKILL cannot clean up: the next run and
# `tracetax cleanup` remove its tracefs instance; live ones are kept.
. "$(dirname "$0")/lib.sh"
need_root
T=/sys/kernel/tracing
[ -d $T/instances ] || skip "tracefs instances not available"
dead=4194304   # PID_MAX_LIMIT: no process can have it
mkdir "$T/instances/tracetax-$dead" || fail "cannot make a fake leftover instance"
"$TT" cleanup >"$TMP/out" 2>&1 || fail "cleanup failed: $(cat "$TMP/out")"
[ -d "$T/instances/tracetax-$dead" ] && { rmdir "$T/instances/tracetax-$dead"; fail "cleanup left the stale instance"; }
grep -q 'removed 1' "$TMP/out" || fail "cleanup did not say what it removed: $(cat "$TMP/out")"
# the next run removes one too
mkdir "$T/instances/tracetax-$dead"
"$TT" run -q -t none -n 1000 --reps 1 >"$TMP/out" 2>&1 || fail "run failed: $(cat "$TMP/out")"
[ -d "$T/instances/tracetax-$dead" ] && { rmdir "$T/instances/tracetax-$dead"; fail "run left the stale instance"; }
# a live tracetax's instance is not touched (our own shell's pid stands in)
mkdir "$T/instances/tracetax-$$"
"$TT" cleanup >"$TMP/out" 2>&1
rc=$?
[ -d "$T/instances/tracetax-$$" ] || fail "cleanup removed a live instance"
rmdir "$T/instances/tracetax-$$"
[ "$rc" = 0 ] || fail "cleanup exited $rc: $(cat "$TMP/out")"
assert_clean
