# Prometheus: run --prometheus-textfile DIR writes DIR/tracetax.prom, which
# promtool accepts; node_exporter (on 127.0.0.1, a free port, its textfile
# collector on DIR) scrapes it, and each value it serves equals the JSON
# document's (in seconds); export --format prometheus of the stored run
# serves the same series. Bad input is one line and exit 2.
. "$(dirname "$0")/lib.sh"
need_root
NE=$(command -v prometheus-node-exporter || command -v node_exporter) ||
	skip "no node_exporter (Debian: prometheus-node-exporter)"
PROMTOOL=$(command -v promtool) || skip "no promtool (Debian: prometheus)"
mkdir "$TMP/textfile"

# exit 3: another tracer came or went on this shared machine; the figures stand, marked
"$TT" run -q -t none,bpf:tp/count,bpf:kprobe/count --reps 4 --run-ms 30 --json "$TMP/r.json" \
	--prometheus-textfile "$TMP/textfile" >"$TMP/out" 2>&1; rc=$?
[ "$rc" = 0 ] || [ "$rc" = 3 ] || fail "run exited $rc: $(cat "$TMP/out")"
[ -s "$TMP/textfile/tracetax.prom" ] || fail "no $TMP/textfile/tracetax.prom"
[ -e "$TMP/textfile/tracetax.prom.tmp" ] && fail "the temporary file is left"
"$PROMTOOL" check metrics <"$TMP/textfile/tracetax.prom" >"$TMP/promtool" 2>&1 ||
	fail "promtool check metrics: $(cat "$TMP/promtool")"
echo "promtool check metrics: ok$(cat "$TMP/promtool")"

# export of the stored run: the same series, from the document
"$TT" export last --format prometheus -o "$TMP/export.prom" || fail "export exited $?"
diff <(grep -v '^#' "$TMP/export.prom" | sed 's/ .*//') \
     <(grep -v '^#' "$TMP/textfile/tracetax.prom" | sed 's/ .*//') >"$TMP/d" ||
	fail "export and the textfile have other series: $(cat "$TMP/d")"

# node_exporter on loopback, stopped on every path
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$NE" --web.listen-address="127.0.0.1:$port" --collector.disable-defaults --collector.textfile \
	--collector.textfile.directory="$TMP/textfile" >"$TMP/ne.log" 2>&1 &
ne=$!
trap 'kill "$ne" 2>/dev/null; wait "$ne" 2>/dev/null; rm -rf "$TMP"' EXIT
for _ in $(seq 50); do
	python3 -c "import urllib.request as u; u.urlopen('http://127.0.0.1:$port/metrics', timeout=1)" \
		2>/dev/null && break
	kill -0 "$ne" 2>/dev/null || fail "node_exporter exited: $(cat "$TMP/ne.log")"
	sleep 0.1
done

python3 - "$TMP/r.json" "http://127.0.0.1:$port/metrics" <<'PY' || fail "the scrape"
import calendar, json, math, re, sys, time, urllib.request
doc = json.load(open(sys.argv[1]))
text = urllib.request.urlopen(sys.argv[2], timeout=5).read().decode()
if 'node_textfile_scrape_error 0' not in text:
    sys.exit("node_exporter could not read the textfile: " +
             "\n".join(l for l in text.splitlines() if "textfile" in l))
series = {}
for line in text.splitlines():
    m = re.match(r'^(tracetax_\w+)\{(.*)\} (\S+)$', line)
    if m:
        labels = dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', m.group(2)))
        series[(m.group(1), labels.get("tracer"), labels.get("workload"), labels.get("threads"))] = \
            (labels, float(m.group(3)))
env = doc["environment"]
def get(name, c):
    labels, v = series[(name, c["tracer"], c["workload"], str(c["threads"]))]
    if labels["kernel"] != env["kernel"] or labels["host"] != env["hostname"]:
        sys.exit(f"{name}: labels {labels}")
    return v
def same(a, b, what):
    if not math.isclose(a, b, rel_tol=1e-13, abs_tol=1e-22):
        sys.exit(f"{what}: scraped {a!r}, the document {b!r}")
checked = 0
for c in doc["cells"]:
    if get("tracetax_cell_info", c) != 1:
        sys.exit("cell_info")
    status = series[("tracetax_cell_info", c["tracer"], c["workload"], str(c["threads"]))][0]["status"]
    if status != c["status"]:
        sys.exit(f"{c['id']}: status {status}, the document {c['status']}")
    if c["status"] != "ok":
        if ("tracetax_overhead_per_event_seconds", c["tracer"], c["workload"], str(c["threads"])) in series:
            sys.exit(f"{c['id']}: a {c['status']} cell with figures")
        continue
    o = c["overhead_ns_per_event"]
    same(get("tracetax_overhead_per_event_seconds", c), o["mean"] * 1e-9, c["id"] + " overhead")
    same(get("tracetax_overhead_per_event_ci95_lower_seconds", c), o["ci95"][0] * 1e-9, c["id"] + " lo")
    same(get("tracetax_overhead_per_event_ci95_upper_seconds", c), o["ci95"][1] * 1e-9, c["id"] + " hi")
    same(get("tracetax_baseline_per_op_seconds", c), c["baseline_ns_per_op"]["mean"] * 1e-9, "base")
    same(get("tracetax_traced_per_op_seconds", c), c["traced_ns_per_op"]["mean"] * 1e-9, "traced")
    if get("tracetax_events", c) != c["events"] or get("tracetax_lost_events", c) != c["lost"] or \
       get("tracetax_reps", c) != c["reps"]:
        sys.exit(f"{c['id']}: events, lost or reps")
    key = ("tracetax_hits", c["tracer"], c["workload"], str(c["threads"]))
    if c["hits"] is None:
        if key in series:
            sys.exit(f"{c['id']}: hits for a tracer that cannot count")
    elif series[key][1] != c["hits"]:
        sys.exit(f"{c['id']}: hits {series[key][1]}, the document {c['hits']}")
    checked += 1
started = calendar.timegm(time.strptime(env["started"], "%Y-%m-%dT%H:%M:%SZ"))
ts = [v for (n, *_), (l, v) in series.items() if n == "tracetax_run_start_timestamp_seconds"]
if ts != [started]:
    sys.exit(f"start timestamp {ts}, the document {started}")
if checked < 2:
    sys.exit(f"only {checked} ok cells")
print(f"node_exporter scraped {len(series)} tracetax series; {checked} cells equal the document's")
PY

# bad input: one line, exit 2
"$TT" run -t none --prometheus-textfile "$TMP/no/such" >/dev/null 2>"$TMP/err"; rc=$?
[ "$rc" = 2 ] && [ "$(wc -l <"$TMP/err")" = 1 ] || fail "missing directory: exit $rc: $(cat "$TMP/err")"
"$TT" export last --format prom >/dev/null 2>"$TMP/err"; rc=$?
[ "$rc" = 2 ] && [ "$(wc -l <"$TMP/err")" = 1 ] || fail "bad format: exit $rc: $(cat "$TMP/err")"
assert_clean
echo "ok"
