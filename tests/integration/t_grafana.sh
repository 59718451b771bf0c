# The Grafana dashboard (contrib/grafana/tracetax.json) against a real
# Prometheus: a short tracetax run writes its textfile, node_exporter's
# textfile collector serves it (127.0.0.1, a free port), Prometheus scrapes
# it (127.0.0.1, a free port, its own storage in $TMP). Then every PromQL
# expression of the dashboard, its variables' queries first (their values
# resolved as Grafana resolves them: label_values(), "All" as the variable's
# allValue), each panel's targets with the variables substituted, is asked
# of Prometheus's HTTP API: one that errors or returns nothing fails. The
# expressions are printed with their result counts. Both servers are stopped
# and $TMP removed on every path.
. "$(dirname "$0")/lib.sh"
need_root
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DASH=$ROOT/contrib/grafana/tracetax.json
NE=$(command -v prometheus-node-exporter || command -v node_exporter) ||
	skip "no node_exporter (Debian: prometheus-node-exporter)"
PROM=$(command -v prometheus) || skip "no prometheus (Debian: prometheus)"

mkdir "$TMP/textfile"
# exit 3: another tracer came or went on this shared machine; the figures stand, marked
"$TT" run -q -t none,bpf:tp/count,perf:count --reps 4 --run-ms 30 \
	--prometheus-textfile "$TMP/textfile" >"$TMP/out" 2>&1; rc=$?
[ "$rc" = 0 ] || [ "$rc" = 3 ] || fail "run exited $rc: $(cat "$TMP/out")"

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
ne=
prom=
stop() {
	[ -n "$prom" ] && kill "$prom" 2>/dev/null && wait "$prom" 2>/dev/null
	[ -n "$ne" ] && kill "$ne" 2>/dev/null && wait "$ne" 2>/dev/null
	rm -rf "$TMP"
}
trap stop EXIT
trap 'exit 1' INT TERM

ne_port=$(free_port)
"$NE" --web.listen-address="127.0.0.1:$ne_port" --collector.disable-defaults --collector.textfile \
	--collector.textfile.directory="$TMP/textfile" >"$TMP/ne.log" 2>&1 &
ne=$!
prom_port=$(free_port)
cat >"$TMP/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: node
    static_configs:
      - targets: ['127.0.0.1:$ne_port']
EOF
"$PROM" --config.file="$TMP/prometheus.yml" --storage.tsdb.path="$TMP/data" \
	--web.listen-address="127.0.0.1:$prom_port" >"$TMP/prom.log" 2>&1 &
prom=$!

# until Prometheus has scraped the run's series (at most 60 s)
for i in $(seq 600); do
	python3 - "$prom_port" 2>/dev/null <<'PY' && break
import json, sys, urllib.parse, urllib.request
q = urllib.parse.urlencode({"query": "tracetax_run_start_timestamp_seconds"})
r = json.load(urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/api/v1/query?{q}", timeout=2))
sys.exit(0 if r["data"]["result"] else 1)
PY
	kill -0 "$ne" 2>/dev/null || fail "node_exporter exited: $(cat "$TMP/ne.log")"
	kill -0 "$prom" 2>/dev/null || fail "prometheus exited: $(tail -5 "$TMP/prom.log")"
	[ "$i" = 600 ] && fail "no scrape of the run in 60 s: $(tail -5 "$TMP/prom.log")"
	sleep 0.1
done
echo "prometheus 127.0.0.1:$prom_port scraped node_exporter 127.0.0.1:$ne_port"

python3 - "$DASH" "http://127.0.0.1:$prom_port" <<'PY' || fail "the dashboard's queries"
import json, re, sys, urllib.parse, urllib.request
dash, base = json.load(open(sys.argv[1])), sys.argv[2]

def api(path, **params):
    url = f"{base}/api/v1/{path}?{urllib.parse.urlencode(params, doseq=True)}"
    try:
        r = json.load(urllib.request.urlopen(url, timeout=10))
    except urllib.error.HTTPError as e:
        r = json.load(e)
    if r.get("status") != "success":
        raise RuntimeError(f"{r.get('errorType')}: {r.get('error')}")
    return r["data"]

values = {}	# variable -> what $var becomes
first = {}	# variable -> its first value: a second pass with each variable set
builtins = {"__range": "1h", "__interval": "15s", "__rate_interval": "1m", "__range_s": "3600"}
def subst(expr):
    def one(m):
        name = m.group(1) or m.group(2) or m.group(3)
        if name in values:
            return values[name]
        if name in builtins:
            return builtins[name]
        raise RuntimeError(f"unknown variable ${name}")
    return re.sub(r"\$\{(\w+)(?::\w+)?\}|\[\[(\w+)\]\]|\$(\w+)", one, expr)

checked, bad = [], []
# the variables, in order: each may use those before it
for v in dash["templating"]["list"]:
    if v["type"] == "datasource":
        values[v["name"]] = "prometheus"
        continue
    if v["type"] != "query":
        bad.append(f"variable {v['name']}: type {v['type']} not checked")
        continue
    q = v["query"]["query"] if isinstance(v["query"], dict) else v["query"]
    m = re.fullmatch(r"\s*label_values\((.*),\s*(\w+)\)\s*", q, re.S)
    if not m:
        bad.append(f"variable {v['name']}: not label_values(SELECTOR, LABEL): {q}")
        continue
    expr = subst(m.group(1))
    try:
        found = sorted({s[m.group(2)] for s in api("series", **{"match[]": expr}) if m.group(2) in s})
    except RuntimeError as e:
        bad.append(f"variable {v['name']}: {expr}: {e}")
        continue
    checked.append((len(found), f"${v['name']}: label_values({expr}, {m.group(2)})"))
    if not found:
        bad.append(f"variable {v['name']}: no values: {expr}")
    # "All", as Grafana sends it: the allValue, else every value as a regex
    values[v["name"]] = v.get("allValue") or "(" + "|".join(map(re.escape, found)) + ")"
    # as Grafana's Prometheus source escapes a value for =~ inside a string
    first[v["name"]] = re.sub(r'([\\^$*+?.()|\[\]{}])', r'\\\\\1', found[0]) if found else ""

def panels(ps):
    for p in ps:
        yield p
        yield from panels(p.get("panels", []))
# Once with every variable at "All" (.* also matches a label that is not
# there), once at its first value (a label the series lack then matches none).
for setting, vals in (("all", dict(values)), ("first", dict(values, **first))):
    values = vals
    for p in panels(dash["panels"]):
        for t in p.get("targets", []):
            if "expr" not in t:
                bad.append(f"panel '{p['title']}' {t.get('refId')}: a target with no expr")
                continue
            expr = subst(t["expr"])
            try:
                n = len(api("query", query=expr)["result"])
            except RuntimeError as e:
                bad.append(f"panel '{p['title']}': {expr}: {e}")
                continue
            checked.append((n, f"{p['title']}: {expr}"))
            if not n:
                bad.append(f"panel '{p['title']}' ({setting}): no result: {expr}")
for n, what in checked:
    print(f"{n:4d}  {what}")
for b in bad:
    print("FAIL:", b)
if bad:
    sys.exit(1)
if len(checked) < 10:
    sys.exit(f"only {len(checked)} expressions: the dashboard was not read")
print(f"{len(checked)} expressions, each answered by Prometheus with at least one series")
PY
assert_clean
echo "ok"
