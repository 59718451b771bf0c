# The unprivileged part, as nobody (or as ourselves when not root): `list`
# gives a reason for every tracer it skips, and the default `run` measures
# only what needs no privilege (none, inline, preload, ptrace, seccomp),
# exits 0, and skips everything else with a reason.
. "$(dirname "$0")/lib.sh"

as=() who=$(id -un)
if [ "$(id -u)" = 0 ]; then
	who=nobody
	uid=$(id -u nobody 2>/dev/null) || skip "no user 'nobody' to run as"
	gid=$(id -g nobody)
	if command -v setpriv >/dev/null; then
		as=(setpriv --reuid="$uid" --regid="$gid" --clear-groups)
	elif command -v runuser >/dev/null; then
		as=(runuser -u nobody --)
	else
		skip "neither setpriv nor runuser to run as 'nobody'"
	fi
fi

# nobody may not enter the checkout (CI clones as root, maybe under /root):
# run a copy of the build. Not named tracetax*: that is what a leftover is.
D=$(mktemp -d /tmp/nonroot.XXXXXX) || fail "cannot create a directory in /tmp"
trap 'rm -rf "$TMP" "$D"' EXIT
cp "$B/tracetax" "$B/tracetax-load" "$B/libtracetax-target.so" "$B/libtracetax-preload.so" \
	tests/lsan.supp "$D/" || fail "cannot copy the build to '$D'"
mkdir "$D/out"
chmod 755 "$D"
[ ${#as[@]} = 0 ] || chown "$uid:$gid" "$D/out"
# nobody's runs record too, in a store nobody can write
export TRACETAX_DB=$D/out/results.db
# sanitizer builds: nobody can neither write run.sh's report files nor read
# a suppressions file under the checkout. Reports go to stderr, checked below.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}log_path=stderr"
export LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$D/lsan.supp"
unset TRACETAX_LOAD
unpriv() {  # unpriv NAME ARGS...: tracetax ARGS as $who, in $D; output in $TMP/NAME.{out,err}
	local name=$1; shift
	(cd "$D" && "${as[@]}" ./tracetax "$@") >"$TMP/$name.out" 2>"$TMP/$name.err"
	local rc=$?
	if grep -qE ': runtime error: |==[0-9]+==ERROR: [A-Za-z]+Sanitizer' "$TMP/$name.err"; then
		cat "$TMP/$name.err"; fail "sanitizer report from tracetax $*"
	fi
	return $rc
}
# what may run without privilege: tracetax's own, or the workload's own;
# strace and ltrace too: they ptrace a workload of their own user (where
# Yama allows it); uftrace preloads its library into it; a cmd: tracer is
# whatever command the user gives
allowed='^(none|inline|preload|ptrace:.*|seccomp:.*|strace(:.*)?|ltrace|uftrace|cmd)$'

unpriv list list --json || fail "tracetax list --json exited $?: $(cat "$TMP/list.err")"
python3 - "$TMP/list.out" "$allowed" <<'EOF' || fail "tracetax list --json as $who"
import json, re, sys
tracers = json.load(open(sys.argv[1]))["tracers"]
bad = [f"{t['name']}: skipped without a reason" for t in tracers
       if t["status"] == "skipped" and not (t["reason"] or "").strip()]
bad += [f"{t['name']}: {t['status']}" for t in tracers if t["status"] not in ("available", "skipped")]
bad += [f"{t['name']}: available, but needs privilege" for t in tracers
        if t["status"] == "available" and not re.match(sys.argv[2], t["name"])]
if not any(t["status"] == "available" for t in tracers):
    bad.append("nothing available")
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
EOF

unpriv run run --reps 2 --run-ms 20 --json out/r.json ||
	fail "tracetax run as $who exited $?: $(cat "$TMP/run.err")"
cat "$TMP/run.out"
python3 tests/validate_json.py "$D/out/r.json" docs/schema.json || fail "schema validation"
# The same verdict as list's, an exact count from every tracer that counts,
# and a reason for every skip.
python3 - "$D/out/r.json" "$TMP/list.out" "$allowed" <<'EOF' || fail "tracetax run as $who"
import json, re, sys
cells = json.load(open(sys.argv[1]))["cells"]
listed = {t["name"]: t["status"] for t in json.load(open(sys.argv[2]))["tracers"]}
bad = []
for c in cells:
    name, st = c["tracer"], c["status"]
    if st == "ok" and not re.match(sys.argv[3], name):
        bad.append(f"{name}: measured, but needs privilege")
    elif st == "ok" and c["hits"] is not None and (c["hits"] != c["events"] or c["lost"]):
        bad.append(f"{name}: hits {c['hits']}, lost {c['lost']} of {c['events']} events")
    elif st == "skipped" and not (c["reason"] or "").strip():
        bad.append(f"{name}: skipped without a reason")
    elif st not in ("ok", "skipped"):
        bad.append(f"{name}: {st}: {c['reason']}")
    if (st == "ok") != (listed.get(name) == "available"):
        bad.append(f"{name}: {st} in run, {listed.get(name)} in list")
if not any(c["status"] == "ok" for c in cells):
    bad.append("no cell measured")
for b in bad:
    print(b)
print(f"{sum(c['status'] == 'ok' for c in cells)} cells measured, "
      f"{sum(c['status'] == 'skipped' for c in cells)} skipped")
sys.exit(1 if bad else 0)
EOF

# preload, which the default plan leaves out on getpid: the library is
# found next to the copied binary, and counts every call
unpriv preload run -w getpid-libc -t preload --reps 2 --run-ms 20 --json out/p.json ||
	fail "tracetax run -t preload as $who exited $?: $(cat "$TMP/preload.err")"
json_get "$D/out/p.json" '[(c["status"], c["hits"] == c["events"] > 0) for c in d["cells"]]' |
	grep -qxF "[('ok', True)]" || fail "preload as $who: $(cat "$TMP/preload.out")"

# budget needs BPF: one line saying what it needs, no library's line, exit 1
unpriv budget budget -t bpf:tp/count --for 1 --no-store
rc=$?
[ "$rc" = 1 ] && [ "$(wc -l <"$TMP/budget.err")" = 1 ] &&
	grep -q "needs root, or CAP_BPF and CAP_PERFMON" "$TMP/budget.err" ||
	fail "budget as $who: exit $rc, want 1 and one line: $(cat "$TMP/budget.err")"
echo "budget as $who: $(cat "$TMP/budget.err")"

# both runs recorded in nobody's own store
unpriv history history || fail "tracetax history as $who exited $?: $(cat "$TMP/history.err")"
[ "$(grep -c '^ *[0-9]' "$TMP/history.out")" = 2 ] || fail "want 2 runs in the store: $(cat "$TMP/history.out")"

B=$D TT=$D/tracetax assert_clean
