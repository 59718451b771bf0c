# Documents from elsewhere are untrusted: each broken fixture, a 50 MB
# array, 10001 reps, given to show, compare (either side), export and
# import, gets one line and exit 2 -- never a crash, a hang or a record.
. "$(dirname "$0")/lib.sh"
GOOD=tests/fixtures/docs/small.json

python3 - "$TMP" "$GOOD" <<'PY' || fail "cannot make the large documents"
import json, sys
tmp, good = sys.argv[1], sys.argv[2]
with open(f"{tmp}/array-50mb.json", "w") as f:
    f.write('{"schema_version": 2, "cells": [')
    f.write("0," * (25 << 20))
    f.write("0]}")
d = json.load(open(good))
d["cells"][1]["runs"] = [d["cells"][1]["runs"][0]] * 10001
d["cells"][1]["reps"] = 10001
json.dump(d, open(f"{tmp}/reps-10001.json", "w"))
PY

refused() {  # refused DOC CMD...: CMD exits 2 with one line
	local doc=$1; shift
	timeout 60 "$TT" "$@" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	[ "$rc" = 2 ] || fail "$(basename "$doc"): '$*' exited $rc, want 2: $(head -c 300 "$TMP/err")"
	[ "$(wc -l <"$TMP/err")" = 1 ] || fail "$(basename "$doc"): '$*' printed $(wc -l <"$TMP/err") lines"
	grep -q "^tracetax: .*'$doc'" "$TMP/err" || fail "$(basename "$doc"): '$*' does not name it: $(cat "$TMP/err")"
}

n=0
for doc in tests/fixtures/bad/*.json "$TMP/array-50mb.json" "$TMP/reps-10001.json"; do
	refused "$doc" show "$doc"
	echo "$(basename "$doc"): $(cat "$TMP/err")"
	refused "$doc" compare "$doc" "$GOOD"
	refused "$doc" compare "$GOOD" "$doc"
	refused "$doc" export "$doc" --format csv
	refused "$doc" import "$GOOD" "$doc"
	n=$((n + 1))
done
[ "$n" -ge 12 ] || fail "want a dozen broken documents or more, found $n"
[ -e "$TRACETAX_DB" ] && fail "an import with a broken document recorded something"
grep -q 'more than 2000000 values' <("$TT" show "$TMP/array-50mb.json" 2>&1) || fail "the 50 MB array: not refused for its size"

# The good one reads, and so does what tracetax wrote itself.
"$TT" show "$GOOD" >"$TMP/out" || fail "show of the good document exited $?"
grep -q '^bpf:tp/count ' "$TMP/out" || fail "show of the good document: $(cat "$TMP/out")"
"$TT" show tests/fixtures/docs/default.json >/dev/null || fail "show of the default plan's document"
# a document of schema version 2 (before latency, programs and tools) still reads
"$TT" show tests/fixtures/docs/small-v2.json >"$TMP/out" || fail "show of a version 2 document exited $?"
grep -q '^bpf:tp/count ' "$TMP/out" || fail "show of a version 2 document: $(cat "$TMP/out")"
# not a file at all
for doc in "$TMP/missing.json" "$TMP"; do
	"$TT" show "$doc" >/dev/null 2>"$TMP/err"; rc=$?
	[ "$rc" = 2 ] && [ "$(wc -l <"$TMP/err")" = 1 ] || fail "show '$doc': exit $rc: $(cat "$TMP/err")"
done
# Broken budget documents in a store: report leaves each out with one
# warning, and what it read of them before the break is freed (make asan:
# add_budget leaked a rejected brief's arrays; an attached document's were
# allocated before its owners were checked).
"$TT" import "$GOOD" --store "$TMP/b.db" >/dev/null 2>&1 || fail "import into a new store exited $?"
python3 - "$TMP/b.db" <<'PY' || fail "cannot plant the budget documents"
import json, sqlite3, sys
env = {"started": "2026-01-31T23:59:59Z", "hostname": "box"}
attached = {"kind": "attached", "environment": env, "seconds": 1.0,
            "total": {"share_pct": 1.0, "bpftop_share_pct": 0.5, "share_ci95": [0.5, 1.5]},
            "owners": [{"comm": "bpftrace", "per_s": 10.0, "share_pct": 1.0,
                        "bpftop_share_pct": 0.5, "pid": 42}, {"comm": "broken"}]}
budget = {"kind": "budget", "environment": env,
          "rates": {"scope": "the box", "seconds": 1.0, "per_s": 10.0},
          "tracers": [{"tracer": "bpf:tp/count", "verdict": "would cost 1%"}],
          "checks": [{"tracer": "bpf:tp/count"}]}
db = sqlite3.connect(sys.argv[1])
# as store/history.c makes it at the first budget recorded
db.execute("CREATE TABLE IF NOT EXISTS budgets (id INTEGER PRIMARY KEY, recorded TEXT NOT NULL, "
           "document TEXT NOT NULL)")
for d in (attached, budget):
    db.execute("INSERT INTO budgets (recorded, document) VALUES (?, ?)", (env["started"], json.dumps(d)))
db.commit()
PY
"$TT" report "$GOOD" --store "$TMP/b.db" -o "$TMP/b.html" 2>"$TMP/err" ||
	fail "report with broken budgets in the store exited $?: $(cat "$TMP/err")"
[ "$(grep -c "^tracetax: warning: budget [0-9]* in the store: .*: left out$" "$TMP/err")" = 2 ] ||
	fail "report: want each broken budget left out with a warning: $(cat "$TMP/err")"

echo "$n broken documents refused by show, compare, export and import"
