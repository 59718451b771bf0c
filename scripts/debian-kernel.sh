#!/bin/sh
# Fetch Debian's current kernel image package (the versioned
# linux-image-X-amd64 that the linux-image-amd64 metapackage depends on),
# unpack it under build/kernel/ without installing it, and print the path
# of its vmlinuz on the last line. Idempotent: a package already unpacked
# is reused, and nothing is fetched when the metapackage still points to it.
#
# Usage: scripts/debian-kernel.sh [DIR]   (default: build/kernel)
#   KERNEL_SUITE=bookworm-backports  the suite it comes from (default: what
#                                    apt's sources already hold). A suite apt
#                                    is not given is fetched with a private
#                                    sources list and lists of its own under
#                                    DIR/.apt/SUITE, from the mirror apt's own
#                                    configuration names for the base suite
#                                    (scripts/apt-suites.sh): no host here.
#   KERNEL_FLAVOUR=rt-amd64          the flavour (default: the architecture)
# For `tracetax run --kernel`, the VM runner (src/vm/) and t_vm.sh:
# the modules are in DIR/VERSION/lib/modules/VERSION beside the image.
set -eu

dir=${1:-build/kernel}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
arch=$(dpkg --print-architecture 2>/dev/null || echo amd64)
flavour=${KERNEL_FLAVOUR:-$arch}
suite=${KERNEL_SUITE:-}
meta=linux-image-$flavour
here=$(cd "$(dirname "$0")" && pwd)

die() { echo "tracetax: $*" >&2; exit 1; }
case $flavour in *[!a-z0-9-]*|'') die "flavour '$flavour' is not a kernel flavour" ;; esac
case $suite in *[!a-z0-9-]*) die "suite '$suite' is not a suite name" ;; esac

# apt's options: none for the suites apt has; for another suite, a
# sources list, lists and cache of its own (apt's sources are not touched)
set --
if [ -n "$suite" ] && ! sh "$here/apt-suites.sh" "$suite" | awk -v s="$suite" '$2 == s { f = 1 } END { exit !f }'; then
	base=${suite%%-*}
	uri=$(sh "$here/apt-suites.sh" "$base" | awk -v s="$base" '$2 == s { print $1; exit }')
	[ -n "$uri" ] || die "apt's sources name no mirror for '$base': suite '$suite' cannot be had"
	priv=$dir/.apt/$suite
	mkdir -p "$priv/lists/partial" "$priv/cache/archives/partial" "$priv/parts"
	echo "deb $uri $suite main" >"$priv/sources.list"
	set -- -o "Dir::Etc::SourceList=$priv/sources.list" -o "Dir::Etc::SourceParts=$priv/parts" \
		-o "Dir::State::Lists=$priv/lists" -o "Dir::Cache=$priv/cache" -o APT::Sandbox::User=root
	if ! ls "$priv/lists/"*Packages* >/dev/null 2>&1 || [ -n "$(find "$priv/lists" -maxdepth 1 -name "*Packages*" -mmin +1440)" ]; then
		echo "tracetax: fetching the package lists of $suite" >&2
		apt-get "$@" update -qq >/dev/null 2>"$priv/err" ||
			echo "tracetax: apt-get update of $suite failed: $(tail -n 1 "$priv/err")" >&2
	fi
fi

command -v apt-cache >/dev/null 2>&1 || die "no apt-cache here: Debian's kernel package cannot be had"
command -v dpkg-deb >/dev/null 2>&1 || die "no dpkg-deb here: Debian's kernel package cannot be unpacked"

# The versioned package the metapackage depends on: linux-image-6.1.0-57-amd64.
# A machine whose package lists were never fetched knows no metapackage:
# fetch them once, as root.
resolve() {
	apt-cache "$@" depends "$meta" 2>/dev/null |
		sed -n "s/^ *Depends: \(linux-image-[0-9][^ ]*-$flavour\)\$/\1/p" | head -n 1
}
pkg=$(resolve "$@")
if [ -z "$pkg" ] && [ "$(id -u)" = 0 ] && [ $# = 0 ]; then
	apt-get update -qq >/dev/null 2>&1 || true
	pkg=$(resolve "$@")
fi
if [ -z "$pkg" ]; then
	# Offline, or no package lists: reuse what an earlier run unpacked.
	# the flavour's own: amd64 is not rt-amd64
	last=$(ls -d "$dir"/*/boot/vmlinuz-*-"$flavour" 2>/dev/null |
		grep -Ev -- "-[a-z]+-$flavour\$" | sort -V | tail -n 1)
	[ -n "$last" ] || die "package '$meta' not known to apt-cache: no Debian kernel to fetch"
	echo "$last"
	exit 0
fi
version=${pkg#linux-image-}
out=$dir/$version
image=$out/boot/vmlinuz-$version

if [ -f "$image" ] && [ -d "$out/lib/modules/$version" ] && [ -f "$out/.unpacked" ]; then
	echo "$image"
	exit 0
fi

tmp=$(mktemp -d "$dir/.fetch.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
deb=$(ls "$dir"/"${pkg}"_*.deb 2>/dev/null | tail -n 1 || true)
if [ -z "$deb" ]; then
	echo "tracetax: fetching $pkg" >&2
	# apt-get download writes into the current directory, as the _apt user
	# when it can: a directory of our own that it may write to.
	chmod 755 "$tmp"
	(cd "$tmp" && apt-get "$@" download -q "$pkg" >/dev/null 2>"$tmp/err") ||
		die "apt-get download $pkg failed: $(tail -n 1 "$tmp/err" 2>/dev/null)"
	deb=$(ls "$tmp"/"${pkg}"_*.deb 2>/dev/null | head -n 1)
	[ -n "$deb" ] || die "apt-get download $pkg wrote no package"
	mv "$deb" "$dir/"
	deb=$dir/$(basename "$deb")
fi
echo "tracetax: unpacking $(basename "$deb") into $out" >&2
rm -rf "$out"
mkdir -p "$tmp/x"
dpkg-deb -x "$deb" "$tmp/x" || die "dpkg-deb -x $(basename "$deb") failed"
[ -f "$tmp/x/boot/vmlinuz-$version" ] || die "package '$pkg' holds no boot/vmlinuz-$version"
# modules.dep: the order the VM's initramfs loads virtio and 9p in (a
# package's postinst makes it on install; this one is not installed)
if command -v depmod >/dev/null 2>&1 || [ -x /sbin/depmod ]; then
	PATH=$PATH:/sbin:/usr/sbin depmod -b "$tmp/x" "$version" ||
		die "depmod -b failed on $pkg"
else
	echo "tracetax: no depmod (kmod): the VM needs modules.dep" >&2
fi
touch "$tmp/x/.unpacked"
mv "$tmp/x" "$out"
echo "$image"
