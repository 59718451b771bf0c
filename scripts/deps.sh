#!/bin/sh
# Install the Debian packages tracetax needs to build and test, when missing.
# As root: apt-get installs them. Otherwise: names them exactly and fails.
set -eu

BUILD="make gcc clang llvm pkg-config libbpf-dev bpftool libelf-dev zlib1g-dev
libtracefs-dev libtraceevent-dev libjansson-dev libsqlite3-dev libcmocka-dev
systemtap-sdt-dev"
# What the tests use besides the build: JSON checks and process checks.
TOOLS="python3 python3-jsonschema procps"

missing=""
for p in $BUILD $TOOLS; do
	st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	case "$st" in
	*"install ok installed"*) ;;
	*) missing="$missing $p" ;;
	esac
done
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
