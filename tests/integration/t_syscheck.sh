# The run-time syscall check: the kernel counts what the workload's ops
# make, once per run. stat-libc makes newfstatat on glibc 2.36 (the trap of
# the bpftrace/strace post), and the JSON says so; a table entry that
# claims otherwise (TRACETAX_TEST_SYSCALL, a test-only override) fails the
# workload's cells with the syscall seen, and the other workload runs on.
. "$(dirname "$0")/lib.sh"
need_root

"$TT" run -q -w getpid,stat-libc,func -t none -n 2000 --reps 1 --json "$TMP/ok.json" >"$TMP/out" 2>&1 ||
	fail "tracetax run failed: $(cat "$TMP/out")"
got=$(json_get "$TMP/ok.json" '",".join("%s=%s" % (c["workload"], c["verified_syscall"]) for c in d["cells"])')
case $got in
"getpid=getpid,stat-libc=newfstatat,func=None") ;;
"getpid=getpid,stat-libc=stat,func=None") ;;	# a libc whose stat() is stat(2)
*) fail "verified syscalls: $got" ;;
esac

TRACETAX_TEST_SYSCALL=stat-libc=getuid "$TT" run -q -w stat-libc,getpid -t none -n 2000 --reps 1 \
	--json "$TMP/bad.json" >"$TMP/out" 2>&1
rc=$?
[ "$rc" = 1 ] || fail "a wrong table entry: exit $rc, want 1: $(cat "$TMP/out")"
python3 - "$TMP/bad.json" <<'PY' || exit 1
import json, sys
c = {x["workload"]: x for x in json.load(open(sys.argv[1]))["cells"]}
s = c["stat-libc"]
if s["status"] != "failed" or "not 'getuid' as its table says" not in s["reason"] or \
   not ("'newfstatat'" in s["reason"] or "'stat'" in s["reason"]):
    print("FAIL: stat-libc with a wrong entry: %s: %s" % (s["status"], s["reason"])); sys.exit(1)
if c["getpid"]["status"] != "ok" or c["getpid"]["verified_syscall"] != "getpid":
    print("FAIL: getpid after it: %s %s" % (c["getpid"]["status"], c["getpid"]["reason"])); sys.exit(1)
print(s["reason"])
PY
python3 tests/validate_json.py "$TMP/bad.json" docs/schema.json || fail "schema validation"
assert_clean
