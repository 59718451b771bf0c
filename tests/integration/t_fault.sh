# A tracer that fails in setup, after spawn, at start or at stop leaves
# nothing behind, its cell says it failed and why, the exit code is 1, and
# the next cell still runs. TRACETAX_FAULT makes the op fail after it ran,
# so its effects (a loaded program, a reader thread, an instance, a ptrace
# helper) are there to be torn down.
. "$(dirname "$0")/lib.sh"
need_root

tested=0
for tracer in ftrace:syscall/read bpf:tp/ringbuf perf:sample seccomp:notify ptrace:all uprobe:tracefs bpf:uprobe/count; do
	available "$tracer" | grep -q . || continue
	w=getpid
	case $tracer in uprobe:*|bpf:uprobe*) w=func ;; esac
	for op in setup spawned start stop; do
		TRACETAX_FAULT="$tracer@$op" "$TT" run -q -w "$w" -t "$tracer,none" -n 3000 --reps 2 \
			--json "$TMP/f.json" >"$TMP/out" 2>&1
		rc=$?
		[ "$rc" = 1 ] || fail "$tracer@$op: exit $rc, want 1: $(cat "$TMP/out")"
		python3 - "$TMP/f.json" "$tracer" "$op" <<'PY' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))
tracer, op = sys.argv[2], sys.argv[3]
c = {x["tracer"]: x for x in d["cells"]}
f, n = c[tracer], c["none"]
if f["status"] != "failed" or "fault injected" not in (f["reason"] or "") or op not in f["reason"]:
    print("FAIL: %s@%s: %s: %s" % (tracer, op, f["status"], f["reason"])); sys.exit(1)
if n["status"] != "ok":
    print("FAIL: %s@%s: the next cell did not run: %s" % (tracer, op, n["reason"])); sys.exit(1)
PY
		assert_clean
	done
	tested=$((tested + 1))
	echo "$tracer: setup, spawned, start, stop faults: failed, torn down, next cell ok"
done
[ "$tested" -gt 0 ] || skip "none of the tracers this test breaks is available"
