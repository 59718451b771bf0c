# The results document validates against docs/schema.json, with ok,
# skipped and (deliberately) several workloads and thread counts.
. "$(dirname "$0")/lib.sh"
need_root
"$TT" run -q -w getpid,close -t none,bpf:tp/count,ftrace:syscall,ptrace:all -T 1,2 -n 5000 --reps 2 \
	--json "$TMP/r.json" >"$TMP/out" 2>&1
rc=$?
[ "$rc" = 0 ] || fail "tracetax run exited $rc: $(cat "$TMP/out")"
python3 tests/validate_json.py docs/schema.json "$TMP/r.json" || fail "schema validation"
json_get "$TMP/r.json" 'len(d["cells"])' | grep -qx 16 || fail "want 16 cells"
# the table names every tracer and the environment line
grep -q 'bpf:tp/count' "$TMP/out" || fail "table lacks bpf:tp/count"
assert_clean
