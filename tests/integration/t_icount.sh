#!/bin/bash
# t_icount: run --kernel under TCG counts instructions (qemu -icount shift=0,
# docs/vm.md), and they are a property of the kernel's path, not of the run:
# two runs of one plan on Debian's 6.1 (make debian-kernel), each in a VM of
# its own, agree within 0.5% on every cell, the median of its reps (the A/A
# cell, whose figure is near 0, within 2 instructions), with exact hits. The documents say
# environment.unit "instructions" (and are valid), the table says instr,
# compare of the two runs speaks instructions and finds nothing worse, and
# compare of one against a run in ns is refused in one line, exit 5.
. "$(dirname "$0")/lib.sh"
need_vm_kernel
export TRACETAX_VM_ACCEL=tcg TRACETAX_STATE_DIR=$TMP/state
unset TRACETAX_VM_ICOUNT TRACETAX_VM_ICOUNT_SLEEP

# a small plan: the A/A cell, a tracepoint, the seeds' kprobe, the function tracer
PLAN=(-w getpid -t none,bpf:tp/count,bpf:kprobe/count,ftrace:function --reps 6 --rounds 3 -n 100000 --no-store)
for i in 1 2; do
	"$TT" run --kernel "$K" "${PLAN[@]}" --json "$TMP/r$i.json" >"$TMP/out$i" 2>"$TMP/err$i" ||
		fail "run $i --kernel: exit $?: $(tail -n 5 "$TMP/err$i")"
	python3 tests/validate_json.py "$TMP/r$i.json" || fail "run $i: its document is not valid"
	grep -q "^tracetax: qemu -icount shift=0,sleep=on, one vCPU: the guest's figures are instructions" "$TMP/err$i" ||
		fail "run $i: qemu's -icount not said: $(grep -v '^\[' "$TMP/err$i" | head -5)"
	grep -q "^in a VM: kernel $REL, accel tcg with -icount: every figure is guest instructions (instructions/event), not ns\$" "$TMP/out$i" ||
		fail "run $i: the table's header does not say instructions: $(head -4 "$TMP/out$i")"
	grep -q "^tracer  *base instr  *traced instr  *+instr/event \[95% CI\]" "$TMP/out$i" ||
		fail "run $i: the table's columns are not in instructions: $(grep -m1 '^tracer' "$TMP/out$i")"
	grep -q "^a trap (int3), a serializing instruction, a cache miss or a mitigation costs many" "$TMP/out$i" ||
		fail "run $i: the footer does not say what instructions are not"
done

python3 - "$TMP/r1.json" "$TMP/r2.json" >"$TMP/det" <<'PY' || fail "two runs of the same plan differ: $(cat "$TMP/det")"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
bad = []
for d, n in ((a, 1), (b, 2)):
    e = d["environment"]
    if e.get("unit") != "instructions" or e.get("vm") != "tcg":
        bad.append("run %d: environment unit %s vm %s" % (n, e.get("unit"), e.get("vm")))
    for c in d["cells"]:
        if c["status"] != "ok":
            bad.append("run %d: %s %s: %s" % (n, c["tracer"], c["status"], c.get("reason")))
        elif c["tracer"] != "none" and c["hits"] != c["events"]:
            bad.append("run %d: %s: %s hits of %s events" % (n, c["tracer"], c["hits"], c["events"]))
ka = [(c["tracer"], c["workload"]) for c in a["cells"]]
kb = [(c["tracer"], c["workload"]) for c in b["cells"]]
if ka != kb or len(ka) != 4:
    bad.append("cells differ: %s against %s" % (ka, kb))
worst = 0.0
for ca, cb in zip(a["cells"], b["cells"]):
    if ca["status"] != "ok" or cb["status"] != "ok":
        continue
    # the median of the reps: a rep's accident (the kernel's kprobe optimizer,
    # a delayed work of the host's time under sleep=on, landing in it) moves
    # the mean of 6 reps by up to 1% (docs/vm.md); the mean is printed too
    x, y = ca["overhead_ns_per_event"]["median"], cb["overhead_ns_per_event"]["median"]
    mx, my = ca["overhead_ns_per_event"]["mean"], cb["overhead_ns_per_event"]["mean"]
    big = max(abs(x), abs(y))
    if ca["tracer"] == "none":
        ok = abs(x - y) <= 2
    else:
        ok = big >= 50 and abs(x - y) <= 0.005 * big
        worst = max(worst, abs(x - y) / big)
    print("%-18s median %9.2f %9.2f  %+.2f instructions (%.3f%%)%s; mean %.2f %.2f (%.3f%%)" % (
          ca["tracer"], x, y, y - x, 100 * abs(x - y) / big if big else 0, "" if ok else "  OVER",
          mx, my, 100 * abs(mx - my) / max(abs(mx), abs(my), 1e-9)))
    if not ok:
        bad.append("%s: %.2f and %.2f instructions/event" % (ca["tracer"], x, y))
print("largest difference: %.3f%%" % (100 * worst))
if bad:
    print("; ".join(bad))
    sys.exit(1)
PY
echo "two runs on $REL, instructions/event:" >&2
cat "$TMP/det" >&2

# compare: two runs in instructions, in instructions; nothing is worse
"$TT" compare "$TMP/r1.json" "$TMP/r2.json" >"$TMP/cmp" 2>"$TMP/cmp.err"
rc=$?
[ $rc = 0 ] || fail "compare of the two runs: exit $rc, want 0: $(cat "$TMP/cmp" "$TMP/cmp.err")"
grep -q "  A instr  *B instr  " "$TMP/cmp" || fail "compare: not in instructions: $(cat "$TMP/cmp")"
grep -Eq "^[0-9]+ worse, [0-9]+ better, [1-9][0-9]* same, " "$TMP/cmp" || fail "compare: no cell called the same: $(tail -8 "$TMP/cmp")"
grep -q "^0 worse, 0 better, " "$TMP/cmp" || fail "compare: a run called another worse or better: $(cat "$TMP/cmp")"
# against a run in ns (a host's document): one line, exit 5
"$TT" compare "$TMP/r1.json" tests/fixtures/docs/small.json >"$TMP/mix" 2>"$TMP/mix.err"
rc=$?
[ $rc = 5 ] || fail "compare of instructions and ns: exit $rc, want 5: $(cat "$TMP/mix" "$TMP/mix.err")"
[ -s "$TMP/mix" ] && fail "compare of instructions and ns showed cells: $(cat "$TMP/mix")"
grep -qx "tracetax: error: runs '$TMP/r1.json' and 'tests/fixtures/docs/small.json' cannot be compared: A is in instructions/event (qemu -icount), B in ns/event: instructions and ns are not comparable" \
	"$TMP/mix.err" || fail "compare of instructions and ns: $(cat "$TMP/mix.err")"
[ -z "$(ls /sys/kernel/tracing/instances 2>/dev/null)" ] || fail "tracefs instances left on the host"
echo "ok: two runs under -icount on $REL agree within 0.5% a cell"
