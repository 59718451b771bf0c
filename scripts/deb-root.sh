#!/bin/sh
# A fresh Debian root for the package's install test (tests/deb/t_deb_root.sh):
# debootstrap's minimal system of this machine's release, from the mirror
# apt uses here (read from apt's own configuration at run time: no host is
# named in the tree), cached under DIR so that later runs only copy it.
# The last line printed is the cached root's path. Idempotent.
#
# Usage: scripts/deb-root.sh [DIR]   (default: build/deb-root; MIRROR=URL takes another)
# Exit 77 (skip) when debootstrap is missing or cannot reach the mirror,
# 1 on any other failure.
set -eu

dir=${1:-build/deb-root}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)

skip() { echo "$*"; exit 77; }
die() { echo "tracetax: $*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || skip "needs root (debootstrap)"
command -v debootstrap >/dev/null 2>&1 || skip "no debootstrap (Debian: debootstrap)"
command -v apt-get >/dev/null 2>&1 || skip "no apt-get: no mirror to bootstrap from"
# shellcheck disable=SC1091
suite=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
[ -n "$suite" ] || skip "no VERSION_CODENAME in /etc/os-release: not a Debian release"

# The mirror apt uses for this release bootstraps; all of the release's
# repositories (updates, security) go into the root's sources, so that it
# resolves what the build linked.
repos=$("$(dirname "$0")"/apt-suites.sh "$suite")
mirror=${MIRROR:-$(echo "$repos" | awk -v s="$suite" '$2 == s { print $1; exit }')}
[ -n "$mirror" ] || skip "apt has no 'deb' source for '$suite' to bootstrap from"
[ -n "$repos" ] || repos="$mirror $suite"

root=$dir/base
if [ -f "$root/.complete" ]; then
	echo "$root"
	exit 0
fi

rm -rf "$root"
echo "tracetax: debootstrap $suite into $root (once; later runs reuse it)" >&2
if ! debootstrap --variant=minbase "$suite" "$root" "$mirror" >"$dir/debootstrap.log" 2>&1; then
	rm -rf "$root"
	# a mirror that cannot be reached is a skip; anything else a failure
	if grep -qiE 'Failed getting release file|Couldn.t download|Temporary failure|resolve|connect' \
		"$dir/debootstrap.log"; then
		skip "debootstrap cannot reach the mirror of '$suite': $(grep -m1 -iE 'E:|W:' "$dir/debootstrap.log")"
	fi
	die "debootstrap failed: $(tail -n 3 "$dir/debootstrap.log")"
fi
echo "$repos" | awk '{ print "deb " $1 " " $2 " main" }' >"$root/etc/apt/sources.list"
touch "$root/.complete"
echo "$root"
