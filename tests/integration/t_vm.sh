#!/bin/bash
# t_vm: tracetax run --kernel on Debian's own kernel (make debian-kernel),
# booted under TCG (KVM hangs here, nested: TRACETAX_VM_ACCEL=tcg saves its
# 10 s), where the kernel-function hooks this machine refuses run: every one
# with exact hits and nothing left in the guest (the guest's init compares
# its tracing state before and after); an experiment's kprobe cells and
# their claims; the host's store records the guest's kernel; a bad image is
# one line, exit 2; SIGTERM after boot kills the VM; a guest that hangs
# meets its deadline; nothing of the VM is left on the host (qemu, its /tmp
# directory) nor of tracing. t_vm_host.sh tests the host's side without a boot.
. "$(dirname "$0")/lib.sh"
need_vm_kernel
export TRACETAX_VM_ACCEL=tcg

# what a run --kernel of tracetax PID left (its directory, its qemu); without
# PID, what any tracetax that is gone left (another's may be running)
vm_left() {
	local d p q args
	for d in /tmp/tracetax-vm.${1:-*}.*; do
		[ -e "$d" ] || continue
		p=${d#/tmp/tracetax-vm.}
		{ [ -n "${1:-}" ] || ! kill -0 "${p%%.*}" 2>/dev/null; } && echo "$d"
	done
	pgrep -a qemu-system-x86 | grep "tracetax-vm\\.${1:-}" | while read -r q args; do
		p=${args#*tracetax-vm.}
		{ [ -n "${1:-}" ] || ! kill -0 "${p%%.*}" 2>/dev/null; } && echo "$q $args"
	done
	return 0
}
# the console log a failed run names, its last lines: why a guest did not boot
console() {
	local f
	f=$(sed -n 's/.*its console log: \(.*\.log\)$/\1/p' "$1" | tail -n 1)
	[ -f "$f" ] && printf '\n%s, its last lines:\n%s' "$f" "$(tail -n 15 "$f")"
}
BEFORE=$(vm_left)
[ -z "$BEFORE" ] || echo "note: VM leftovers before the test: $BEFORE" >&2
# the KVM hangs remembered and the consoles kept: the test's own
export TRACETAX_STATE_DIR=$TMP/state

# Not a kernel: one line, exit 2, nothing booted.
"$TT" run --kernel /etc/passwd >"$TMP/out" 2>"$TMP/err"; rc=$?
[ $rc = 2 ] || fail "--kernel /etc/passwd: exit $rc, not 2"
[ "$(wc -l <"$TMP/err")" = 1 ] && grep -q "^tracetax: kernel '/etc/passwd' is not a bootable image$" "$TMP/err" ||
	fail "--kernel /etc/passwd: $(cat "$TMP/err")"

# Every kernel-function mechanism, in the VM.
T=none,bpf:kprobe/count,bpf:kretprobe/count,bpf:kprobe-multi/count,bpf:fentry/count,bpf:fexit/count,ftrace:function,kprobe:tracefs
"$TT" run --kernel "$K" -t "$T" --reps 2 -n 20000 --json "$TMP/vm.json" >"$TMP/out" 2>"$TMP/err"
rc=$?
cat "$TMP/out"
[ $rc = 0 ] || fail "run --kernel: exit $rc: $(tail -n 5 "$TMP/err")$(console "$TMP/err")"
grep -q "left .* behind" "$TMP/err" && fail "the guest's tracetax left: $(grep behind "$TMP/err")"
grep -q "^in a VM: kernel $REL, accel tcg with -icount: every figure is guest instructions (instructions/event), not ns$" "$TMP/out" ||
	fail "no 'in a VM' line in the header: $(head -n 4 "$TMP/out")"
python3 tests/validate_json.py "$TMP/vm.json" >/dev/null || fail "the VM's document is invalid"
# booted straight into its vmlinux (PVH): undone once, kept in the state directory
v=$(ls "$TRACETAX_STATE_DIR"/vmlinux-"$REL"-* 2>/dev/null)
[ -n "$v" ] && [ "$(head -c 4 "$v" | tail -c 3)" = ELF ] ||
	fail "no vmlinux of $REL kept for a PVH boot: $(ls "$TRACETAX_STATE_DIR")"
python3 - "$TMP/vm.json" "$REL" <<'PY' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))
bad = []
e = d["environment"]
if e["kernel"] != sys.argv[2] or e.get("vm") != "tcg":
    bad.append("environment kernel %s vm %s" % (e["kernel"], e.get("vm")))
must = {"bpf:kprobe/count", "bpf:kretprobe/count", "bpf:fentry/count", "bpf:fexit/count",
        "ftrace:function", "kprobe:tracefs"}
for c in d["cells"]:
    t = c["tracer"]
    if c["status"] == "skipped" and t not in must and c["reason"]:
        print("skipped %s: %s" % (t, c["reason"]))   # kprobe-multi without CONFIG_FPROBE
    elif c["status"] != "ok":
        bad.append("%s: %s %s" % (t, c["status"], c["reason"]))
    elif t != "none" and c["hits"] != c["events"]:
        bad.append("%s: hits %s != events %s" % (t, c["hits"], c["events"]))
if bad:
    print("FAIL: " + "; ".join(bad)); sys.exit(1)
PY
# The host's store has the run, with the guest's kernel.
"$TT" history >"$TMP/hist" 2>&1 || fail "history: $(cat "$TMP/hist")"
grep -q " $REL " "$TMP/hist" || fail "the store has no run on kernel $REL: $(cat "$TMP/hist")"
# the guest's figures are the VM's, not the host's: history --by keeps them apart
"$TT" history -t bpf:kprobe/count --by host >"$TMP/byhost" 2>&1 || fail "history --by host: $(cat "$TMP/byhost")"
grep -q "\[tcg icount VM\] *bpf:kprobe/count" "$TMP/byhost" || fail "history --by host mixes the VM's run with the host's: $(cat "$TMP/byhost")"
"$TT" show last >"$TMP/show" 2>&1 || fail "show last: $(cat "$TMP/show")"
grep -q "^in a VM: kernel $REL, accel tcg" "$TMP/show" || fail "show last: no 'in a VM' line"

# An experiment's kprobe cells, and their claims.
"$TT" experiment run close-1000 --kernel "$K" -t none,seccomp:filter,bpf:kprobe/count,kprobe:tracefs \
	--reps 2 -n 20000 --json "$TMP/exp.json" >"$TMP/exp.out" 2>"$TMP/exp.err"
rc=$?
[ $rc = 0 ] || fail "experiment run close-1000 --kernel: exit $rc: $(tail -n 5 "$TMP/exp.err")$(console "$TMP/exp.err")"
sed -n '/^claims$/,$p' "$TMP/exp.out"
grep -q "^today: in a VM under tcg" "$TMP/exp.out" || fail "the claims table does not say tcg"
python3 - "$TMP/exp.json" <<'PY' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))
rows = {c["claim"]: c for c in d["claims"]}
bad = []
for name in ("kprobe on sys_close, per hit", "kprobe event on sys_close (tracefs), per hit"):
    c = rows.get(name)
    if not c or c.get("today") is None:
        bad.append("claim '%s': %s" % (name, c))
if bad:
    print("FAIL: " + "; ".join(bad)); sys.exit(1)
PY

# SIGTERM while the guest's tracetax runs (after boot, not during it): qemu
# killed, the directory gone, 128+15. This one boots the bzImage itself
# (TRACETAX_VM_PVH=off), as where no vmlinux can be had.
TRACETAX_VM_PVH=off "$TT" run --kernel "$K" -t bpf:kprobe/count --reps 50 -n 200000 --no-store \
	>"$TMP/sig.out" 2>"$TMP/sig.err" &
pid=$!
# a first boot that hangs gets 120 s and a second 240 s (vm.c)
for _ in $(seq 4500); do
	grep -q "^tracetax: kernel $REL booted under tcg" "$TMP/sig.err" && break
	kill -0 $pid 2>/dev/null || break
	sleep 0.1
done
grep -q "booted under tcg" "$TMP/sig.err" || { kill -TERM $pid; wait $pid; fail "the guest to be sent SIGTERM did not boot: $(tail -n 3 "$TMP/sig.err")$(console "$TMP/sig.err")"; }
sleep 1
kill -0 $pid 2>/dev/null || fail "the guest's tracetax ended before SIGTERM: $(tail -n 3 "$TMP/sig.err")"
pgrep -a -P $pid qemu-system-x86 | grep -q -- "-kernel $K " ||
	fail "TRACETAX_VM_PVH=off: qemu not booting the bzImage: $(pgrep -a -P $pid qemu-system-x86)"
kill -TERM $pid
wait $pid; rc=$?
[ $rc = 143 ] || fail "SIGTERM during the VM: exit $rc, not 143: $(tail -n 3 "$TMP/sig.err")"
[ -z "$(vm_left $pid)" ] || fail "SIGTERM: VM leftovers: $(vm_left $pid)"

# A guest whose workload never ends: the deadline after boot ends it, says
# so, keeps the console log and leaves nothing behind. Its first boot is
# given 0.5 s (no kernel reaches init that fast under TCG): a boot that
# hangs is booted once more, and says what its console last said (on a slow
# host qemu may not have made the console by then: it says so).
TRACETAX_VM_TCG_WAIT=0.5 TRACETAX_VM_DEADLINE=3 "$TT" run --kernel "$K" -w cmd:'sleep 100000' -t none --reps 2 --no-store \
	>"$TMP/hang.out" 2>"$TMP/hang.err" &
pid=$!
wait $pid; rc=$?
[ $rc = 1 ] || fail "a hung guest: exit $rc, not 1: $(tail -n 3 "$TMP/hang.err")"
grep -Eq "^tracetax: kernel $REL did not reach init in [0-9.]+ s under tcg \(its console: .*; ($TRACETAX_STATE_DIR/vm-console-$REL.log|not kept: no console log: .*)\): booting it once more\$" "$TMP/hang.err" ||
	fail "a first boot that hangs: no 'booting it once more': $(head -n 3 "$TMP/hang.err")"
[ "$(grep -c "^tracetax: booting kernel $REL under tcg" "$TMP/hang.err")" = 2 ] ||
	fail "a first boot that hangs: not booted twice: $(head -n 4 "$TMP/hang.err")"
grep -q "^tracetax: error: the guest's tracetax did not finish within 3 s of booting (TRACETAX_VM_DEADLINE): the VM killed; its console log: $TRACETAX_STATE_DIR/vm-console-$REL.log\$" "$TMP/hang.err" ||
	fail "a hung guest: no deadline message: $(tail -n 3 "$TMP/hang.err")"
[ -f "$TRACETAX_STATE_DIR/vm-console-$REL.log" ] || fail "a hung guest: its console log was not kept"
grep "booted under tcg" "$TMP/err" "$TMP/hang.err"
[ -z "$(vm_left $pid)" ] || fail "a hung guest: VM leftovers: $(vm_left $pid)"

# Nothing of the VM on the host, nor of tracing.
left=$(vm_left | grep -vxF -e "${BEFORE:-none}")
[ -z "$left" ] || fail "VM leftovers: $left"
assert_clean
echo "ok: $(grep -c . "$TMP/hist") history lines, guest kernel $REL"
