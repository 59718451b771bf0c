#!/bin/bash
# t_audit_where: the audit tests never enable audit on this host unless
# asked. Once audit has been enabled on a boot, every process forked
# afterwards pays the syscall audit slow path until reboot; so each
# t_audit*.sh run here without TRACETAX_TEST_HOST_AUDIT re-executes itself
# in a VM (`tracetax vm --kernel K` under tcg, K Debian's kernel) and does
# nothing else on the host. With stand-ins for tracetax, auditctl, auditd
# and qemu that log their calls: the only call is that `tracetax vm`, whose
# exit code is the test's. With TRACETAX_TEST_HOST_AUDIT=1 a test runs
# here, says what that leaves, and passes --accept-audit-residue to the
# commands whose --help lists it (and to no other).
. "$(dirname "$0")/lib.sh"
[ "$(uname -m)" = x86_64 ] || skip "the audit tests' VM runs x86_64 kernels only"
[ -x /bin/busybox ] || skip "no /bin/busybox (package busybox-static): the audit tests skip"

# the stand-in build outside /tmp, which a VM would not see (in_vm.sh refuses it)
SB=$(mktemp -d "$(readlink -f "$B")/tt-where.XXXXXX") || fail "cannot make a directory in '$B'"
trap 'rm -rf "$TMP" "$SB"' EXIT
mkdir -p "$TMP/bin"
export FAKE_LOG=$TMP/calls
# tracetax: logs its arguments and the VM's variables; `vm` exits FAKE_RC
cat >"$SB/tracetax" <<'SH'
#!/bin/bash
echo "tracetax $* [accel=${TRACETAX_VM_ACCEL:-} icount=${TRACETAX_VM_ICOUNT:-}]" >>"$FAKE_LOG"
case $1 in vm) echo "the guest ran"; exit "${FAKE_RC:-0}" ;; esac
for a; do
	[ "$a" = --help ] && [ -n "${FAKE_FLAG:-}" ] && case " $FAKE_FLAG " in *" $1 "*)
		echo "      --accept-audit-residue  run audit cells on a boot that never enabled audit" ;; esac
done
exit 0
SH
for t in auditctl auditd; do
	cat >"$TMP/bin/$t" <<'SH'
#!/bin/bash
echo "$(basename "$0") $*" >>"$FAKE_LOG"
case "$*" in -s) printf 'enabled 0\nfailure 1\npid 0\nrate_limit 0\nbacklog_limit 64\nlost 0\nbacklog 0\n' ;;
-l) echo "No rules" ;; esac
exit 0
SH
done
printf '#!/bin/sh\necho "qemu $*" >>"$FAKE_LOG"\n' >"$TMP/bin/qemu-system-x86_64"
chmod +x "$SB/tracetax" "$TMP/bin/"*
: >"$TMP/vmlinuz-9.9.9-fake"
# a test of the audit: $rc its exit, $TMP/out its output
audit_test() {
	: >"$FAKE_LOG"
	env -u TRACETAX_VM TRACETAX_BUILD="$SB" TRACETAX_TEST_KERNEL="${TRACETAX_TEST_KERNEL:-$TMP/vmlinuz-9.9.9-fake}" \
		PATH="$TMP/bin:$PATH" timeout 60 bash "$@" >"$TMP/out" 2>&1
	rc=$?
}

n=0
for t in tests/integration/t_audit*.sh; do
	[ "$t" = "$0" ] || [ "${t##*/}" = t_audit_where.sh ] && continue
	# by default: one call, tracetax vm, the test again inside; its exit code is the test's
	for want in 0 77 1; do
		FAKE_RC=$want audit_test "$t"
		[ "$(wc -l <"$FAKE_LOG")" = 1 ] ||
			fail "${t##*/} on the host without TRACETAX_TEST_HOST_AUDIT: more than its VM: $(head -n 5 "$FAKE_LOG")"
		[ $rc = $want ] || fail "${t##*/} in the VM exited $want, the test $rc: $(cat "$TMP/out")"
		grep -qx "tracetax vm -q --kernel $TMP/vmlinuz-9.9.9-fake -- env PATH=[^ ]* TRACETAX_BUILD=$SB TRACETAX_WAIT=[0-9]* bash $t \[accel=tcg icount=off\]" "$FAKE_LOG" ||
			fail "${t##*/}: not re-executed in a VM: $(cat "$FAKE_LOG")"
	done
	grep -q "^in a VM: kernel 9.9.9-fake under tcg" "$TMP/out" || fail "${t##*/}: does not say it runs in a VM: $(cat "$TMP/out")"
	n=$((n + 1))
done
[ $n -ge 5 ] || fail "$n audit tests found, want 5 or more"

# no VM to be had: a skip that says why and how to run it here anyway
TRACETAX_TEST_KERNEL=$TMP/none audit_test tests/integration/t_audit.sh
[ $rc = 77 ] || fail "no kernel: exit $rc, not 77: $(cat "$TMP/out")"
tail -n 1 "$TMP/out" | grep -q "runs in a VM: no kernel .*(TRACETAX_TEST_HOST_AUDIT=1 runs it here)$" ||
	fail "no kernel: the skip's reason: $(tail -n 1 "$TMP/out")"
grep -q . "$FAKE_LOG" && fail "no kernel: called $(cat "$FAKE_LOG")"

# asked: on this host, said so; the flag where --help lists it, nowhere else
FAKE_FLAG="run experiment" TRACETAX_TEST_HOST_AUDIT=1 audit_test tests/integration/t_audit.sh
grep -q "^note: on this host (TRACETAX_TEST_HOST_AUDIT=1): audit enabled once leaves every process forked afterwards on the syscall audit slow path until reboot" "$TMP/out" ||
	fail "on the host: no word of the residue: $(head -n 3 "$TMP/out")"
grep -q "^tracetax vm" "$FAKE_LOG" && fail "TRACETAX_TEST_HOST_AUDIT=1 still went to a VM"
grep -q "^tracetax run --accept-audit-residue --dry-run " "$FAKE_LOG" ||
	fail "on the host: run without --accept-audit-residue: $(grep '^tracetax run' "$FAKE_LOG" | head -n 3)"
grep '^tracetax \(rate\|budget\|list\)' "$FAKE_LOG" | grep -q -- --accept-audit-residue &&
	fail "--accept-audit-residue given to a command whose --help does not list it: $(cat "$FAKE_LOG")"
TRACETAX_TEST_HOST_AUDIT=1 audit_test tests/integration/t_audit.sh
grep -q -- "--accept-audit-residue" "$FAKE_LOG" && fail "--accept-audit-residue given to a tracetax that does not know it"
grep -q "^tracetax run --dry-run " "$FAKE_LOG" || fail "on the host: no run: $(cat "$FAKE_LOG")"
echo "ok: $n audit tests run in a VM unless TRACETAX_TEST_HOST_AUDIT=1"
