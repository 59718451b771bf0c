# The HTML report in a real browser: Debian's chromium, headless, loads it
# and dumps the DOM; it must hold one bar per ok cell, every tracer's name,
# the embedded document equal to the stored one, no external URL in any
# src or href, and the browser must log no console error. A screenshot at
# laptop width is kept in $B/test-output/.
. "$(dirname "$0")/lib.sh"
command -v chromium >/dev/null || skip "chromium not installed (scripts/deps.sh installs it)"
OUT=$B/test-output
mkdir -p "$OUT" || fail "cannot create '$OUT'"

# The default plan's document (a real run, kept as a fixture), from the store;
# and two runs for the comparison.
"$TT" import tests/fixtures/docs/default.json tests/fixtures/docs/small.json tests/fixtures/docs/small.json \
	>/dev/null || fail "import exited $?"
"$TT" report 1 -o "$TMP/one.html" || fail "report 1 exited $?"
"$TT" report 2 3 -o "$TMP/two.html" || fail "report 2 3 exited $?"
"$TT" export 1 --format json >"$TMP/one.json" || fail "export 1"

# chromium HTML SHOT ARGS...: the DOM after load on stdout, its log in $TMP/chrome.log
chromium_run() {
	local html=$1 profile rc; shift
	profile=$(mktemp -d /tmp/tt-chromium.XXXXXX) || fail "cannot make a profile directory"
	timeout -k 5 120 chromium --headless --no-sandbox --disable-gpu --user-data-dir="$profile" \
		--disable-background-networking --disable-component-update --disable-sync \
		--no-first-run --no-default-browser-check --hide-scrollbars \
		--enable-logging=stderr --v=0 "$@" "file://$html" 2>"$TMP/chrome.log"
	rc=$?
	# its helpers (zygote, GPU, crashpad) go with it: none may outlive the run
	for _ in $(seq 50); do pgrep -f -- "$profile" >/dev/null || break; sleep 0.1; done
	pgrep -a -f -- "$profile" && fail "chromium processes left running"
	rm -rf "$profile"
	return $rc
}

for page in one two; do
	chromium_run "$TMP/$page.html" --dump-dom >"$TMP/$page.dom" || fail "chromium exited $? on $page.html"
	grep -i 'CONSOLE' "$TMP/chrome.log" && fail "$page.html: console messages"
	grep -iE 'Uncaught|Refused to|net::ERR_' "$TMP/chrome.log" && fail "$page.html: the browser complained"
done
chromium_run "$TMP/one.html" --window-size=1366,3200 --screenshot="$OUT/report.png" >/dev/null ||
	fail "chromium could not take the screenshot"
[ -s "$OUT/report.png" ] || fail "no screenshot"
echo "screenshot: $OUT/report.png"

python3 - "$TMP/one.dom" "$TMP/one.json" "$TMP/one.html" "$TMP/two.dom" <<'PY' || fail "the report's DOM"
import html.parser, json, re, sys

class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.bars, self.pairs, self.urls, self.scripts, self.text = 0, 0, [], [], []
        self.in_script = None
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        cls = (a.get("class") or "").split()
        if tag == "g" and "bar" in cls:
            self.bars += 1
        if tag == "g" and "pair" in cls:
            self.pairs += 1
        for k in ("src", "href", "xlink:href", "action", "poster"):
            if a.get(k) is not None:
                self.urls.append(a[k])
        if tag == "script":
            self.in_script = a
            self.scripts.append([a, ""])
        if tag in ("link", "iframe", "object", "embed", "img"):
            self.urls.append(f"<{tag}>")
    def handle_endtag(self, tag):
        if tag == "script":
            self.in_script = None
    def handle_data(self, data):
        if self.in_script is not None:
            self.scripts[-1][1] += data
        else:
            self.text.append(data)

def parse(path):
    p = Page()
    p.feed(open(path, encoding="utf-8").read())
    return p

one, doc, raw, two = parse(sys.argv[1]), json.load(open(sys.argv[2])), open(sys.argv[3]).read(), parse(sys.argv[4])
ok = [c for c in doc["cells"] if c["status"] == "ok"]
bad = []
if one.bars != len(ok):
    bad.append(f"{one.bars} bars for {len(ok)} ok cells")
text = " ".join(one.text)
missing = sorted({c["tracer"] for c in doc["cells"] if c["tracer"] not in text})
if missing:
    bad.append(f"tracers not named: {missing}")
data = [s for a, s in one.scripts if a.get("type") == "application/json"]
if len(data) != 1 or json.loads(data[0]) != doc:
    bad.append("the embedded document is not the stored one")
if any(a.get("type") != "application/json" for a, s in one.scripts + two.scripts):
    bad.append("a script that is not data")
urls = one.urls + two.urls
if urls:
    bad.append(f"links to elsewhere: {urls[:5]}")
if re.search(r"@import|url\(|https?://", raw.split("<script")[0]):
    bad.append("an external reference in the page itself")
small = 6   # ok cells of small.json, all compared (3 reps: too few for a verdict)
if two.bars != 2 * small or two.pairs != small:
    bad.append(f"two runs: {two.bars} bars and {two.pairs} pairs, want {2 * small} and {small}")
if "too few reps" not in " ".join(two.text):
    bad.append("two runs: no verdicts")
for b in bad:
    print(b)
print(f"{one.bars} bars, {len(doc['cells'])} cells named, document embedded; two runs: {two.pairs} pairs")
sys.exit(1 if bad else 0)
PY
exit 0
