# tracetax clocks: every source appears; those this machine has with a
# positive cost and a resolution, the others with a reason; the vDSO
# answer is the kernel's (CPU-time clocks always make a syscall).
. "$(dirname "$0")/lib.sh"

"$TT" clocks --json --reads 20000 >"$TMP/c.json" 2>"$TMP/err" || fail "tracetax clocks --json failed: $(cat "$TMP/err")"
python3 - "$TMP/c.json" "$(uname -m)" <<'PY' || exit 1
import json, sys
d, arch = json.load(open(sys.argv[1])), sys.argv[2]
want = ["CLOCK_REALTIME", "CLOCK_REALTIME_COARSE", "CLOCK_MONOTONIC", "CLOCK_MONOTONIC_COARSE",
        "CLOCK_MONOTONIC_RAW", "CLOCK_BOOTTIME", "CLOCK_PROCESS_CPUTIME_ID",
        "CLOCK_THREAD_CPUTIME_ID", "gettimeofday", "time", "rdtsc", "rdtscp"]
src = {s["name"]: s for s in d["sources"]}
bad = ["%s missing" % n for n in want if n not in src]
for s in d["sources"]:
    if s["available"]:
        if not (s["mean_ns"] and s["mean_ns"] > 0):
            bad.append("%s: cost %s" % (s["name"], s["mean_ns"]))
        if not (s["resolution_ns"] and s["resolution_ns"] > 0):
            bad.append("%s: resolution %s" % (s["name"], s["resolution_ns"]))
        if s["p99_ns"] is None or s["p99_ns"] < 0 or s["reads"] != 20000 or s["monotonic"] is None:
            bad.append("%s: p99 %s, reads %s, monotonic %s" % (s["name"], s["p99_ns"], s["reads"], s["monotonic"]))
    elif not s["reason"]:
        bad.append("%s: not available, and no reason" % s["name"])
for n in want[:8]:
    if n in src and not src[n]["available"]:
        bad.append("%s: clock_gettime clocks are on every Linux" % n)
for n in ("CLOCK_PROCESS_CPUTIME_ID", "CLOCK_THREAD_CPUTIME_ID"):
    if n in src and src[n]["vdso"] != "no":
        bad.append("%s: vdso %s, but the vDSO serves no CPU-time clock" % (n, src[n]["vdso"]))
if arch == "x86_64":
    if src["CLOCK_MONOTONIC_COARSE"]["vdso"] != "yes":
        bad.append("CLOCK_MONOTONIC_COARSE: vdso %s" % src["CLOCK_MONOTONIC_COARSE"]["vdso"])
    if src["rdtsc"]["vdso"] != "n/a" or not src["rdtsc"]["available"] or not d["tsc_hz"]:
        bad.append("rdtsc: %s, tsc_hz %s" % (src["rdtsc"], d["tsc_hz"]))
if not d["clocksource"] or not d["available_clocksources"]:
    bad.append("no clocksource: %s" % d["clocksource"])
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
PY
"$TT" clocks --reads 5000 >"$TMP/out" 2>&1 || fail "tracetax clocks failed: $(cat "$TMP/out")"
for n in CLOCK_REALTIME CLOCK_MONOTONIC_RAW CLOCK_BOOTTIME gettimeofday time rdtsc rdtscp; do
	grep -q "^$n " "$TMP/out" || fail "table lacks $n: $(cat "$TMP/out")"
done
grep -q '^clocksource ' "$TMP/out" || fail "table lacks the clocksource"
"$TT" clocks --reads 5 >/dev/null 2>"$TMP/err"; rc=$?
[ $rc = 2 ] || fail "--reads 5 exited $rc, want 2"
"$TT" clocks --bogus >/dev/null 2>&1; [ $? = 2 ] || fail "an unknown option did not exit 2"
assert_clean
