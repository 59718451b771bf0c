# A BPF program of ours that the verifier rejects is a failure, not a skip:
# TRACETAX_FAULT=<tracer>@verifier makes setup load common.bpf.h's
# tt_fault_verifier (a read above the frame pointer) in place of the cell's
# program. The cell fails with the verifier's words, the next cell still
# runs, the exit code says a measurement failed, and nothing is left.
. "$(dirname "$0")/lib.sh"
need_root

available 'bpf:tp/count' | grep -q . || skip "bpf:tp/count not available here"
TRACETAX_FAULT='bpf:tp/count@verifier' "$TT" run -q -t bpf:tp/count,none \
	--json "$TMP/r.json" >"$TMP/out" 2>&1
rc=$?
[ "$rc" = 1 ] || fail "exit code $rc, want 1 (a failed cell): $(cat "$TMP/out")"
python3 - "$TMP/r.json" <<'PY' || exit 1
import json, sys
cells = {c["tracer"]: c for c in json.load(open(sys.argv[1]))["cells"]}
bad = []
bpf, none = cells.get("bpf:tp/count"), cells.get("none")
if bpf is None or none is None:
    bad.append("cells: %s, want bpf:tp/count and none" % sorted(cells))
else:
    reason = bpf["reason"] or ""
    if bpf["status"] != "failed":
        bad.append("bpf:tp/count is %s, want failed: %s" % (bpf["status"], reason))
    # the verifier's own words: the failing instruction and its complaint
    for words in ("verifier rejected", "tt_fault_verifier", "(r10 +8)", "invalid read from stack"):
        if words not in reason:
            bad.append("bpf:tp/count's reason lacks %r: %s" % (words, reason))
    if none["status"] != "ok":
        bad.append("none after the failed cell is %s: %s" % (none["status"], none["reason"]))
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
PY
# supported()'s trial load never sees the fault: list still calls it available
TRACETAX_FAULT='bpf:tp/count@verifier' "$TT" list --json >"$TMP/flist.json" ||
	fail "tracetax list with the fault set exited $?"
st=$(json_get "$TMP/flist.json" '[t["status"] for t in d["tracers"] if t["name"] == "bpf:tp/count"][0]')
[ "$st" = available ] || fail "with the fault set, list says bpf:tp/count is $st"
assert_clean
