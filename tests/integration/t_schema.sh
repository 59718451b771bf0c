# The results document validates against docs/schema.json, with ok,
# skipped and failed cells and (deliberately) several workloads and thread
# counts; and the validation can fail: broken copies of it are rejected.
. "$(dirname "$0")/lib.sh"
need_root
"$TT" run -q -w getpid,close -t none,bpf:tp/count,ftrace:syscall,ptrace:all,preload -T 1,2 -n 5000 --reps 2 \
	--json "$TMP/r.json" >"$TMP/out" 2>&1
rc=$?
[ "$rc" = 0 ] || fail "tracetax run exited $rc: $(cat "$TMP/out")"
validate() { python3 tests/validate_json.py "$1" docs/schema.json; }
validate "$TMP/r.json" || fail "schema validation"
json_get "$TMP/r.json" 'len(d["cells"])' | grep -qx 20 || fail "want 20 cells"
# preload hooks functions, and getpid and close call syscall(2) directly
json_get "$TMP/r.json" '" ".join(c["status"] for c in d["cells"] if c["tracer"] == "preload")' |
	grep -qx "skipped skipped skipped skipped" || fail "want preload skipped on every cell"
# the table names every tracer and the environment line
grep -q 'bpf:tp/count' "$TMP/out" || fail "table lacks bpf:tp/count"

# a failed cell, by the fault switch: exit 1, and still a valid document
TRACETAX_FAULT=ptrace:all@start "$TT" run -q -w getpid -t none,ptrace:all -n 2000 --reps 2 \
	--json "$TMP/f.json" >"$TMP/out" 2>&1
rc=$?
[ "$rc" = 1 ] || fail "tracetax run with a fault at start exited $rc, want 1: $(cat "$TMP/out")"
json_get "$TMP/f.json" '" ".join(c["status"] for c in d["cells"])' | grep -qx "ok failed" ||
	fail "want cells ok, failed"
validate "$TMP/f.json" || fail "schema validation of a failed cell"

# The schema as the document (the old mistake) is refused...
validate docs/schema.json >/dev/null 2>&1 && fail "validate_json.py accepted the schema as a document"
python3 tests/validate_json.py docs/schema.json "$TMP/r.json" 2>/dev/null && fail "validate_json.py accepted the document as a schema"
# ...and every broken copy of the document is rejected, at the right place.
reject() {  # reject WHAT PYTHON-ON-d WHERE: the document changed by PYTHON fails at WHERE or below
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
exec(sys.argv[2])
json.dump(d, open(sys.argv[3], "w"))' "$TMP/r.json" "$2" "$TMP/bad.json" || fail "cannot break the document: $2"
	validate "$TMP/bad.json" 2>"$TMP/err"
	rc=$?
	[ "$rc" = 1 ] || fail "document with $1: validate_json.py exited $rc, want 1: $(cat "$TMP/err")"
	echo "$1: $(cat "$TMP/err")"
	where=$(sed -n 's|^[^:]*: \(/[^:]*\): .*|\1|p' "$TMP/err")
	[[ $where == "$3" || $where == "$3"/* ]] || fail "document with $1: want a rejection at $3 or below"
}
reject "a required field removed" 'del d["cells"][1]["hits"]' /cells/1
reject "a run's field removed" 'del d["cells"][3]["runs"][1]["traced_first"]' /cells/3/runs/1
reject "a wrong type" 'd["cells"][2]["threads"] = "1"' /cells/2/threads
reject "a null count" 'd["cells"][0]["events"] = None' /cells/0/events
reject "a negative count" 'd["cells"][3]["runs"][0]["lost"] = -1' /cells/3/runs/0/lost
reject "an unknown field" 'd["cells"][0]["overhead_ns"] = 1.0' /cells/0
reject "an unknown top-level field" 'd["results"] = []' /
reject "an unknown environment field" 'd["environment"]["steal"] = 0' /environment
reject "an ok cell's figures under skipped" 'd["cells"][1]["status"] = "skipped"' /cells/1
reject "a skipped cell without its reason" 'd["cells"][4]["reason"] = None' /cells/4/reason
reject "an unknown status" 'd["cells"][4]["status"] = "disturbed"' /cells/4/status
reject "another schema version" 'd["schema_version"] += 1' /schema_version
assert_clean
