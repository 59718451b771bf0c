#!/bin/sh
# Build the Debian package as Debian builds it: dpkg-buildpackage -us -uc -b
# on a clean copy of the tree (the files git knows, as they are now in the
# working tree: an uncommitted change is in, build outputs are not), in
# OUT/tracetax-VERSION, so that the .deb, .changes and .buildinfo land in OUT
# and not beside the source tree. Then lintian on the .changes: an error
# fails the build; warnings must be fixed or overridden (debian/*.lintian-overrides).
# Prints the summary lines of both; the last line is the .deb's path.
#
# Usage: scripts/deb.sh [OUT]               (default: build/deb)
#        scripts/deb.sh --source OUT        the clean copy alone, its path the
#                                           last line (a build elsewhere: in a
#                                           clean root, tests/deb/t_deb_root.sh)
#        scripts/deb.sh --lintian CHANGES   lintian alone, on a build's .changes
set -eu

mode=all
case ${1:-} in --source | --lintian) mode=${1#--}; shift ;; esac
out=${1:-build/deb}
top=$(cd "$(dirname "$0")/.." && pwd)
die() { echo "tracetax: $*" >&2; exit 1; }

# lint CHANGES: lintian's verdict on a build (OUT: where its logs go)
lint() {
	changes=$1
	# An error or a warning fails: those we know are overridden, each with its
	# reason (debian/tracetax.lintian-overrides), and a new one shows here.
	lintian --fail-on error,warning "$changes" >"$out/lintian.log" 2>&1 || {
		cat "$out/lintian.log" >&2
		die "lintian: $changes has errors or warnings (log: $out/lintian.log)"
	}
	# then what else it says: info tags, and the overridden ones
	lintian --display-info --show-overrides "$changes" 2>/dev/null | grep -E '^[EWIPO]: ' >"$out/lintian-info.log" || true
	cat "$out/lintian-info.log" >&2
	echo "lintian: 0 errors, 0 warnings, $(grep -c '^I: ' "$out/lintian-info.log" || true) info," \
		"$(grep -c '^O: ' "$out/lintian-info.log" || true) overridden"
}

if [ "$mode" = lintian ]; then
	command -v lintian >/dev/null 2>&1 || die "no lintian (Debian: lintian)"
	[ -f "$out" ] || die "no .changes at '$out'"
	changes=$(cd "$(dirname "$out")" && pwd)/$(basename "$out")
	out=$(dirname "$changes")
	lint "$changes"
	exit 0
fi
if [ "$mode" = all ]; then
	command -v dpkg-buildpackage >/dev/null 2>&1 || die "no dpkg-buildpackage (Debian: dpkg-dev, debhelper)"
	command -v dh >/dev/null 2>&1 || die "no dh (Debian: debhelper)"
	command -v lintian >/dev/null 2>&1 || die "no lintian (Debian: lintian)"
fi
command -v dpkg-parsechangelog >/dev/null 2>&1 || die "no dpkg-parsechangelog (Debian: dpkg-dev)"
version=$(cd "$top" && dpkg-parsechangelog -S Version)
arch=$(dpkg --print-architecture)

mkdir -p "$out"
out=$(cd "$out" && pwd)
src=$out/tracetax-$version
rm -rf "$src" "$out"/tracetax_"$version"_*
mkdir "$src"
cd "$top"
if git rev-parse --git-dir >/dev/null 2>&1; then
	# tracked and new files, as they are in the working tree; deleted ones left out
	git ls-files -z --cached --others --exclude-standard |
		xargs -0 sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' - |
		tar --null -T - -cf - | tar -xf - -C "$src"
else
	tar --exclude=./build --exclude='./build-*' -cf - . | tar -xf - -C "$src"
fi

if [ "$mode" = source ]; then
	echo "$src"
	exit 0
fi
cd "$src"
echo "tracetax: dpkg-buildpackage -us -uc -b in $src" >&2
if ! dpkg-buildpackage -us -uc -b >"$out/build.log" 2>&1; then
	tail -n 30 "$out/build.log" >&2
	die "dpkg-buildpackage failed (log: $out/build.log)"
fi
grep -E '^dpkg-buildpackage: info: binary-only upload|^dpkg-deb: building package' "$out/build.log" || true
deb=$out/tracetax_${version}_$arch.deb
[ -f "$deb" ] || die "no $deb after the build"

lint "$out/tracetax_${version}_$arch.changes"
echo "$deb"
