# Any command as a tracer (cmd:'TEMPLATE'): a template that wraps strace
# gives the hits strace gives, exactly; one that attaches bpftrace to {pid}
# counts every call, ready when its BEGIN probe says so; one whose tool
# refuses its command line fails its own cell with the tool's words, and
# the next cell runs; nothing of a tool is left.
. "$(dirname "$0")/lib.sh"
need_root
command -v strace >/dev/null || skip "strace is not installed (scripts/deps.sh)"

# a comma inside the template is the template's, not the list's; N calls a
# thread and run, each a line of strace's to count
N=5000
"$TT" run -q -w getpid -t "strace,cmd:'strace -f -e trace=getpid,getppid {cmd}'" -T 1,2 -n $N --reps 2 \
	--hits '^\[pid +[0-9]+\] getpid\(' --json "$TMP/w.json" >"$TMP/out" 2>&1 ||
	fail "cmd: wrapping strace failed: $(cat "$TMP/out")"
python3 - "$TMP/w.json" "$N" <<'PY' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))
n = int(sys.argv[2])
hits = {}
for c in d["cells"]:
    if c["status"] != "ok":
        print("FAIL: %s: %s: %s" % (c["tracer"], c["status"], c["reason"])); sys.exit(1)
    want = c["threads"] * (n + c["warmup"])
    for r in c["runs"]:
        if r["hits"] != want or r["events"] != want:
            print("FAIL: %s %dT: hits %s, events %s, want %d" % (c["tracer"], c["threads"], r["hits"], r["events"], want)); sys.exit(1)
    hits.setdefault(c["threads"], set()).add(c["tracer"].split(":")[0])
if any(v != {"strace", "cmd"} for v in hits.values()):
    print("FAIL: cells missing: %s" % hits); sys.exit(1)
PY
python3 tests/validate_json.py "$TMP/w.json" docs/schema.json || fail "schema validation"
assert_clean

if command -v bpftrace >/dev/null; then
	# a \" inside "..." is a quote, as in a shell: bpftrace gets printf("go\n")
	prog='tracepoint:syscalls:sys_enter_getpid /pid == {pid}/ { @n = count(); } BEGIN { printf(\"go\\n\"); }'
	"$TT" run -q -w getpid -t "cmd:'bpftrace -e \"$prog\"'" -n 20000 --reps 2 --ready '^go$' --hits '^@n: ([0-9]+)' \
		--json "$TMP/a.json" >"$TMP/out" 2>&1 || fail "cmd: attaching bpftrace failed: $(cat "$TMP/out")"
	python3 - "$TMP/a.json" <<'PY' || exit 1
import json, sys
c = json.load(open(sys.argv[1]))["cells"][0]
if c["status"] != "ok" or any(r["hits"] != r["events"] for r in c["runs"]) or c["startup_ms"] is None:
    print("FAIL: %s: %s, hits %s of %s: %s" % (c["tracer"], c["status"], c["hits"], c["events"], c["reason"])); sys.exit(1)
PY
	assert_clean
fi

# a long word runs whole (words over ~496 bytes were cut silently): a 3.6 KiB
# sh -c program whose end execs the workload and prints a line --hits counts
pad=$(head -c 3600 /dev/zero | tr '\0' x)
"$TT" run -q -w getpid -t "cmd:'sh -c \": $pad; echo the-end-of-the-program >&2; exec \\\"\\\$@\\\"\" tt {cmd}'" \
	-n 2000 --reps 1 --hits '^the-end-of-the-program$' --json "$TMP/long.json" >"$TMP/out" 2>&1 ||
	fail "cmd: a long word: $(tail -3 "$TMP/out")"
[ "$(json_get "$TMP/long.json" 'd["cells"][0]["runs"][0]["hits"]')" = 1 ] ||
	fail "cmd: a long word lost its end: $(json_get "$TMP/long.json" 'd["cells"][0]["reason"]')"
if command -v bpftrace >/dev/null; then
	# a bpftrace program of 3.9 KiB, its probe at the end: counts every call
	prog="/* $(head -c 3700 /dev/zero | tr '\0' c) */ "'tracepoint:syscalls:sys_enter_getpid /pid == {pid}/ { @n = count(); } BEGIN { printf(\"go\\n\"); }'
	"$TT" run -q -w getpid -t "cmd:'bpftrace -e \"$prog\"'" -n 20000 --reps 1 --ready '^go$' --hits '^@n: ([0-9]+)' \
		--json "$TMP/lb.json" >"$TMP/out" 2>&1 || fail "cmd: a 3.9 KiB bpftrace program: $(tail -3 "$TMP/out")"
	python3 - "$TMP/lb.json" <<'PY' || exit 1
import json, sys
c = json.load(open(sys.argv[1]))["cells"][0]
if c["status"] != "ok" or any(r["hits"] != r["events"] for r in c["runs"]):
    print("FAIL: a long bpftrace program: %s, hits %s of %s: %s" % (c["status"], c["hits"], c["events"], c["reason"])); sys.exit(1)
PY
fi
# past CMDLINE_MAX (a 4.2 KiB program): refused in one line, exit 2, nothing run
prog="/* $(head -c 4200 /dev/zero | tr '\0' c) */ BEGIN { exit(); }"
"$TT" run -q -w getpid -t "cmd:'bpftrace -e \"$prog\"'" --reps 1 >"$TMP/out" 2>&1
rc=$?
[ "$rc" = 2 ] || fail "cmd: a 4.2 KiB program: exit $rc, want 2"
[ "$(wc -l <"$TMP/out")" = 1 ] || fail "cmd: a 4.2 KiB program: want one line: $(cut -c1-200 "$TMP/out")"
grep -q "^tracetax: command of 'cmd:' too long (4[0-9]* characters, at most 4000)" "$TMP/out" ||
	fail "cmd: a 4.2 KiB program: $(cut -c1-200 "$TMP/out")"
assert_clean

# without --hits the hits are unknown, never the events
"$TT" run -q -w getpid -t "cmd:'strace -f -qq -e trace=none {cmd}'" -n 2000 --reps 1 --json "$TMP/u.json" >"$TMP/out" 2>&1 ||
	fail "cmd: without --hits failed: $(cat "$TMP/out")"
[ "$(json_get "$TMP/u.json" 'd["cells"][0]["runs"][0]["hits"]')" = None ] || fail "hits without --hits"

# a tool that refuses its command line fails its own cell, with its words
"$TT" run -q -w getpid -t "cmd:'strace --tracetax-no-such-option -f {cmd}',none" -n 2000 --reps 1 \
	--json "$TMP/e.json" >"$TMP/out" 2>&1
rc=$?
[ "$rc" = 1 ] || fail "a refused command line: exit $rc, want 1: $(cat "$TMP/out")"
python3 - "$TMP/e.json" <<'PY' || exit 1
import json, sys
c = {x["tracer"].split(":")[0]: x for x in json.load(open(sys.argv[1]))["cells"]}
if c["cmd"]["status"] != "failed" or "tracetax-no-such-option" not in (c["cmd"]["reason"] or ""):
    print("FAIL: cmd: %s, reason %s" % (c["cmd"]["status"], c["cmd"]["reason"])); sys.exit(1)
if c["none"]["status"] != "ok":
    print("FAIL: the next cell: %s" % c["none"]["reason"]); sys.exit(1)
PY
assert_clean

# a tool whose last words are not UTF-8 (\377\376): its cell fails with them
# readable, the document and the record are written (issue 15, defect 5)
printf '#!/bin/sh\nprintf "\\377\\376\\n" >&2\nexit 1\n' >"$TMP/bad.sh"
chmod +x "$TMP/bad.sh"
"$TT" run -q -w getpid -t "none,cmd:'$TMP/bad.sh {cmd}'" -n 2000 --reps 1 --json "$TMP/b.json" >"$TMP/out" 2>&1
rc=$?
[ "$rc" = 1 ] || fail "a tool's bytes that are not UTF-8: exit $rc, want 1: $(cat "$TMP/out")"
grep -q 'out of memory' "$TMP/out" && fail "not UTF-8: $(cat "$TMP/out")"
python3 - "$TMP/b.json" <<'PY' || exit 1
import json, sys
c = {x["tracer"].split(":")[0]: x for x in json.load(open(sys.argv[1]))["cells"]}
if c["cmd"]["status"] != "failed" or "\ufffd\ufffd" not in (c["cmd"]["reason"] or ""):
    print("FAIL: not UTF-8: %s, reason %r" % (c["cmd"]["status"], c["cmd"]["reason"])); sys.exit(1)
PY
"$TT" show last >/dev/null || fail "not UTF-8: the run was not recorded"
assert_clean
exit 0
