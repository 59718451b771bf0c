#!/bin/sh
# Install the Debian packages tracetax needs to build and test, when missing.
# As root: apt-get installs them. Otherwise: names them exactly and fails.
#
# --check: install nothing; name the missing packages of the build (not of
# the tests) on stderr and exit 1 if there are any. The Makefile runs it
# before every build, so it must stay cheap: one dpkg-query for them all.
set -eu

BUILD="make gcc clang llvm pkg-config libbpf-dev bpftool libelf-dev zlib1g-dev
libtracefs-dev libtraceevent-dev libjansson-dev libsqlite3-dev libpq-dev libcmocka-dev
systemtap-sdt-dev"
# What the tests use besides the build: JSON checks, process checks,
# setpriv to run the unprivileged part as nobody, a browser to load the
# HTML report in (t_report.sh), and the tools measured as tracers (strace,
# bpftrace, perf, ltrace, uftrace, LTTng: liblttng-ust-dev builds the
# func-ust tracepoint and its probe, without it lttng-ust skips).
TOOLS="python3 python3-jsonschema procps util-linux chromium strace bpftrace linux-perf ltrace uftrace
lttng-tools liblttng-ust-dev babeltrace2 prometheus prometheus-node-exporter postgresql"

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
	for m in libbpf libtracefs libtraceevent jansson sqlite3 libpq; do
		pkg-config --exists "$m" || printf ' pkg-config:%s' "$m"
	done
}

if ! command -v dpkg-query >/dev/null 2>&1; then
	missing=$(missing_tools)
	[ -z "$missing" ] && exit 0
	echo "tracetax: missing build tools:$missing (no dpkg here: install them yourself)" >&2
	exit 1
fi

if [ "${1:-}" = --check ]; then
	# shellcheck disable=SC2086
	missing=$(missing_packages $BUILD)
	[ -z "$missing" ] && exit 0
	echo "tracetax: missing build packages:$missing" >&2
	exit 1
fi

# shellcheck disable=SC2086
missing=$(missing_packages $BUILD $TOOLS)
[ -z "$missing" ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "tracetax: missing packages:$missing" >&2
	echo "tracetax: run as root, or: sudo apt-get install$missing" >&2
	exit 1
fi
echo "tracetax: installing:$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
