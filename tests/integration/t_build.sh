# A build on a machine without its packages names them and points at
# `make deps`, before any compiler runs. Nothing is uninstalled: a fake
# dpkg-query on PATH hides the packages named in $FAKE_MISSING.
. "$(dirname "$0")/lib.sh"
DPKG=$(command -v dpkg-query) || skip "no dpkg-query: not a Debian system"
# the outer `make check` would hand its jobserver and variables down
unset MAKEFLAGS MFLAGS MAKELEVEL

mkdir "$TMP/bin"
cat >"$TMP/bin/dpkg-query" <<EOF
#!/bin/bash
# dpkg-query, as if the packages in \$FAKE_MISSING were not installed
args=() rc=0
for a in "\$@"; do
	if [[ " \$FAKE_MISSING " == *" \$a "* ]]; then
		echo "dpkg-query: no packages found matching \$a" >&2; rc=1
	else
		args+=("\$a")
	fi
done
"$DPKG" "\${args[@]}" || exit
exit \$rc
EOF
# the install path must never get this far: deps.sh runs as "not root"
cat >"$TMP/bin/id" <<EOF
#!/bin/sh
[ "\$1" = -u ] && echo 1000 && exit
exec $(command -v id) "\$@"
EOF
cat >"$TMP/bin/apt-get" <<'EOF'
#!/bin/sh
echo "apt-get called: $*"; exit 1
EOF
chmod +x "$TMP/bin"/*
fake() { PATH="$TMP/bin:$PATH" FAKE_MISSING="$1" "${@:2}"; }

# the check itself: exactly the missing build packages, exit 1
fake "clang libbpf-dev" scripts/deps.sh --check >"$TMP/out" 2>&1 && fail "deps.sh --check passed with packages missing"
[ "$(cat "$TMP/out")" = "tracetax: missing build packages: clang libbpf-dev" ] ||
	fail "deps.sh --check said: $(cat "$TMP/out")"
fake "" scripts/deps.sh --check >"$TMP/out" 2>&1 || fail "deps.sh --check failed with nothing missing: $(cat "$TMP/out")"
[ -s "$TMP/out" ] && fail "deps.sh --check with nothing missing said: $(cat "$TMP/out")"
# what only the tests use does not stop a build
fake "python3-jsonschema" scripts/deps.sh --check >"$TMP/out" 2>&1 ||
	fail "deps.sh --check failed for a test-only package: $(cat "$TMP/out")"

# `make`: the packages and the hint, and nothing else (no compiler ran)
fake "clang libbpf-dev" make -n >"$TMP/out" 2>&1 && fail "make -n passed with packages missing: $(cat "$TMP/out")"
echo "--- make, clang and libbpf-dev missing:"; cat "$TMP/out"
sed -n 1p "$TMP/out" | grep -qx "tracetax: missing build packages: clang libbpf-dev" || fail "first line names the packages"
sed -n 2p "$TMP/out" | grep -qE "^Makefile:[0-9]+: \*\*\* run 'make deps-build' as root to install them\.  Stop\.$" ||
	fail "second line points at 'make deps-build'"
[ "$(wc -l <"$TMP/out")" = 2 ] || fail "make said more than the packages and the hint"
fake "clang" make -n build/tracetax >/dev/null 2>&1 && fail "make -n build/tracetax passed with clang missing"
# the goals that install packages or need none still run
for goal in clean deps deps-build deps-run deps-all; do
	fake "clang" make -n "$goal" >"$TMP/out" 2>&1 || fail "make -n $goal blocked by the check: $(cat "$TMP/out")"
done
# a package build's `debian/rules clean` (dh_auto_clean) asks for distclean,
# realclean, then clean, in a root that has Build-Depends only: none of them
# needs a package (the first two have no rule: dh goes on to clean)
for goal in distclean realclean; do
	fake "clang libcmocka-dev" make -s -n "$goal" >"$TMP/out" 2>&1
	grep -q "No rule to make target '$goal'" "$TMP/out" && ! grep -q missing "$TMP/out" ||
		fail "make -n $goal, as dh_auto_clean asks, said: $(cat "$TMP/out")"
done
fake "clang" make -n NO_DEPS_CHECK=1 >"$TMP/out" 2>&1 || fail "NO_DEPS_CHECK=1 still checks: $(tail -3 "$TMP/out")"
fake "" make -n >"$TMP/out" 2>&1 || fail "make -n fails with nothing missing: $(tail -3 "$TMP/out")"

# not root: the missing packages of the build and tests, and how to install them
fake "clang python3-jsonschema" scripts/deps.sh >"$TMP/out" 2>&1 && fail "deps.sh passed with packages missing, not root"
echo "--- make deps, not root:"; cat "$TMP/out"
grep -qx "tracetax: missing packages: clang python3-jsonschema" "$TMP/out" || fail "deps.sh, not root: no list"
grep -qx "tracetax: run as root, or: sudo apt-get install clang python3-jsonschema" "$TMP/out" ||
	fail "deps.sh, not root: no install line"

# the groups: `make run` installs the build's and the default plan's
# packages, not the tests' tools nor a browser; the tests' include what the
# scripts run (ss for t_tcp), and each group holds the one before it
fake "chromium strace bpftrace ltrace uftrace lttng-tools babeltrace2 python3-jsonschema iproute2" \
	scripts/deps.sh run >"$TMP/out" 2>&1 || fail "deps.sh run wants a test package: $(cat "$TMP/out")"
fake "iproute2 procps python3-jsonschema" scripts/deps.sh --check test >"$TMP/out" 2>&1 &&
	fail "deps.sh --check test passed with test packages missing"
[ "$(cat "$TMP/out")" = "tracetax: missing packages (test): python3-jsonschema procps iproute2" ] ||
	fail "deps.sh --check test said: $(cat "$TMP/out")"
for g in run test all; do
	fake "clang" scripts/deps.sh --check $g >"$TMP/out" 2>&1 && fail "deps.sh --check $g passed without clang"
done
fake "libclang-rt-14-dev" scripts/deps.sh --check test >"$TMP/out" 2>&1 ||
	fail "deps.sh --check test wants the fuzzing runtime: $(cat "$TMP/out")"
fake "libclang-rt-14-dev" scripts/deps.sh --check all >"$TMP/out" 2>&1 && fail "deps.sh --check all passed without libclang-rt-14-dev"
scripts/deps.sh --check nonsense >"$TMP/out" 2>&1; [ $? = 2 ] || fail "deps.sh took an unknown group: $(cat "$TMP/out")"

# the build's packages are debian/control's Build-Depends, with make, gcc
# (build-essential's) and the unit tests' cmocka: the one list, which holds
# every header, pkg-config module and library the build uses
bd=$(python3 tests/build_depends.py --list . | tr '\n' ' ')
[ -n "$bd" ] || fail "no Build-Depends read from debian/control"
# (all but make hidden: the fake asks dpkg-query for what is left, and of none it lists all)
fake "gcc $bd libcmocka-dev" scripts/deps.sh --check >"$TMP/out" 2>&1
[ "$(tr ' ' '\n' <"$TMP/out" | sed 1,4d | sort | tr '\n' ' ')" = "$(echo gcc $bd libcmocka-dev | tr ' ' '\n' | sort | tr '\n' ' ')" ] ||
	fail "deps.sh's build list is not Build-Depends ($bd) with make gcc libcmocka-dev: $(cat "$TMP/out")"
mods="$(sed -n 's/^PKGS *:= *//p' Makefile) lttng-ust"
mkdir "$TMP/hdr"
python3 tests/build_depends.py "$PWD" "$TMP/hdr" $mods >"$TMP/out" 2>"$TMP/err" ||
	fail "the build uses packages that debian/control's Build-Depends lacks: $(cat "$TMP/out" "$TMP/err")"
echo "Build-Depends: $bd; $(cat "$TMP/err")"

# no dpkg at all: the tools the build runs, by their names
mkdir "$TMP/nodpkg"
for c in sed tr id make pkg-config; do ln -s "$(command -v "$c")" "$TMP/nodpkg/$c"; done
PATH="$TMP/nodpkg" scripts/deps.sh --check >"$TMP/out" 2>&1 && fail "deps.sh --check passed without clang, no dpkg"
echo "--- deps.sh --check, no dpkg, no cc, clang or bpftool:"; cat "$TMP/out"
grep -q "missing build tools: cc clang bpftool " "$TMP/out" || fail "no dpkg: tools not named"
exit 0
