#!/bin/sh
# Install the Debian packages tracetax needs, by group, when missing.
# As root: apt-get installs them. Otherwise: names them exactly and fails.
#
#   scripts/deps.sh [--check] [GROUP]
#
#   build  what compiles tracetax: `make` (make deps-build)
#   run    the build and what the default plan (`tracetax run`: every
#          mechanism on getpid) needs when it runs: `make run` (make deps-run)
#   test   the build and everything `make check` uses, so that no test
#          skips for a package: `make check` (make deps, the default)
#   all    the tests' and the rest (the fuzzing harnesses): make deps-all
#
# A tool that is not installed only makes its own cells skip, with the reason.
#
# --check: install nothing; name the missing packages of GROUP (default: the
# build) on stderr and exit 1 if there are any. The Makefile runs it before
# every build, so it must stay cheap: one dpkg-query for them all.
set -eu

# What compiles tracetax is written once, as debian/control's Build-Depends
# (what a package build in a clean root installs: tests/deb/t_deb_root.sh);
# `make` adds what Build-Depends leaves to build-essential (make, gcc) and
# the unit tests' cmocka (a package build makes only `make programs`).
# tests/integration/t_build.sh checks every header and pkg-config module of
# the build against that list.
# (sed and tr only: --check runs where little else may be on PATH)
case $0 in */*) top=${0%/*}/.. ;; *) top=.. ;; esac
control_build_depends() {
	# the field's lines, then each relation's first package, bare: no
	# version, architecture or profile; debhelper-compat is the package
	# build's own (debhelper), not the compiler's
	sed -n '/^Build-Depends:/,/^[^ \t]/{ s/^Build-Depends://; /^[^ \t]/d; p; }' "$top/debian/control" |
		tr ',' '\n' | sed 's/|.*//; s/[[(<].*//; s/^[[:space:]]*//; s/[[:space:]]*$//; /^$/d; /^debhelper-compat$/d' |
		tr '\n' ' '
}
control=$(control_build_depends)
[ -n "$control" ] || { echo "tracetax: no Build-Depends in '$top/debian/control'" >&2; exit 2; }
BUILD="make gcc $control libcmocka-dev"
# The default plan needs nothing more: its mechanisms are the kernel's
# (tracefs, perf events, BPF, ptrace, seccomp) and tracetax's own libraries,
# and what it reads of the machine has a fallback (systemd-detect-virt: the
# CPU flags and DMI). A package that one of them needs goes here.
RUN=""
# What `make check` uses besides the build:
# - its scripts: python3 (JSON, sqlite3), python3-jsonschema (t_schema),
#   procps (pgrep, ps, sysctl), util-linux (setpriv, runuser, unshare),
#   mount (t_store's read-only tmpfs), iproute2 (ss: t_tcp's sockets left),
#   man-db (t_install opens the installed page with man);
# - chromium, to load the HTML report in (t_report);
# - the tools measured as tracers (t_tools, t_cmd, t_nonroot, t_lttng):
#   strace, bpftrace, perf, ltrace, uftrace, LTTng (the build's
#   liblttng-ust-dev builds the func-ust tracepoint and its probe);
# - the next tests: other kernels in a VM (qemu-system-x86, busybox-static
#   for its initramfs, kmod for depmod, xz-utils and zstd for compressed
#   modules), the shared store and the metrics (postgresql,
#   prometheus, prometheus-node-exporter: t_grafana runs the dashboard's
#   queries on them);
# - the fleet's parts: systemd (systemd-analyze verify of the units:
#   t_service), and for `make check-deb` (not in `make check`) the
#   package's build and checks (debhelper brings dpkg-dev; lintian) and
#   the fresh root it is installed in (debootstrap);
# - auditd, the consumer of the audit: cells (t_audit: its rule files are
#   the test data). Installing it starts no auditd on an image whose
#   policy-rc.d forbids starting services (ours).
TEST="python3 python3-jsonschema procps util-linux mount iproute2 man-db
chromium
strace bpftrace linux-perf ltrace uftrace lttng-tools babeltrace2
qemu-system-x86 busybox-static kmod xz-utils zstd
postgresql prometheus prometheus-node-exporter
systemd debhelper lintian debootstrap
auditd"
# Not in `make check`: `make fuzz` (libFuzzer's runtime; llvm-profdata and
# llvm-cov for its coverage report).
ALL="libclang-rt-14-dev llvm"

check=
if [ "${1:-}" = --check ]; then
	check=1
	shift
fi
group=${1:-}
if [ -z "$group" ]; then
	if [ -n "$check" ]; then group="build"; else group="test"; fi
fi
case $group in
build) pkgs=$BUILD ;;
run) pkgs="$BUILD $RUN" ;;
test) pkgs="$BUILD $RUN $TEST" ;;
all) pkgs="$BUILD $RUN $TEST $ALL" ;;
*) echo "usage: scripts/deps.sh [--check] [build|run|test|all]" >&2; exit 2 ;;
esac

# missing_packages PKG...: those of PKG that dpkg does not have installed.
# dpkg-query names only the packages it knows, and complains about the
# others on stderr: whatever it does not report installed is missing.
missing_packages() {
	installed=" $(dpkg-query -W -f='${Package} ${Status}\n' "$@" 2>/dev/null |
		sed -n 's/^\([^ :]*\).* install ok installed$/\1/p' | tr '\n' ' ') "
	for p in "$@"; do
		case "$installed" in *" $p "*) ;; *) printf ' %s' "$p" ;; esac
	done
}

# Without dpkg (not Debian) the package names mean nothing: name the tools
# and pkg-config modules of the build instead.
missing_tools() {
	for c in make cc clang bpftool pkg-config; do
		command -v "$c" >/dev/null 2>&1 || printf ' %s' "$c"
	done
	command -v pkg-config >/dev/null 2>&1 || return 0
	for m in libbpf libtracefs libtraceevent jansson sqlite3 libpq audit; do
		pkg-config --exists "$m" || printf ' pkg-config:%s' "$m"
	done
}

if ! command -v dpkg-query >/dev/null 2>&1; then
	missing=$(missing_tools)
	[ -z "$missing" ] && exit 0
	echo "tracetax: missing build tools:$missing (no dpkg here: install them yourself)" >&2
	exit 1
fi

# shellcheck disable=SC2086
missing=$(missing_packages $pkgs)
[ -z "$missing" ] && exit 0

if [ -n "$check" ]; then
	if [ "$group" = build ]; then
		echo "tracetax: missing build packages:$missing" >&2
	else
		echo "tracetax: missing packages ($group):$missing" >&2
	fi
	exit 1
fi

if [ "$(id -u)" != 0 ]; then
	echo "tracetax: missing packages:$missing" >&2
	echo "tracetax: run as root, or: sudo apt-get install$missing" >&2
	exit 1
fi
echo "tracetax: installing ($group):$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
