# compare: a run against itself is the same everywhere; synthetic documents
# whose reps differ by a known shift are worse (the CI holding the shift),
# better the other way, the same below the threshold, 'too few reps' at 2
# reps; the exit code follows the verdicts; unlike machines are said loudly.
. "$(dirname "$0")/lib.sh"

# Documents from a real one: 8 reps of 900 ns + 200 ns per event (+ a
# small wiggle), bpf:tp/count on getpid shifted by SHIFT; noise floors of 3 ns.
python3 - "$TMP" <<'PY' || fail "cannot make the documents"
import copy, json, sys
tmp = sys.argv[1]
base = json.load(open("tests/fixtures/docs/small.json"))
wiggle = [0.0, 1.5, -1.0, -0.5, 0.8, -0.3, 0.4, -0.9]

def make(name, shift, nreps, kernel=None, drop=None, other=None, cv=0.002, base_ns=900.0, vm=None, unit=None):
    d = copy.deepcopy(base)
    for f in d["noise_floors"]:
        f["ns_per_event"], f["aa_ci95"] = 3.0, [-3.0, 3.0]
    for c in d["cells"]:
        if c["status"] != "ok":
            continue
        over = 0.0 if c["aa"] else 200.0
        if c["tracer"] == "bpf:tp/count" and c["workload"] == "getpid":
            over += shift
        runs = []
        for i in range(nreps):
            r = dict(c["runs"][0])
            b = base_ns + wiggle[(i + 1) % 8]
            r.update(baseline_ns_per_op=b, traced_ns_per_op=b + over + wiggle[i % 8],
                     outlier=False, traced_first=bool(i % 2))
            runs.append(r)
        c["runs"], c["reps"], c["outliers"], c["baseline_cv"] = runs, nreps, 0, cv
        for k in ("baseline_ns_per_op", "traced_ns_per_op", "overhead_ns_per_event"):
            c[k]["n"] = nreps
        c["baseline_ns_per_op"]["mean"] = base_ns
    if kernel:
        d["environment"]["kernel"] = kernel
    if other:
        d["environment"]["other_tracers"] = other
    if vm:
        d["environment"]["vm"] = vm
    if unit:
        d["environment"]["unit"] = unit
    if drop:
        d["cells"] = [c for c in d["cells"] if c["tracer"] != drop]
    json.dump(d, open(f"{tmp}/{name}.json", "w"), indent=1)

make("a", 0, 8)
make("worse", 20, 8)        # 10% of 200 ns
make("slight", 4, 8)        # 2%: under the 5% threshold
make("two", 20, 2)
make("other", 0, 8, kernel="6.12.0-other", drop="ftrace:syscall/noread")
make("busy", 0, 8, other="bpf prog 42 'tt_attach_tp' (tracepoint)")
make("noisy", 20, 8, cv=0.08)    # the shift of "worse", on a baseline that varied 8%
make("slow", 0, 8, base_ns=1000.0)  # the untraced workload 11% slower
make("tcg", 0, 8, vm="tcg")             # a guest of run --kernel under TCG
make("tcg-worse", 20, 8, vm="tcg")
# guests under qemu's -icount: their figures are instructions (docs/vm.md)
make("icount", 0, 8, vm="tcg", unit="instructions")
make("icount-worse", 20, 8, vm="tcg", unit="instructions")
PY
for d in a worse slight two other busy noisy slow tcg tcg-worse icount icount-worse; do
	python3 tests/validate_json.py "$TMP/$d.json" || fail "synthetic document '$d' is not valid"
done

cmp_run() {  # cmp_run NAME A B [ARGS]: compare into $TMP/NAME, its exit in $rc
	local name=$1; shift
	"$TT" compare "$@" >"$TMP/$name" 2>"$TMP/$name.err"
	rc=$?
}
verdicts() {  # verdicts FILE: the verdict column of its rows, one per line
	sed -n 's/.*  \(worse\|better\|same\|too few reps\|noisy\|not comparable\)\(  .*\)\?$/\1/p' "$1"
}
row() {  # row FILE TRACER WORKLOAD
	grep "^$2  *$3 " "$1"
}

cmp_run self "$TMP/a.json" "$TMP/a.json"
[ "$rc" = 0 ] || fail "a vs a: exit $rc: $(cat "$TMP/self.err")"
[ "$(verdicts "$TMP/self" | sort -u)" = same ] || fail "a vs a: not all same: $(cat "$TMP/self")"
[ "$(verdicts "$TMP/self" | wc -l)" = 6 ] || fail "a vs a: want 6 compared cells: $(cat "$TMP/self")"
grep -q 'bpf:kprobe/count (getpid, 1 thread): not compared: skipped in A' "$TMP/self" ||
	fail "a vs a: the skipped cell is not listed"

cmp_run worse "$TMP/a.json" "$TMP/worse.json"
cat "$TMP/worse"
[ "$rc" = 4 ] || fail "a vs worse: exit $rc, want 4"
line=$(row "$TMP/worse" bpf:tp/count getpid)
[[ $line == *"  worse" ]] || fail "a vs worse: bpf:tp/count getpid is not worse: $line"
python3 - "$line" <<'PY' || fail "a vs worse: the CI does not hold the shift of 20: $line"
import re, sys
d, lo, hi = map(float, re.search(r"\+(-?[0-9.]+) \[(-?[0-9.]+), (-?[0-9.]+)\]", sys.argv[1]).groups())
print(f"B - A {d} [{lo}, {hi}]")
sys.exit(0 if lo < 20 < hi and abs(d - 20) < 1e-6 else 1)
PY
[ "$(verdicts "$TMP/worse" | grep -c same)" = 5 ] || fail "a vs worse: want the 5 other cells same"
grep -q '^1 worse, 0 better, 5 same, 0 too few reps, 0 noisy$' "$TMP/worse" || fail "a vs worse: the count line"
grep -q 'Holm-adjusted' "$TMP/worse" || fail "the footer does not name Holm"

cmp_run better "$TMP/worse.json" "$TMP/a.json"
[ "$rc" = 0 ] || fail "worse vs a: exit $rc, want 0 (better is not worse)"
[[ $(row "$TMP/better" bpf:tp/count getpid) == *"  better" ]] || fail "worse vs a: not better"

cmp_run slight "$TMP/a.json" "$TMP/slight.json"
[ "$rc" = 0 ] || fail "a vs slight: exit $rc"
[ "$(verdicts "$TMP/slight" | sort -u)" = same ] || fail "a vs slight: a 2% shift called: $(cat "$TMP/slight")"
cmp_run slight1 "$TMP/a.json" "$TMP/slight.json" --threshold 1
[ "$rc" = 4 ] || fail "a vs slight at --threshold 1: exit $rc, want 4"

cmp_run two "$TMP/a.json" "$TMP/two.json"
[ "$rc" = 0 ] || fail "a vs two: exit $rc"
[ "$(verdicts "$TMP/two" | sort -u)" = "too few reps" ] || fail "a vs two: $(cat "$TMP/two")"

cmp_run noisy "$TMP/a.json" "$TMP/noisy.json"
[ "$rc" = 0 ] || fail "a vs noisy: exit $rc, want 0 (no verdict)"
[ "$(verdicts "$TMP/noisy" | sort -u)" = noisy ] || fail "a vs noisy: $(cat "$TMP/noisy")"

cmp_run slow "$TMP/a.json" "$TMP/slow.json"
grep -q '^warning: the untraced workload ran 11% slower in B' "$TMP/slow" || fail "a vs slow: no warning: $(head -8 "$TMP/slow")"
[ "$(grep -c '(baseline +11%)' "$TMP/slow")" = 6 ] || fail "a vs slow: want every row's baseline noted"
[ "$(verdicts "$TMP/slow" | sort -u)" = noisy ] || fail "a vs slow: a baseline 11% slower in B, significantly: want no verdict: $(cat "$TMP/slow")"
grep -q 'baseline +' "$TMP/worse" && fail "a vs worse: a baseline noted that did not move"

cmp_run other "$TMP/a.json" "$TMP/other.json"
[ "$rc" = 0 ] || fail "a vs other: exit $rc"
grep -q '^warning: A and B ran on different machines or kernels (kernel differ)' "$TMP/other" ||
	fail "a vs other: no warning: $(head -8 "$TMP/other")"
grep -q '^  kernel: A 6.18\|^  kernel: A .*, B 6.12.0-other$' "$TMP/other" || fail "a vs other: no kernel line"
[ "$(grep -c 'only in A' "$TMP/other")" = 2 ] || fail "a vs other: want 2 cells only in A"

cmp_run busy "$TMP/a.json" "$TMP/busy.json"
grep -q "^warning: B ran beside other tracing (bpf prog 42 'tt_attach_tp' (tracepoint)): its cost is in B's baselines" \
	"$TMP/busy" || fail "a vs busy: no warning: $(head -8 "$TMP/busy")"
grep -q '^warning: A and B ran on different machines' "$TMP/busy" && fail "a vs busy: other tracing is not another machine"

# A TCG guest's ns are not costs: against the host's, the cells without
# verdicts and why, exit 5 (it only warned, and called a cell worse);
# two TCG guests compare as any two runs.
cmp_run tcg "$TMP/a.json" "$TMP/tcg-worse.json"
[ "$rc" = 5 ] || fail "a vs tcg-worse: exit $rc, want 5 (not comparable): $(cat "$TMP/tcg")"
[ "$(verdicts "$TMP/tcg" | sort -u)" = "not comparable" ] || fail "a vs tcg-worse: $(cat "$TMP/tcg")"
[ "$(verdicts "$TMP/tcg" | wc -l)" = 6 ] || fail "a vs tcg-worse: want the 6 cells shown: $(cat "$TMP/tcg")"
grep -q "^no verdicts: A ran on the host, B in a VM of --kernel under tcg: an emulated CPU's ns are not costs" \
	"$TMP/tcg" || fail "a vs tcg-worse: no reason given: $(head -12 "$TMP/tcg")"
grep -q '^0 worse, 0 better, 0 same, 0 too few reps, 0 noisy, 6 not comparable (A ran on the host, B in a VM of --kernel under tcg)$' \
	"$TMP/tcg" || fail "a vs tcg-worse: the count line: $(tail -12 "$TMP/tcg")"
cmp_run tcg2 "$TMP/tcg.json" "$TMP/tcg-worse.json"
[ "$rc" = 4 ] || fail "tcg vs tcg-worse: exit $rc, want 4 (worse): $(cat "$TMP/tcg2")"
[[ $(row "$TMP/tcg2" bpf:tp/count getpid) == *"  worse" ]] || fail "tcg vs tcg-worse: not worse: $(cat "$TMP/tcg2")"

# Instructions are a unit: two runs in instructions compare, in instructions;
# one in instructions against one in ns (the host's, TCG's ns) is refused
# in one line, exit 5, no cell shown.
cmp_run icount "$TMP/icount.json" "$TMP/icount-worse.json"
[ "$rc" = 4 ] || fail "icount vs icount-worse: exit $rc, want 4 (worse): $(cat "$TMP/icount")"
[[ $(row "$TMP/icount" bpf:tp/count getpid) == *"  worse" ]] || fail "icount vs icount-worse: not worse: $(cat "$TMP/icount")"
grep -q "  A instr  *B instr  " "$TMP/icount" || fail "icount vs icount-worse: the header is not in instructions: $(cat "$TMP/icount")"
grep -q "mean overhead per event (instructions)" "$TMP/icount" || fail "icount vs icount-worse: the footer is not in instructions"
for pair in "a icount" "icount a" "tcg icount-worse"; do
	set -- $pair
	cmp_run mixed "$TMP/$1.json" "$TMP/$2.json"
	[ "$rc" = 5 ] || fail "$1 vs $2: exit $rc, want 5 (instructions against ns): $(cat "$TMP/mixed" "$TMP/mixed.err")"
	[ -s "$TMP/mixed" ] && fail "$1 vs $2: cells shown beside a refusal: $(cat "$TMP/mixed")"
	[ "$(wc -l <"$TMP/mixed.err")" = 1 ] || fail "$1 vs $2: want one line: $(cat "$TMP/mixed.err")"
	grep -Eq "^tracetax: error: runs '.*' and '.*' cannot be compared: A is in (instructions|ns)/event.*, B in (instructions|ns)/event.*: instructions and ns are not comparable\$" \
		"$TMP/mixed.err" || fail "$1 vs $2: $(cat "$TMP/mixed.err")"
done

# A real run against itself, from the store.
need_root
"$TT" run -q -t none,bpf:tp/count -n 3000 --reps 5 >/dev/null 2>&1 || fail "run exited $?"
cmp_run real last last
[ "$rc" = 0 ] || fail "last vs last: exit $rc: $(cat "$TMP/real.err")"
# the same reps on both sides: never a change (a noisy baseline gets no verdict at all)
[ "$(verdicts "$TMP/real" | grep -cx 'same\|noisy')" = 2 ] || fail "last vs last: $(cat "$TMP/real")"
grep -q '^environment and options: no difference$' "$TMP/real" || fail "last vs last: a difference"
cmp_run nostore last "$TMP/a.json" --store "$TMP/none.db"
[ "$rc" = 1 ] || fail "compare with a missing store: exit $rc, want 1"
assert_clean
