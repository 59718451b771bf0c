# Exports: run --csv/--markdown and export RUN agree; the CSV parses with
# python's csv module, one row per cell, the figures of the document; the
# Markdown table has one row per cell; export --format json is the --json
# document, byte for byte.
. "$(dirname "$0")/lib.sh"
need_root
"$TT" run -q -w getpid,close -t none,bpf:tp/count,bpf:kprobe/count -n 3000 --reps 2 \
	--json "$TMP/r.json" --csv "$TMP/r.csv" --markdown "$TMP/r.md" >"$TMP/out" 2>&1 ||
	fail "run exited $?: $(cat "$TMP/out")"

python3 - "$TMP/r.json" "$TMP/r.csv" <<'PY' || fail "the CSV"
import csv, json, math, sys
doc = json.load(open(sys.argv[1]))
rows = list(csv.DictReader(open(sys.argv[2], newline="")))
cells = doc["cells"]
if len(rows) != len(cells):
    sys.exit(f"{len(rows)} rows for {len(cells)} cells")
for row, c in zip(rows, cells):
    key = (row["workload"], row["tracer"], int(row["threads"]), row["status"])
    if key != (c["workload"], c["tracer"], c["threads"], c["status"]):
        sys.exit(f"row {key} for cell {c['id']}")
    o = c["overhead_ns_per_event"]
    if c["status"] == "ok":
        if not math.isclose(float(row["overhead_ns_per_event"]), o["mean"], rel_tol=1e-12):
            sys.exit(f"{c['id']}: overhead {row['overhead_ns_per_event']} != {o['mean']}")
        if int(row["events"]) != c["events"] or int(row["reps"]) != c["reps"]:
            sys.exit(f"{c['id']}: events or reps")
    elif row["overhead_ns_per_event"] != "" or row["reason"] != c["reason"]:
        sys.exit(f"{c['id']}: a {c['status']} cell with figures, or without its reason")
for unit in ("base_ns_per_op", "overhead_ci95_lo_ns", "consumer_ns_per_event"):
    if unit not in rows[0]:
        sys.exit(f"no column {unit}")
print(f"csv: {len(rows)} rows, columns: {', '.join(rows[0])}")
PY

cells=$(json_get "$TMP/r.json" 'len(d["cells"])')
rows=$(grep -c '^| ' "$TMP/r.md")
[ "$rows" = $((cells + 1)) ] || fail "markdown: $rows table lines for $cells cells and a header"
grep -q '^|---|---|--:|' "$TMP/r.md" || fail "markdown: no separator line"
grep -q '^| bpf:kprobe/count | close | 1 | | | | | | | skipped: ' "$TMP/r.md" ||
	fail "markdown: the skipped cell: $(cat "$TMP/r.md")"
awk -F'|' '/^\| / && NF != 12 { exit 1 }' "$TMP/r.md" || fail "markdown: a row without 10 columns"
echo "markdown: $rows table lines"

# export agrees with what the run wrote
"$TT" export last --format csv | cmp -s - "$TMP/r.csv" || fail "export csv differs from run --csv"
"$TT" export last --format markdown -o "$TMP/e.md" || fail "export -o exited $?"
cmp -s "$TMP/e.md" "$TMP/r.md" || fail "export markdown differs from run --markdown"
"$TT" export last --format json | cmp -s - "$TMP/r.json" || fail "export json is not the --json document"
"$TT" export "$TMP/r.json" --format csv | cmp -s - "$TMP/r.csv" || fail "export of the file differs"
# a path that cannot be written: exit 2 before the run
"$TT" run -t none --csv "$TMP/no/such/r.csv" >/dev/null 2>"$TMP/err"; rc=$?
[ "$rc" = 2 ] || fail "--csv into a missing directory: exit $rc"
assert_clean
