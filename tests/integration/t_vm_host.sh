#!/bin/bash
# t_vm_host: the host's side of `run --kernel` and `pair --kernel`, with a
# stand-in for qemu that acts out a guest on the share (no guest boots:
# seconds, not minutes; t_vm.sh boots real ones). A guest that hangs after
# booting meets its deadline; a share the guest made hostile (rc a FIFO or a
# symlink to /dev/zero, 'left' a link to a host file, an endless stdout) is
# refused in one line, without hanging or eating memory; a guest that dies is
# quoted by its panic line and its console log kept; a KVM guest that dies
# after booting is not rerun under TCG; a KVM that hangs is remembered; the
# host writes the exports itself (--csv -, --prometheus-textfile) and pair's
# document atomically; cleanup removes only VM directories of its own.
. "$(dirname "$0")/lib.sh"
need_root
[ -x /bin/busybox ] || skip "no /bin/busybox (package busybox-static)"
command -v mkfifo >/dev/null || skip "no mkfifo"

# A bzImage's boot header and nothing else: enough for the host's checks.
python3 - "$TMP/boot/vmlinuz-9.9.9-fake" <<'PY'
import os, sys
os.makedirs(os.path.dirname(sys.argv[1]), exist_ok=True)
b = bytearray(0x400)
b[0x1fe:0x200] = b"\x55\xaa"
b[0x202:0x206] = b"HdrS"
b[0x206:0x208] = (0x20f).to_bytes(2, "little")
b[0x20e:0x210] = (0x100).to_bytes(2, "little")   # kernel_version at 0x300
b[0x300:0x300 + 26] = b"9.9.9-fake (test) #1 SMP\0\0"
open(sys.argv[1], "wb").write(b)
PY
K=$TMP/boot/vmlinuz-9.9.9-fake

# The stand-in: FAKE_KVM / FAKE_TCG say what the guest under that accel does.
mkdir -p "$TMP/bin"
cat >"$TMP/bin/qemu-system-x86_64" <<'SH'
#!/bin/bash
while [ $# -gt 0 ]; do
	case $1 in
	-accel) accel=$2; shift ;;
	-serial) console=${2#file:}; shift ;;
	-fsdev) case $2 in *id=ttout,*) s=${2#*path=}; share=${s%%,*} ;; esac; shift ;;
	esac
	shift
done
m=FAKE_${accel^^}; mode=${!m:-ok}
echo "$accel $mode" >>"$FAKE_LOG"
[ -z "${FAKE_SAVE:-}" ] || cp "$share/run.sh" "$FAKE_SAVE"
boot() { echo "[    0.5] Linux version 9.9.9-fake" >>"$console"; echo up >"$share/booted"; echo "guest table" >"$share/stdout"; }
done_ok() { cp "$FAKE_DOC" "$share/result.json"; : >"$share/left"; echo 0 >"$share/rc"; }
case $mode in
hang) exec sleep 100017 ;;
ok) boot; done_ok ;;
stall) boot; exec sleep 100017 ;;
panic) boot
	cat >>"$console" <<'EOF'
[    5.102] BUG: kernel NULL pointer dereference, address: 0000000000000000
[    5.103] Oops: 0000 [#1] PREEMPT SMP NOPTI
[    5.301] Kernel panic - not syncing: Fatal exception
[    5.302] Kernel Offset: 0x37000000 from 0xffffffff81000000 (relocation range: 0xffffffff80000000-0xffffffffbfffffff)
EOF
	;;
fifo) boot; done_ok; rm "$share/rc"; mkfifo "$share/rc" ;;
zero) boot; done_ok; rm "$share/rc"; ln -s /dev/zero "$share/rc" ;;
leak) boot; done_ok; rm "$share/left"; ln -s "$FAKE_SECRET" "$share/left" ;;
flood) ln -s /dev/zero "$share/stdout"; echo up >"$share/booted"; done_ok ;;
big) boot; done_ok; head -c 70M /dev/zero | tr '\0' ' ' >>"$share/result.json" ;;
# tracetax vm: the guest's command run here, as the guest's init runs it (but the chroot)
exec) echo up >"$share/booted"; sh "$share/run.sh" </dev/null >"$share/stdout" 2>"$share/stderr"
	echo $? >"$share/rc.tmp"; printf '%s' "${FAKE_LEFT:-}" >"$share/left"; mv "$share/rc.tmp" "$share/rc" ;;
esac
exit 0
SH
chmod +x "$TMP/bin/qemu-system-x86_64"
export PATH=$TMP/bin:$PATH FAKE_LOG=$TMP/qemu.log FAKE_DOC=$PWD/tests/fixtures/docs/small.json
# nothing real runs on the CPUs here: a lock of the test's own, no wait for other runs
export TRACETAX_STATE_DIR=$TMP/state TRACETAX_VM_ACCEL=tcg TRACETAX_LOCK=$TMP/lock
echo "SECRET-LINE of the host" >"$TMP/secret"
export FAKE_SECRET=$TMP/secret

# the VM directories of a tracetax that is gone (others' runs may hold theirs)
vm_dead_dirs() {
	local d p
	for d in /tmp/tracetax-vm.*; do
		[ -e "$d" ] || [ -L "$d" ] || continue
		p=${d#/tmp/tracetax-vm.}
		kill -0 "${p%%.*}" 2>/dev/null || echo "$d"
	done
}
vm_left() { vm_dead_dirs; pgrep -f 'sleep 100017' || true; }
# vmrun LIMIT ARGS...: tracetax ARGS, killed after LIMIT s; its exit in $rc, output in
# $TMP/out, err; what it left (a directory that was not there before, the stand-in's sleep) fails
vmrun() {
	local limit=$1 before left
	shift
	: >"$FAKE_LOG"
	before=$(vm_dead_dirs)
	# the memory a broken reader of /dev/zero would take is capped (not under
	# ASan: its shadow memory is terabytes of address space), and so are the
	# files it would write: it fails, not the machine
	( ulimit -v "$VLIMIT"; ulimit -f 200000; exec timeout -s KILL "$limit" "$TT" "$@" ) >"$TMP/out" 2>"$TMP/err"
	rc=$?
	left=$(vm_left | grep -vxF -e "${before:-none}")
	pkill -f 'sleep 100017' 2>/dev/null
	[ $rc = 137 ] && { rm -rf $(echo "$left" | grep ^/tmp/); fail "tracetax $* did not end within $limit s: $(tail -c 300 "$TMP/err")"; }
	[ -z "$left" ] || { rm -rf $(echo "$left" | grep ^/tmp/); fail "tracetax $* (exit $rc) left: $left: $(tail -n 5 "$TMP/err")"; }
	return 0
}
fails_with() {	# fails_with WHAT REGEX: exit 1, and the line in stderr
	[ $rc = 1 ] || fail "$1: exit $rc, not 1: $(tail -n 3 "$TMP/err")"
	grep -qE "$2" "$TMP/err" || fail "$1: no '$2' in: $(tail -n 5 "$TMP/err")"
}
BEFORE=$(vm_dead_dirs)
VLIMIT=4000000
ldd "$TT" 2>/dev/null | grep -q libasan && VLIMIT=unlimited
RUN=(run --kernel "$K" -t none -n 1000 --reps 2 --no-store)

# A guest whose tracetax never ends: the deadline ends it, and says so.
FAKE_TCG=stall TRACETAX_VM_DEADLINE=2 vmrun 40 "${RUN[@]}"
fails_with "a hung guest" "^tracetax: error: the guest's tracetax did not finish within 2 s of booting \(TRACETAX_VM_DEADLINE\): the VM killed; its console log: $TMP/state/vm-console-9.9.9-fake.log\$"
[ -f "$TMP/state/vm-console-9.9.9-fake.log" ] || fail "a hung guest: no console log kept"
# without the variable: the plan's estimate and a margin, shown when the guest boots
FAKE_TCG=ok vmrun 40 "${RUN[@]}"
[ $rc = 0 ] || fail "a guest that ran: exit $rc: $(tail -n 3 "$TMP/err")"
grep -qE "^tracetax: kernel 9.9.9-fake booted under tcg in [0-9.]+ s; its tracetax has [0-9]+ s \(the plan's estimate [0-9.e+-]+ s x20 under tcg, \+ 120 s a cell, \+ 300 s\)$" "$TMP/err" ||
	fail "no deadline shown when the guest booted: $(cat "$TMP/err")"

# The share is the guest's: what it holds is refused unless it is a plain file.
FAKE_TCG=fifo vmrun 40 "${RUN[@]}"
fails_with "rc a FIFO" "^tracetax: error: the guest's share: 'rc' is not a regular file$"
FAKE_TCG=zero vmrun 40 "${RUN[@]}"
fails_with "rc a symlink to /dev/zero" "^tracetax: error: the guest's share: 'rc' is a symbolic link$"
FAKE_TCG=leak vmrun 40 "${RUN[@]}"
grep -q SECRET "$TMP/out" "$TMP/err" && fail "the host printed the file the guest's 'left' links to"
fails_with "left a symlink to a host file" "^tracetax: error: the guest's share: 'left' is a symbolic link$"
FAKE_TCG=flood vmrun 40 "${RUN[@]}"
[ "$(stat -c %s "$TMP/out")" -lt 100000 ] || fail "stdout a symlink to /dev/zero: the host copied $(stat -c %s "$TMP/out") bytes"
fails_with "stdout a symlink to /dev/zero" "^tracetax: error: the guest's share: 'stdout' is a symbolic link$"
FAKE_TCG=big vmrun 60 "${RUN[@]}"
fails_with "a result.json of 70 MiB" "^tracetax: error: the guest's share: 'result.json' is larger than 64 MiB$"

# A guest that dies: its panic line, not the console's last; the log kept.
rm -f "$TMP/state/vm-console-9.9.9-fake.log"
FAKE_TCG=panic vmrun 40 "${RUN[@]}"
fails_with "a guest that panicked" "^tracetax: error: kernel '$K' died under tcg after booting: \[    5.102\] BUG: kernel NULL pointer dereference, address: 0000000000000000; its console log: $TMP/state/vm-console-9.9.9-fake.log\$"
grep -q "Kernel panic" "$TMP/state/vm-console-9.9.9-fake.log" || fail "the kept console log has no panic"

# KVM, where it is tried (a stand-in device: qemu is a stand-in too).
: >"$TMP/kvm"
export TRACETAX_VM_KVM_DEV=$TMP/kvm TRACETAX_VM_KVM_WAIT=1
unset TRACETAX_VM_ACCEL
# a KVM guest that dies after booting is not rerun whole under TCG
FAKE_KVM=panic vmrun 40 "${RUN[@]}"
[ "$(grep -c "guest table" "$TMP/out")" = 1 ] || fail "a KVM guest that died after boot: its output shown $(grep -c "guest table" "$TMP/out") times"
grep -q "under tcg" "$TMP/err" && fail "a KVM guest that died after boot was rerun under TCG: $(cat "$TMP/err")"
fails_with "a KVM guest that panicked" "^tracetax: error: kernel '$K' died under kvm after booting: \[    5.102\] BUG: kernel NULL"
# a KVM that hangs: TCG after the wait, and the next run remembers
rm -rf "$TMP/state"
FAKE_KVM=hang vmrun 40 "${RUN[@]}"
[ $rc = 0 ] || fail "KVM hung, TCG ran: exit $rc: $(tail -n 3 "$TMP/err")"
[ "$(cat "$FAKE_LOG")" = "$(printf 'kvm hang\ntcg ok')" ] || fail "KVM hung: qemu ran $(cat "$FAKE_LOG")"
FAKE_KVM=hang vmrun 40 "${RUN[@]}"
[ $rc = 0 ] || fail "KVM remembered: exit $rc: $(tail -n 3 "$TMP/err")"
[ "$(cat "$FAKE_LOG")" = "tcg ok" ] || fail "a KVM that hung for this kernel was tried again: $(cat "$FAKE_LOG")"
grep -q "^tracetax: booting kernel 9.9.9-fake under tcg (kvm hung before here for this kernel: remembered in $TMP/state/vm-accel, remove it to try kvm again)$" "$TMP/err" ||
	fail "the remembered fallback is not said: $(cat "$TMP/err")"
export TRACETAX_VM_ACCEL=tcg

# The host writes the outputs: stdout holds the export alone; the textfile is the host's.
for fmt in csv markdown; do
	FAKE_TCG=ok vmrun 40 "${RUN[@]}" --$fmt -
	[ $rc = 0 ] || fail "--$fmt -: exit $rc: $(tail -n 3 "$TMP/err")"
	grep -q "guest table" "$TMP/out" && fail "--$fmt -: the guest's table is in stdout: $(head -n 3 "$TMP/out")"
	grep -q "guest table" "$TMP/err" || fail "--$fmt -: the guest's table is not on stderr"
done
mkdir "$TMP/prom"
FAKE_TCG=ok FAKE_SAVE=$TMP/run.sh vmrun 40 "${RUN[@]}" --prometheus-textfile "$TMP/prom"
[ $rc = 0 ] || fail "--prometheus-textfile: exit $rc: $(tail -n 3 "$TMP/err")"
grep -q prometheus "$TMP/run.sh" && fail "--prometheus-textfile went to the guest: $(tail -n 1 "$TMP/run.sh")"
grep -q '^tracetax_overhead' "$TMP/prom/tracetax.prom" 2>/dev/null || fail "--prometheus-textfile: the host wrote no $TMP/prom/tracetax.prom"

# pair --kernel --json: written whole and renamed (a link to the old file keeps it).
echo old >"$TMP/pair.json"
ln "$TMP/pair.json" "$TMP/pair.old"
FAKE_TCG=ok vmrun 40 pair --kernel "$K" --json "$TMP/pair.json"
[ $rc = 0 ] || fail "pair --kernel: exit $rc: $(tail -n 3 "$TMP/err")"
cmp -s "$TMP/pair.json" "$FAKE_DOC" || fail "pair --kernel --json: not the guest's document"
[ "$(cat "$TMP/pair.old")" = old ] || fail "pair --kernel --json wrote into the old file, not a new one renamed over it"

# tracetax vm: the command's exit code, its stdout and stderr apart, its
# arguments as given, the host's working directory; what it left is an error.
FAKE_TCG=exec vmrun 40 vm --kernel "$K" -- sh -c 'echo "out $1|$2|$TRACETAX_VM|$PWD"; echo err >&2; exit 7' sh "a b" "it's"
[ $rc = 7 ] || fail "vm: exit $rc, not the command's 7: $(tail -n 3 "$TMP/err")"
[ "$(cat "$TMP/out")" = "out a b|it's|tcg|$PWD" ] || fail "vm: stdout '$(cat "$TMP/out")'"
grep -qx err "$TMP/err" || fail "vm: the command's stderr did not come back: $(cat "$TMP/err")"
grep -q "^tracetax: kernel 9.9.9-fake booted under tcg in [0-9.]* s; its command has 1800 s (no estimate: 1800 s)$" "$TMP/err" ||
	fail "vm: no boot line with its deadline: $(cat "$TMP/err")"
FAKE_TCG=exec FAKE_LEFT="instance tracetax-1" vmrun 40 vm -q --kernel "$K" -- true
fails_with "vm: a command that left tracing state" "^tracetax: error: the guest's command left 'instance tracetax-1' behind$"
grep -q "booted under" "$TMP/err" && fail "vm -q: boot lines: $(cat "$TMP/err")"
# bad input: one line, exit 2, nothing booted
: >"$TMP/cmd"; chmod +x "$TMP/cmd"
for bad in "vm" "vm -- true" "vm --kernel $K" "vm --kernel $K --" "vm --kernel $K --frob -- true" \
	   "vm --kernel /etc/passwd -- true" "vm --kernel $K -- no-such-command-tt" "vm --kernel $K -- $TMP/cmd"; do
	FAKE_TCG=exec vmrun 40 $bad
	[ $rc = 2 ] || fail "tracetax $bad: exit $rc, not 2: $(cat "$TMP/err")"
	[ "$(wc -l <"$TMP/err")" = 1 ] && grep -q "^tracetax: [a-z]" "$TMP/err" || fail "tracetax $bad: not one line: $(cat "$TMP/err")"
	[ -s "$FAKE_LOG" ] && fail "tracetax $bad: booted: $(cat "$FAKE_LOG")"
done

# cleanup removes a dead tracetax's VM directory, and nobody else's.
dead=4194304   # PID_MAX_LIMIT: no process can have it
mkdir -m 700 /tmp/tracetax-vm.$dead.ours /tmp/tracetax-vm.$dead.theirs "$TMP/victim"
touch /tmp/tracetax-vm.$dead.ours/console.log "$TMP/victim/precious"
chown nobody /tmp/tracetax-vm.$dead.theirs
ln -s "$TMP/victim" /tmp/tracetax-vm.$dead.link
"$TT" cleanup >"$TMP/out" 2>&1
rc=$?
left=$(ls -d /tmp/tracetax-vm.$dead.* 2>/dev/null | tr '\n' ' ')
rm -rf /tmp/tracetax-vm.$dead.*
[ $rc = 0 ] || fail "cleanup exited $rc: $(cat "$TMP/out")"
[ "$left" = "/tmp/tracetax-vm.$dead.link /tmp/tracetax-vm.$dead.theirs " ] ||
	fail "cleanup: left '$left', not the link and the directory of another user"
[ -f "$TMP/victim/precious" ] || fail "cleanup removed what a link pointed to"
grep -q "^kept '/tmp/tracetax-vm.$dead.theirs': owned by uid $(id -u nobody), not by us$" "$TMP/out" ||
	fail "cleanup did not say why it kept another user's directory: $(cat "$TMP/out")"

left=$(vm_left | grep -vxF -e "${BEFORE:-none}")
[ -z "$left" ] || fail "VM leftovers: $left"
assert_clean
echo "ok: the host's side of the VM, with a stand-in qemu"
