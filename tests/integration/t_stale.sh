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
# a dead tracetax's tool directory goes, and nobody else's: not another
# user's, not a link (cleanup followed neither owner nor type)
mkdir -m 700 "$TMP/tmpdir" "$TMP/victim"
touch "$TMP/victim/precious"
mkdir -m 700 "$TMP/tmpdir/tt-tool-$dead-ours" "$TMP/tmpdir/tt-tool-$dead-theirs"
touch "$TMP/tmpdir/tt-tool-$dead-theirs/file"
chown -R nobody "$TMP/tmpdir/tt-tool-$dead-theirs"
ln -s "$TMP/victim" "$TMP/tmpdir/tt-tool-$dead-link"
TMPDIR="$TMP/tmpdir" "$TT" cleanup >"$TMP/out" 2>&1 || fail "cleanup failed: $(cat "$TMP/out")"
left=$(cd "$TMP/tmpdir" && echo *)
[ "$left" = "tt-tool-$dead-link tt-tool-$dead-theirs" ] ||
	fail "cleanup: left '$left', not the link and the directory of another user"
[ -f "$TMP/victim/precious" ] && [ -f "$TMP/tmpdir/tt-tool-$dead-theirs/file" ] ||
	fail "cleanup removed another user's files"
grep -q "^kept directory '$TMP/tmpdir/tt-tool-$dead-theirs': owned by uid $(id -u nobody), not by us\$" "$TMP/out" ||
	fail "cleanup did not say why it kept another user's directory: $(cat "$TMP/out")"
grep -q "^kept directory '$TMP/tmpdir/tt-tool-$dead-link': a symbolic link, not a directory of ours\$" "$TMP/out" ||
	fail "cleanup did not say why it kept a link: $(cat "$TMP/out")"
grep -q ", kept 2 not ours\$" "$TMP/out" || fail "cleanup's summary does not count them: $(cat "$TMP/out")"
rm -rf "$TMP/tmpdir"
# the next run removes one too
mkdir "$T/instances/tracetax-$dead"
"$TT" run -q -t none -n 1000 --reps 1 >"$TMP/out" 2>&1 || fail "run failed: $(cat "$TMP/out")"
[ -d "$T/instances/tracetax-$dead" ] && { rmdir "$T/instances/tracetax-$dead"; fail "run left the stale instance"; }
# a live tracetax's instance is not touched (our own shell's pid stands in),
# and cleanup says so: "removed 0" alone hid a leftover
mkdir "$T/instances/tracetax-$$"
"$TT" cleanup >"$TMP/out" 2>&1
rc=$?
[ -d "$T/instances/tracetax-$$" ] || fail "cleanup removed a live instance"
rmdir "$T/instances/tracetax-$$"
[ "$rc" = 0 ] || fail "cleanup exited $rc: $(cat "$TMP/out")"
grep -q "^kept tracefs instance 'tracetax-$$': its process $$ still exists (bash, state [A-Z])\$" "$TMP/out" ||
	fail "cleanup did not name the instance it kept, and why: $(cat "$TMP/out")"
grep -q "^removed [0-9]* leftover item(s), kept [1-9][0-9]* of a process that still runs\$" "$TMP/out" ||
	fail "cleanup's summary does not count what it kept: $(cat "$TMP/out")"
# A SIGKILLed tracetax whose parent has not reaped it yet is a zombie: it is
# gone, and its instance with it (cleanup said "removed 0" and left it).
python3 - "$TT" "$T" >"$TMP/zombie" 2>&1 <<'PY' || fail "zombie owner: $(cat "$TMP/zombie")"
import os, subprocess, sys, time
tt, T = sys.argv[1], sys.argv[2]
pid = os.fork()
if pid == 0:
    os.mkdir("%s/instances/tracetax-%d" % (T, os.getpid()))
    os._exit(0)
inst = "%s/instances/tracetax-%d" % (T, pid)
for _ in range(100):	# exited, not reaped: state Z
    if open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()[0] == "Z":
        break
    time.sleep(0.02)
out = subprocess.run([tt, "cleanup"], capture_output=True, text=True)
gone = not os.path.isdir(inst)
if not gone:
    os.rmdir(inst)
os.waitpid(pid, 0)
if out.returncode != 0 or not gone:
    print("cleanup (exit %d) left the instance of zombie %d: %s" % (out.returncode, pid, out.stdout + out.stderr))
    sys.exit(1)
print("zombie %d: %s" % (pid, out.stdout.strip().splitlines()[-1]))
PY
cat "$TMP/zombie"
assert_clean
